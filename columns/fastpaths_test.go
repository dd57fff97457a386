package columns

import (
	"bytes"
	"encoding/binary"
	"reflect"
	"testing"
	"time"
)

// fastPathTypes are column types with and without fast paths: the plain numeric columns, String
// and DateTime have them; every type embedding a Fixed (whose methods are promoted) must not.
var fastPathTypes = []string{
	"Int8", "Int16", "Int32", "Int64", "UInt8", "UInt16", "UInt32", "UInt64", "Float32", "Float64",
	"String", "DateTime", "DateTime('UTC')",
	"Bool", "BFloat16", "Date", "Date32", "DateTime64(3)", "DateTime64(6, 'UTC')", "Decimal(9, 2)",
	"Decimal(18, 4)", "Decimal(38, 10)", "Enum8('a' = 1, 'b' = 2)", "Enum16('x' = 300)", "IPv4", "IPv6",
	"UUID", "FixedString(3)", "Int128", "UInt256", "Nullable(UInt64)", "Nullable(String)",
	"LowCardinality(String)", "LowCardinality(Nullable(String))", "Array(UInt64)", "Tuple(UInt8, String)",
	"Map(String, UInt64)", "SimpleAggregateFunction(sum, UInt64)", "IntervalSecond", "Time", "Time64(3)",
	"Point",
}

// fastPathColumn returns a column of typ with a few rows: defaults and what of 7, "7", a time
// and true it takes.
func fastPathColumn(t *testing.T, typ string) Column {
	t.Helper()
	c, err := New(typ)
	if err != nil {
		t.Skipf("%s: %v", typ, err)
	}
	c.AppendDefault()
	for _, v := range []any{7, "7", time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC), true, 200} {
		_ = c.AppendValue(v)
	}
	c.AppendDefault()
	return c
}

// SQLWindowOf answers only for the exact columns, and what it describes is SQLValue's, row for
// row and type for type.
func TestSQLWindowOf(t *testing.T) {
	want := map[string]WindowKind{"String": WindowString, "DateTime": WindowTime, "DateTime('UTC')": WindowTime}
	for _, n := range []string{"Int8", "Int16", "Int32", "Int64", "UInt8", "UInt16", "UInt32", "UInt64", "Float32", "Float64"} {
		want[n] = WindowFixed
	}
	for _, typ := range fastPathTypes {
		c := fastPathColumn(t, typ)
		w := SQLWindowOf(c)
		if w.Kind != want[typ] {
			t.Errorf("%s: kind %d, want %d", typ, w.Kind, want[typ])
			continue
		}
		switch w.Kind {
		case WindowFixed:
			zt := reflect.TypeOf(w.Zero)
			if uintptr(len(w.Mem)) != w.Size*uintptr(c.Rows()) || zt.Size() != w.Size {
				t.Errorf("%s: %d bytes of %d-byte values (%s) for %d rows", typ, len(w.Mem), w.Size, zt, c.Rows())
			}
			for i := range c.Rows() {
				p := reflect.New(zt)
				if err := binary.Read(bytes.NewReader(w.Mem[uintptr(i)*w.Size:]), binary.NativeEndian, p.Interface()); err != nil {
					t.Fatal(err)
				}
				if got, sv := p.Elem().Interface(), SQLValue(c, i); got != sv {
					t.Errorf("%s row %d: window %#v, SQLValue %#v", typ, i, got, sv)
				}
			}
		case WindowString:
			prev := 0
			for i, e := range w.Ends {
				if got, sv := string(w.Text[prev:e]), SQLValue(c, i); got != sv {
					t.Errorf("%s row %d: window %q, SQLValue %#v", typ, i, got, sv)
				}
				prev = e
			}
		case WindowTime:
			ts := make([]time.Time, c.Rows()-1)
			SQLTimes(c, ts, 1)
			for j, tm := range ts {
				if sv := SQLValue(c, j+1); tm != sv {
					t.Errorf("%s row %d: window %v, SQLValue %#v", typ, j+1, tm, sv)
				}
			}
		}
	}
}

