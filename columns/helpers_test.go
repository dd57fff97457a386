package columns

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"reflect"
	"testing"
	"testing/iotest"
	"time"
	_ "time/tzdata" // DateTime('Europe/Moscow') and friends on machines without zoneinfo
)

// mustNew returns New(typ) or fails the test.
func mustNew(t testing.TB, typ string) Column {
	t.Helper()
	c, err := New(typ)
	if err != nil {
		t.Fatalf("New(%q): %v", typ, err)
	}
	return c
}

// encode returns the state prefix and data of c, as a block with rows > 0 carries them.
func encode(c Column) []byte {
	var w Writer
	c.WritePrefix(&w)
	c.Write(&w)
	return w.Buf
}

// readerKinds are the ways a test feeds an encoding to a decoder: in place, one byte per Read
// call, and through buffers small enough that values span refills.
var readerKinds = []struct {
	name string
	new  func([]byte) *Reader
}{
	{"bytes", func(b []byte) *Reader { return NewBytesReader(b) }},
	{"onebyte", func(b []byte) *Reader { return NewReaderSize(iotest.OneByteReader(bytes.NewReader(b)), 4096) }},
	{"default", func(b []byte) *Reader { return NewReader(bytes.NewReader(b)) }},
	{"small", func(b []byte) *Reader { return NewReaderSize(bytes.NewReader(b), MinReaderSize) }},
	{"half17", func(b []byte) *Reader { return NewReaderSize(iotest.HalfReader(bytes.NewReader(b)), 17) }},
}

// decodeInto reads prefix and rows values into c and checks the input was consumed exactly.
func decodeInto(c Column, r *Reader, rows int) error {
	if err := c.ReadPrefix(r); err != nil {
		return err
	}
	if err := c.Read(r, rows); err != nil {
		return err
	}
	if c.Rows() != rows {
		return fmt.Errorf("Rows() = %d after reading %d", c.Rows(), rows)
	}
	if _, err := r.Byte(); err != io.EOF {
		return fmt.Errorf("input not consumed exactly: next byte error %v", err)
	}
	return nil
}

// values returns every Value of c.
func values(c Column) []any {
	out := make([]any, c.Rows())
	for i := range out {
		out[i] = c.Value(i)
	}
	return out
}

// valueEqual compares decoded values: floats bit-exactly, big numbers by value, times by instant
// and location, and everything else structurally.
func valueEqual(a, b any) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	// QBit(BFloat16, D) values are float32 vectors widened from the raw bfloat16 bits that
	// tests often state.
	if f, ok := a.([]float32); ok {
		if bits, ok := b.([]uint16); ok {
			if len(f) != len(bits) {
				return false
			}
			for i := range f {
				if math.Float32bits(f[i]) != uint32(bits[i])<<16 {
					return false
				}
			}
			return true
		}
	}
	switch x := a.(type) {
	case float64:
		y, ok := b.(float64)
		return ok && math.Float64bits(x) == math.Float64bits(y)
	case float32:
		y, ok := b.(float32)
		return ok && math.Float32bits(x) == math.Float32bits(y)
	case *big.Int:
		y, ok := b.(*big.Int)
		return ok && (x == nil) == (y == nil) && (x == nil || x.Cmp(y) == 0)
	case Decimal:
		y, ok := b.(Decimal)
		return ok && x.Scale == y.Scale && x.String() == y.String()
	case time.Time:
		y, ok := b.(time.Time)
		return ok && x.Equal(y) && x.Location().String() == y.Location().String()
	}
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	if va.Type() != vb.Type() {
		return false
	}
	switch va.Kind() {
	case reflect.Slice, reflect.Array:
		if va.Len() != vb.Len() || va.Kind() == reflect.Slice && va.IsNil() != vb.IsNil() && va.Len() > 0 {
			return false
		}
		for i := 0; i < va.Len(); i++ {
			if !valueEqual(iface(va.Index(i)), iface(vb.Index(i))) {
				return false
			}
		}
		return true
	case reflect.Pointer:
		if va.IsNil() || vb.IsNil() {
			return va.IsNil() && vb.IsNil()
		}
		return valueEqual(va.Elem().Interface(), vb.Elem().Interface())
	case reflect.Map:
		if va.Len() != vb.Len() {
			return false
		}
		for _, k := range va.MapKeys() {
			w := vb.MapIndex(k)
			if !w.IsValid() || !valueEqual(iface(va.MapIndex(k)), iface(w)) {
				return false
			}
		}
		return true
	case reflect.Struct: // such as Point: fields compared as above (NaN coordinates bit-exactly)
		exported := true
		for i := 0; i < va.NumField(); i++ {
			exported = exported && va.Type().Field(i).IsExported()
		}
		if exported {
			for i := 0; i < va.NumField(); i++ {
				if !valueEqual(iface(va.Field(i)), iface(vb.Field(i))) {
					return false
				}
			}
			return true
		}
	}
	return reflect.DeepEqual(a, b)
}

func iface(v reflect.Value) any {
	if (v.Kind() == reflect.Interface || v.Kind() == reflect.Pointer) && v.IsNil() {
		if v.Kind() == reflect.Pointer {
			return v.Interface()
		}
		return nil
	}
	return v.Interface()
}

func valuesEqual(a, b []any) (int, bool) {
	if len(a) != len(b) {
		return -1, false
	}
	for i := range a {
		if !valueEqual(a[i], b[i]) {
			return i, false
		}
	}
	return 0, true
}

