package columns

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"
)

// naiveStringWire is the Native encoding of vs written the plain way: the reference for Write.
func naiveStringWire(prefix []byte, vs []string) []byte {
	out := append([]byte(nil), prefix...)
	for _, s := range vs {
		out = binary.AppendUvarint(out, uint64(len(s)))
		out = append(out, s...)
	}
	return out
}

// Write moves short values as 16-byte words: values of every length around 16 and around the
// one- and two-byte length boundaries, next to each other and at the end, encode exactly, after
// bytes already in the writer and into a writer with spare capacity holding stale bytes.
func TestStringWriteMatchesNaive(t *testing.T) {
	var vs []string
	for i := range 3000 {
		vs = append(vs, strings.Repeat(string(rune('a'+i%26)), i%41))
	}
	for _, n := range []int{127, 128, 129, 16383, 16384, 16385, 300, 0, 16, 17, 15, 1} {
		vs = append(vs, strings.Repeat("q", n))
	}
	for _, tail := range [][]string{nil, {"x"}, {"sixteen-bytes-16"}, {"", ""}} {
		all := append(append([]string(nil), vs...), tail...)
		for _, build := range []struct {
			name string
			f    func() *String
		}{
			{"Append", func() *String {
				c := NewString()
				for _, s := range all {
					c.Append(s)
				}
				return c
			}},
			{"AppendStrings", func() *String { c := NewString(); c.AppendStrings(all); return c }},
		} {
			c := build.f()
			if c.Rows() != len(all) {
				t.Fatalf("%s: %d rows, want %d", build.name, c.Rows(), len(all))
			}
			prefix := []byte{1, 2, 3}
			want := naiveStringWire(prefix, all)
			w := Writer{Buf: bytes.Repeat([]byte{0xee}, 2*len(want))[:0]}
			w.Buf = append(w.Buf, prefix...)
			c.Write(&w)
			if !bytes.Equal(w.Buf, want) {
				t.Fatalf("%s, tail %q: Write differs from the plain encoding (%d bytes, want %d)", build.name, tail, len(w.Buf), len(want))
			}
		}
	}
	// An empty column writes nothing.
	var w Writer
	NewString().Write(&w)
	if w.Len() != 0 {
		t.Fatalf("empty column wrote %d bytes", w.Len())
	}
}

// FuzzStringWrite: Write encodes any list of strings exactly as the plain encoder does. The input
// is split at 0xff bytes into values (so lengths around 16 and 128 and empty values all occur).
func FuzzStringWrite(f *testing.F) {
	f.Add([]byte("a\xffbb\xff\xff0123456789abcdef\xff0123456789abcdefg"))
	f.Add(bytes.Repeat([]byte{'x'}, 300))
	f.Fuzz(func(t *testing.T, data []byte) {
		var vs []string
		for _, p := range bytes.Split(data, []byte{0xff}) {
			vs = append(vs, string(p))
		}
		c := NewString()
		c.AppendStrings(vs)
		var w Writer
		c.Write(&w)
		if want := naiveStringWire(nil, vs); !bytes.Equal(w.Buf, want) {
			t.Fatalf("Write of %q differs from the plain encoding", vs)
		}
	})
}

// WriteRows over runs that RowsWithin cuts, put together, is Write's encoding: for runs of a few
// bytes (one row each), of about a value and of more than the column; the same for FixedString.
func TestWriteRowsRunsMatchWrite(t *testing.T) {
	s, fs := NewString(), NewFixedString(5)
	for i := range 5000 {
		s.Append(strings.Repeat("v", i%200))
		if err := fs.Append([]byte{byte(i), 1, 2}); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []RowRangeWriter{s, fs} {
		col := c.(Column)
		var whole Writer
		col.Write(&whole)
		for _, n := range []int{0, 1, 100, 4096, 1 << 30} {
			var runs Writer
			runs.Buf = append(runs.Buf, 9)
			for from := 0; from < col.Rows(); {
				to := c.RowsWithin(from, n)
				if to <= from || to > col.Rows() {
					t.Fatalf("%s: RowsWithin(%d, %d) = %d of %d rows", col.Type(), from, n, to, col.Rows())
				}
				c.WriteRows(&runs, from, to)
				from = to
			}
			if !bytes.Equal(runs.Buf[1:], whole.Buf) || runs.Buf[0] != 9 {
				t.Fatalf("%s: runs of %d bytes encode differently", col.Type(), n)
			}
		}
	}
}