// ScanFast stores what database/sql would store from SQLValue, for exactly the pairs its doc
// names.
func TestScanFast(t *testing.T) {
	handled := map[string][]string{
		"UInt64":   {"*uint64", "*int64"},
		"Int64":    {"*int64", "*int"},
		"UInt32":   {"*uint32", "*int64", "*uint64"},
		"Int32":    {"*int32", "*int64", "*int"},
		"Float64":  {"*float64"},
		"Float32":  {"*float32"},
		"String":   {"*[]uint8"},
		"DateTime": {"*time.Time"}, "DateTime('UTC')": {"*time.Time"},
	}
	dests := []func() any{
		func() any { return new(uint64) }, func() any { return new(int64) }, func() any { return new(int) },
		func() any { return new(uint32) }, func() any { return new(int32) }, func() any { return new(uint8) },
		func() any { return new(int8) }, func() any { return new(float64) }, func() any { return new(float32) },
		func() any { return new([]byte) }, func() any { return new(string) }, func() any { return new(time.Time) },
		func() any { return new(any) }, func() any { return new(bool) },
	}
	for _, typ := range fastPathTypes {
		c := fastPathColumn(t, typ)
		for _, mk := range dests {
			name := reflect.TypeOf(mk()).String()
			want := false
			for _, h := range handled[typ] {
				want = want || h == name
			}
			for i := range c.Rows() {
				d := mk()
				got := ScanFast(c, i, d)
				if got != want {
					t.Errorf("%s row %d into %s: handled %v, want %v", typ, i, name, got, want)
					continue
				}
				if !got {
					if !reflect.ValueOf(d).Elem().IsZero() {
						t.Errorf("%s row %d into %s: not handled but written", typ, i, name)
					}
					continue
				}
				sv := reflect.ValueOf(SQLValue(c, i))
				dv := reflect.ValueOf(d).Elem()
				if dv.Kind() == reflect.Slice {
					if !bytes.Equal(dv.Bytes(), []byte(sv.String())) {
						t.Errorf("%s row %d into %s: %v, SQLValue %v", typ, i, name, dv, sv)
					}
					continue
				}
				if conv := sv.Convert(dv.Type()); conv.Interface() != dv.Interface() || conv.Convert(sv.Type()).Interface() != sv.Interface() {
					t.Errorf("%s row %d into %s: %v, SQLValue %v", typ, i, name, dv, sv)
				}
			}
		}
	}
	// UInt64 past int64: not into *int64 (database/sql refuses it).
	u := NewFixed[uint64]("")
	u.Append(1 << 63)
	var d int64
	if ScanFast(u, 0, &d) || d != 0 {
		t.Errorf("UInt64 1<<63 into *int64: handled, %d", d)
	}
	// A copy of its own.
	s := NewString()
	s.Append("abc")
	var b []byte
	ScanFast(s, 0, &b)
	b[0] = 'X'
	if s.String(0) != "abc" {
		t.Errorf("scanned []byte aliases the column")
	}
}

// Append appends what AppendValue would, and fails as it does, for values of every Go type into
// every column type.
func TestAppendMatchesAppendValue(t *testing.T) {
	vals := []any{int8(-3), int16(-300), int32(-70000), int64(-1 << 40), uint8(3), uint16(300), uint32(70000),
		uint64(1 << 40), float32(1.5), float64(2.25), "s", "7", []byte("b"), 7, true, time.Unix(5, 0), nil}
	for _, typ := range fastPathTypes {
		for _, v := range vals {
			c, err := New(typ)
			if err != nil {
				continue
			}
			ref, _ := New(typ)
			err, refErr := Append(c, v), ref.AppendValue(v)
			if (err == nil) != (refErr == nil) || err != nil && err.Error() != refErr.Error() {
				t.Errorf("%s with %T: Append %v, AppendValue %v", typ, v, err, refErr)
			}
			if c.Rows() != ref.Rows() || c.Rows() == 1 && !valueEqual(c.Value(0), ref.Value(0)) {
				t.Errorf("%s with %T: Append gives %d rows, AppendValue %d", typ, v, c.Rows(), ref.Rows())
			}
		}
	}
}
