package columns

import (
	"database/sql/driver"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"
)

// Types that implement the interfaces clickhouse-go's columns take values by, some with pointer
// receivers (whose methods only a pointer has).

// binPtr implements encoding.BinaryMarshaler with a pointer receiver.
type binPtr struct{ a, b byte }

func (p *binPtr) MarshalBinary() ([]byte, error) { return []byte{p.a, p.b, 'x'}, nil }

// binErr fails to marshal.
type binErr struct{}

func (binErr) MarshalBinary() ([]byte, error) { return nil, errors.New("no bytes today") }

// uuidLike is google/uuid.UUID's shape: a [16]byte with MarshalBinary (its bytes), Value (its
// 36-character text) and String.
type uuidLike [16]byte

func (u uuidLike) MarshalBinary() ([]byte, error) { return u[:], nil }
func (u uuidLike) Value() (driver.Value, error)   { return u.String(), nil }
func (u uuidLike) String() string {
	return fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
}

// strPtr implements fmt.Stringer with a pointer receiver.
type strPtr struct{ s string }

func (p *strPtr) String() string { return p.s }

// textOnly implements only encoding.TextMarshaler.
type textOnly struct{ s string }

func (t textOnly) MarshalText() ([]byte, error) { return []byte(t.s), nil }

// upper is a named string whose String() is not its contents.
type upper string

func (u upper) String() string { return strings.ToUpper(string(u)) }

// color is an iota enum with names (as protobuf enums and stringer-generated types are).
type color int8

func (c color) String() string { return [...]string{"red", "green", "blue"}[c] }

// valuerStringer is a Valuer and a Stringer: the Valuer comes first, as in clickhouse-go.
type valuerStringer struct{}

func (valuerStringer) Value() (driver.Value, error) { return "from Value", nil }
func (valuerStringer) String() string               { return "from String" }

// stamp is a named number with a String method: the time columns keep taking it as a number.
type stamp int64

func (s stamp) String() string { return "not a time" }

func TestAppendInterfaces(t *testing.T) {
	u := uuidLike{0x61, 0xf0, 0xc4, 0x04, 0x5c, 0xb3, 0x11, 0xe7, 0x90, 0x7b, 0xa6, 0x00, 0x6a, 0xd3, 0xdb, 0xa0}
	cases := []struct {
		typ  string
		v    any
		want any // Value of the appended row
	}{
		{"FixedString(3)", &binPtr{'a', 'b'}, "abx"},
		{"FixedString(4)", &binPtr{'a', 'b'}, "abx\x00"},
		{"FixedString(16)", u, string(u[:])}, // MarshalBinary before Value
		{"FixedString(16)", &u, string(u[:])},
		{"FixedString(8)", &strPtr{"str"}, "str\x00\x00\x00\x00\x00"},
		{"FixedString(8)", textOnly{"txt"}, "txt\x00\x00\x00\x00\x00"},
		{"FixedString(8)", net.IPv4(1, 2, 3, 4).To4(), "1.2.3.4\x00"}, // its String(), as clickhouse-go
		{"Nullable(FixedString(16))", u, string(u[:])},
		{"Nullable(FixedString(16))", &u, string(u[:])},
		{"LowCardinality(FixedString(3))", &binPtr{'c', 'd'}, "cdx"},
		{"String", &strPtr{"pointer receiver"}, "pointer receiver"},
		{"String", textOnly{"text"}, "text"},
		{"String", upper("abc"), "ABC"},
		{"String", net.IPv4(10, 0, 0, 1), "10.0.0.1"},
		{"String", valuerStringer{}, "from Value"},
		{"String", color(1), "green"},
		{"Nullable(String)", &strPtr{"n"}, "n"},
		{"LowCardinality(String)", &strPtr{"lc"}, "lc"},
		{"Array(String)", []*strPtr{{"a"}, {"b"}}, []string{"a", "b"}},
		{"UUID", &strPtr{"61f0c404-5cb3-11e7-907b-a6006ad3dba0"}, "61f0c404-5cb3-11e7-907b-a6006ad3dba0"},
		{"UUID", u, "61f0c404-5cb3-11e7-907b-a6006ad3dba0"},
		{"Enum8('red' = 1, 'green' = 2, 'blue' = 3)", color(1), "green"}, // by its name, not its number 1
		{"Enum8('red' = 1, 'green' = 2, 'blue' = 3)", ptr(color(2)), "blue"},
		{"Enum8('one' = 1, 'two' = 2)", color(1), "one"}, // "green" is no name here: its number
		{"Enum8('a' = 1, 'b' = 2)", &strPtr{"b"}, "b"},
		{"Enum16('x' = 300)", textOnly{"x"}, "x"},
		{"Date", &strPtr{"2024-02-29"}, time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC)},
		{"Date32", textOnly{"1950-01-02"}, time.Date(1950, 1, 2, 0, 0, 0, 0, time.UTC)},
		{"DateTime", &strPtr{"2024-02-29 10:11:12"}, time.Date(2024, 2, 29, 10, 11, 12, 0, time.UTC)},
		{"DateTime", stamp(86400), time.Unix(86400, 0).UTC()},
		{"DateTime64(3)", textOnly{"2024-02-29 10:11:12.345"}, time.Date(2024, 2, 29, 10, 11, 12, 345e6, time.UTC)},
		{"DateTime64(3)", stamp(1500), time.Unix(1, 500e6).UTC()},
	}
	for _, tc := range cases {
		c := mustNew(t, tc.typ)
		if err := c.AppendValue(tc.v); err != nil {
			t.Errorf("%s <- %T: %v", tc.typ, tc.v, err)
			continue
		}
		if got := c.Value(0); !valueEqual(got, tc.want) {
			t.Errorf("%s <- %T: %#v, want %#v", tc.typ, tc.v, got, tc.want)
		}
	}
}

