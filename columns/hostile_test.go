package columns

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/chnative/chnative/internal/testenv"
)

const allocBudget = 64 << 20

// A huge row count with little input fails fast, with allocation bounded by the input rather
// than by the count, for every family and from both a byte slice and a stream.
func TestHugeRowCount(t *testing.T) {
	types := []string{
		"UInt8", "UInt64", "Int256", "String", "FixedString(1000)", "Date", "DateTime('Europe/Moscow')",
		"Decimal(76, 2)", "UUID", "Enum8('a' = 1)", "Nothing", "Nullable(Nothing)", "Nullable(String)",
		"Array(UInt8)", "Array(String)", "Tuple(String, UInt64)", "Map(String, UInt64)",
		"LowCardinality(String)", "LowCardinality(Nullable(String))", "Array(LowCardinality(String))",
		"Bool", "BFloat16", "Date32", "DateTime64(9, 'Asia/Kolkata')", "Time64(3)", "IPv4", "IPv6",
		"IntervalDay", "Point", "MultiPolygon", "Nested(a UInt8, b String)", "SimpleAggregateFunction(sum, UInt64)",
		"LowCardinality(Nullable(IPv6))",
	}
	input := bytes.Repeat([]byte{1, 0, 0, 0, 0, 0, 0, 0}, 64) // looks like LC version 1, small offsets...
	for _, typ := range types {
		for _, rows := range []int{1 << 40, 1<<62 + 3, 1 << 31} {
			for _, mk := range []func() *Reader{
				func() *Reader { return NewBytesReader(input) },
				func() *Reader { return NewReader(bytes.NewReader(input)) },
				func() *Reader { return NewReaderSize(iotest.OneByteReader(bytes.NewReader(input)), 64) },
			} {
				c := mustNew(t, typ)
				var err error
				alloc := testenv.AllocatedBy(func() {
					r := mk()
					if err = c.ReadPrefix(r); err == nil {
						err = c.Read(r, rows)
					}
				})
				if err == nil {
					t.Fatalf("%s: %d rows from %d bytes decoded", typ, rows, len(input))
				}
				if alloc > allocBudget {
					t.Errorf("%s: %d rows: allocated %d MB", typ, rows, alloc>>20)
				}
				if c.Rows() != 0 {
					t.Errorf("%s: failed Read left %d rows", typ, c.Rows())
				}
			}
		}
	}
}

func TestNegativeRows(t *testing.T) {
	for _, tc := range roundTripCases() {
		c := mustNew(t, tc.typ)
		if err := c.Read(NewBytesReader(make([]byte, 64)), -1); err == nil {
			t.Errorf("%s: Read(-1) succeeded", tc.typ)
		}
		if c.Rows() != 0 {
			t.Errorf("%s: Read(-1) left %d rows", tc.typ, c.Rows())
		}
	}
}

func TestHugeStringLength(t *testing.T) {
	var w Writer
	w.UVarInt(1 << 40)
	w.Raw([]byte("abc"))
	for _, r := range []*Reader{NewBytesReader(w.Buf), NewReader(bytes.NewReader(w.Buf))} {
		c := NewString()
		var err error
		alloc := testenv.AllocatedBy(func() { err = c.Read(r, 1) })
		var le *LimitError
		if !errors.As(err, &le) {
			t.Fatalf("err = %v, want a LimitError", err)
		}
		if alloc > allocBudget {
			t.Fatalf("allocated %d MB", alloc>>20)
		}
	}
	// Under the cap but past the input: the stream path grows only with the bytes received.
	w.Reset()
	w.UVarInt(MaxStringSize)
	w.Raw([]byte("abc"))
	for _, r := range []*Reader{NewBytesReader(w.Buf), NewReader(bytes.NewReader(w.Buf))} {
		c := NewString()
		var err error
		alloc := testenv.AllocatedBy(func() { err = c.Read(r, 1) })
		if !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("err = %v", err)
		}
		if alloc > allocBudget {
			t.Fatalf("allocated %d MB", alloc>>20)
		}
	}
	// A varint longer than 64 bits.
	bad := bytes.Repeat([]byte{0xff}, 11)
	if err := NewString().Read(NewBytesReader(bad), 1); err == nil {
		t.Fatal("overlong varint accepted")
	}
	if err := NewString().Read(NewReader(iotest.OneByteReader(bytes.NewReader(bad))), 1); err == nil {
		t.Fatal("overlong varint accepted from a stream")
	}
}

func offsets(vs ...uint64) []byte {
	var b []byte
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint64(b, v)
	}
	return b
}