// appendAll appends vs to c through AppendValue.
func appendAll(t testing.TB, c Column, vs ...any) {
	t.Helper()
	for i, v := range vs {
		if err := c.AppendValue(v); err != nil {
			t.Fatalf("%s: AppendValue #%d (%T %v): %v", c.Type(), i, v, v, err)
		}
	}
}

// checkRoundTrip encodes c and decodes it with every reader kind into a fresh column and into a
// column already holding other data, comparing values with want (c's own values when nil). It
// also checks every truncation fails and returns the encoding.
func checkRoundTrip(t *testing.T, c Column, want []any) []byte {
	t.Helper()
	if want == nil {
		want = values(c)
	}
	if got := values(c); !sameValues(got, want) {
		t.Fatalf("%s: values before encoding\n got %#v\nwant %#v", c.Type(), got, want)
	}
	data := encode(c)
	rows := c.Rows()
	for _, rk := range readerKinds {
		fresh := mustNew(t, c.Type())
		if err := decodeInto(fresh, rk.new(data), rows); err != nil {
			t.Fatalf("%s/%s: decode: %v", c.Type(), rk.name, err)
		}
		if got := values(fresh); !sameValues(got, want) {
			t.Fatalf("%s/%s: decoded\n got %#v\nwant %#v", c.Type(), rk.name, got, want)
		}
		if again := encode(fresh); !bytes.Equal(again, data) {
			t.Fatalf("%s/%s: re-encoding differs\n got % x\nwant % x", c.Type(), rk.name, again, data)
		}
		// Reuse: a column with other contents (and a larger row count) is replaced.
		reuse := mustNew(t, c.Type())
		for range rows + 3 {
			reuse.AppendDefault()
		}
		if err := decodeInto(reuse, rk.new(append(encode(reuse), 0xEE)), reuse.Rows()); err == nil {
			t.Fatalf("%s/%s: trailing byte not noticed", c.Type(), rk.name)
		}
		reuse.Reset()
		for range rows + 3 {
			reuse.AppendDefault()
		}
		if rows > 0 {
			if err := decodeInto(reuse, rk.new(data), rows); err != nil {
				t.Fatalf("%s/%s: decode into used column: %v", c.Type(), rk.name, err)
			}
			if got := values(reuse); !sameValues(got, want) {
				t.Fatalf("%s/%s: decoded into used column\n got %#v\nwant %#v", c.Type(), rk.name, got, want)
			}
		}
	}
	if rows > 0 {
		requireNoShortRead(t, c.Type(), data, rows)
	}
	return data
}

func sameValues(a, b []any) bool { _, ok := valuesEqual(a, b); return ok }

// requireNoShortRead checks that every proper prefix of a valid encoding of rows values fails to
// decode, with an error rather than a panic, from both a byte slice and a stream.
func requireNoShortRead(t *testing.T, typ string, data []byte, rows int) {
	t.Helper()
	step := 1
	if len(data) > 4096 {
		step = len(data)/1024 + 1 // long encodings: sample the cut points (and always the last byte)
	}
	for n := 0; n < len(data); n += step {
		if n+step >= len(data) && n != len(data)-1 {
			n = len(data) - 1
		}
		for _, rk := range readerKinds[:2] { // bytes, onebyte
			c := mustNew(t, typ)
			err := func() (err error) {
				defer func() {
					if p := recover(); p != nil {
						err = fmt.Errorf("panic: %v", p)
						t.Fatalf("%s/%s: %d of %d bytes: %v", typ, rk.name, n, len(data), err)
					}
				}()
				r := rk.new(data[:n])
				if err := c.ReadPrefix(r); err != nil {
					return err
				}
				return c.Read(r, rows)
			}()
			if err == nil {
				t.Fatalf("%s/%s: %d of %d bytes decoded without error", typ, rk.name, n, len(data))
			}
			// Truncation is reported as such: io.ErrUnexpectedEOF (io.EOF only with no input at
			// all), usually inside a *DecodeError.
			if !errors.Is(err, io.ErrUnexpectedEOF) && !(n == 0 && errors.Is(err, io.EOF)) {
				t.Fatalf("%s/%s: %d of %d bytes: error %T %v is not io.ErrUnexpectedEOF", typ, rk.name, n, len(data), err, err)
			}
			if c.Rows() != 0 {
				t.Fatalf("%s/%s: failed Read left %d rows", typ, rk.name, c.Rows())
			}
		}
	}
}

// hexBytes parses "01 02 ff" (spaces and newlines ignored).
func hexBytes(t testing.TB, s string) []byte {
	t.Helper()
	var out []byte
	var hi = -1
	for _, ch := range s {
		var v int
		switch {
		case ch >= '0' && ch <= '9':
			v = int(ch - '0')
		case ch >= 'a' && ch <= 'f':
			v = int(ch-'a') + 10
		case ch >= 'A' && ch <= 'F':
			v = int(ch-'A') + 10
		default:
			continue
		}
		if hi < 0 {
			hi = v
		} else {
			out = append(out, byte(hi<<4|v))
			hi = -1
		}
	}
	if hi >= 0 {
		t.Fatalf("odd hex digits in %q", s)
	}
	return out
}

func typeOf(v any) reflect.Type { return reflect.TypeOf(v) }