func TestAppendInterfacesRefused(t *testing.T) {
	cases := []struct {
		typ    string
		v      any
		reason string // in the error
	}{
		{"FixedString(2)", &binPtr{'a', 'b'}, "3 bytes is too long"},
		{"FixedString(3)", binPtr{'a', 'b'}, ""}, // the value has no MarshalBinary: only its pointer has
		{"FixedString(3)", binErr{}, "no bytes today"},
		{"FixedString(4)", textOnly{"toolong"}, "7 bytes is too long"},
		{"UUID", &strPtr{"not a uuid"}, `its text "not a uuid" is not a UUID`},
		{"DateTime", &strPtr{"yesterday"}, `its text "yesterday" is not a date or time`},
		{"Date", textOnly{"2024-13-01"}, "is not a date or time"},
		{"Enum8('a' = 1)", &strPtr{"z"}, `unknown name "z"`},
		{"Enum8('a' = 1)", color(2), "value 2 is not in the enum"},
		{"String", (*strPtr)(nil), "NULL in a non-Nullable column"},
		{"FixedString(3)", (*binPtr)(nil), "NULL in a non-Nullable column"},
	}
	for _, tc := range cases {
		c := mustNew(t, tc.typ)
		err := c.AppendValue(tc.v)
		var tm *TypeMismatchError
		if !errors.As(err, &tm) || !strings.Contains(err.Error(), tc.reason) {
			t.Errorf("%s <- %T: %v, want a TypeMismatchError with %q", tc.typ, tc.v, err, tc.reason)
		}
		if c.Rows() != 0 {
			t.Errorf("%s <- %T: a failed append left %d rows", tc.typ, tc.v, c.Rows())
		}
	}
	// A nil pointer is NULL for Nullable, whatever methods its type has.
	for _, typ := range []string{"Nullable(String)", "Nullable(FixedString(3))", "LowCardinality(Nullable(String))"} {
		c := mustNew(t, typ)
		for _, v := range []any{(*strPtr)(nil), (*binPtr)(nil)} {
			if err := c.AppendValue(v); err != nil || c.Value(c.Rows()-1) != nil {
				t.Errorf("%s <- %T(nil): %v, %v", typ, v, err, c.Value(c.Rows()-1))
			}
		}
	}
}

// TestAppendZeroTime: the zero time.Time is the epoch in every date and time column (as
// clickhouse-go stores it), also inside Nullable, LowCardinality and Array; other times out of a
// column's range are still an error.
func TestAppendZeroTime(t *testing.T) {
	var zero time.Time
	for _, typ := range []string{
		"Date", "Date32", "DateTime", "DateTime('Asia/Tokyo')", "DateTime64(0)", "DateTime64(3)", "DateTime64(9)",
		"DateTime64(6, 'America/New_York')", "Nullable(Date)", "Nullable(DateTime64(9))", "LowCardinality(DateTime)",
		"LowCardinality(Nullable(Date))",
	} {
		c := mustNew(t, typ)
		for _, v := range []any{zero, &zero, zero.In(time.FixedZone("X", 3600))} {
			if err := c.AppendValue(v); err != nil {
				t.Errorf("%s <- %T zero: %v", typ, v, err)
				continue
			}
			got, ok := c.Value(c.Rows() - 1).(time.Time)
			if !ok || got.Unix() != 0 || got.Nanosecond() != 0 {
				t.Errorf("%s <- %T zero: %v, want the epoch", typ, v, c.Value(c.Rows()-1))
			}
		}
	}
	arr := mustNew(t, "Array(Date)")
	if err := arr.AppendValue([]time.Time{{}, time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)}); err != nil {
		t.Fatal(err)
	}
	if got := arr.Value(0).([]time.Time); got[0].Unix() != 0 || got[1].Year() != 2000 {
		t.Errorf("Array(Date): %v", got)
	}
	d := mustNew(t, "Date").(*Date)
	if err := d.AppendTime(zero); err != nil || d.Values()[0] != 0 {
		t.Errorf("Date.AppendTime(zero): %v, %v", err, d.Values())
	}
	for _, tc := range []struct {
		typ string
		v   time.Time
	}{
		{"Date", time.Date(2150, 1, 1, 0, 0, 0, 0, time.UTC)},
		{"Date", time.Date(1969, 12, 31, 0, 0, 0, 0, time.UTC)},
		{"Date32", time.Date(1899, 12, 31, 0, 0, 0, 0, time.UTC)},
		{"Date32", time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC)},
		{"DateTime", time.Date(2106, 2, 8, 0, 0, 0, 0, time.UTC)},
		{"DateTime", time.Date(1, 1, 1, 0, 0, 1, 0, time.UTC)}, // one second after the zero time
		{"DateTime64(9)", time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC)},
	} {
		c := mustNew(t, tc.typ)
		err := c.AppendValue(tc.v)
		var tm *TypeMismatchError
		if !errors.As(err, &tm) || !strings.Contains(err.Error(), "out of range") || c.Rows() != 0 {
			t.Errorf("%s <- %v: %v, want out of range", tc.typ, tc.v, err)
		}
	}
}