func TestBadOffsets(t *testing.T) {
	for _, tc := range []struct {
		typ  string
		data []byte
		rows int
		msg  string
	}{
		{"Array(UInt8)", append(offsets(2, 1), 1, 2), 2, "backwards"},
		{"Array(UInt8)", append(offsets(1, 3), 1, 2), 2, "unexpected EOF"}, // past the end of the elements
		{"Array(UInt8)", offsets(1 << 40), 1, "exceed"},
		{"Array(UInt8)", offsets(1<<63, 1<<63), 2, "exceed"},
		{"Map(String, UInt8)", append(offsets(1, 0), 0, 0), 2, "backwards"},
		{"Array(Array(UInt8))", append(offsets(1), offsets(5)...), 1, "EOF"},
		{"Array(String)", append(offsets(1<<35), 1, 'a'), 1, "EOF"},
	} {
		for _, rk := range readerKinds {
			c := mustNew(t, tc.typ)
			appendAll(t, c, values(mustNewDefaults(t, tc.typ, 2))...)
			var err error
			alloc := testenv.AllocatedBy(func() { err = c.Read(rk.new(tc.data), tc.rows) })
			if err == nil || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("%s/%s % x: err %v, want %q", tc.typ, rk.name, tc.data, err, tc.msg)
			}
			if alloc > allocBudget {
				t.Errorf("%s: allocated %d MB", tc.typ, alloc>>20)
			}
			if c.Rows() != 0 {
				t.Errorf("%s: failed Read left %d rows", tc.typ, c.Rows())
			}
		}
	}
}

func mustNewDefaults(t *testing.T, typ string, n int) Column {
	c := mustNew(t, typ)
	for range n {
		c.AppendDefault()
	}
	return c
}

func TestBadLowCardinality(t *testing.T) {
	ver := "01 00 00 00 00 00 00 00"
	for _, tc := range []struct {
		name, hex, msg string
	}{
		{"version 0", "00 00 00 00 00 00 00 00 00 06 00 00 00 00 00 00 01 00 00 00 00 00 00 00 00 01 00 00 00 00 00 00 00 00", "version"},
		{"version 2", "02 00 00 00 00 00 00 00", "version"},
		{"global dictionary", ver + "00 07 00 00 00 00 00 00", "global"},
		{"no additional keys", ver + "00 04 00 00 00 00 00 00", "additional keys"},
		{"key type 4", ver + "04 06 00 00 00 00 00 00", "index type"},
		{"unknown flag", ver + "00 0e 00 00 00 00 00 00", "flags"},
		{"index past dictionary", ver + "00 06 00 00 00 00 00 00 01 00 00 00 00 00 00 00 00 01 00 00 00 00 00 00 00 01", "past the dictionary"},
		{"UInt64 index past dictionary", ver + "03 06 00 00 00 00 00 00 01 00 00 00 00 00 00 00 00 01 00 00 00 00 00 00 00 00 00 00 00 01 00 00 00", "past the dictionary"},
		{"too many rows", ver + "00 06 00 00 00 00 00 00 01 00 00 00 00 00 00 00 00 02 00 00 00 00 00 00 00 00 00", "exceeds"},
		{"empty granule", ver + "00 06 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00", "empty granule"},
		{"huge dictionary", ver + "00 06 00 00 00 00 00 00 00 00 00 00 01 00 00 00", "limit"},
		{"dictionary past input", ver + "00 06 00 00 00 00 00 00 00 00 00 01 00 00 00 00 01 61", "EOF"},
	} {
		for _, rk := range readerKinds {
			c := mustNew(t, "LowCardinality(String)")
			appendAll(t, c, "x", "y")
			r := rk.new(hexBytes(t, tc.hex))
			var err error
			prefixFailed := false
			alloc := testenv.AllocatedBy(func() {
				if err = c.ReadPrefix(r); err == nil {
					err = c.Read(r, 1)
				} else {
					prefixFailed = true
				}
			})
			if err == nil || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("%s/%s: err %v, want %q", tc.name, rk.name, err, tc.msg)
			}
			if alloc > allocBudget {
				t.Errorf("%s: allocated %d MB", tc.name, alloc>>20)
			}
			if prefixFailed {
				c.Reset() // a failed ReadPrefix leaves the contents alone
			}
			if c.Rows() != 0 {
				t.Errorf("%s: failed Read left %d rows", tc.name, c.Rows())
			}
			// The column is usable afterwards.
			appendAll(t, c, "z")
			checkRoundTrip(t, c, []any{"z"})
		}
	}
}
