package fakeserver

import (
	"bytes"
	"strings"
	"testing"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/nativeproto"
)

// TestDiscarder checks that the discarder consumes exactly the client's Data packets, whatever the
// read buffer's size: a block of mixed columns (with strings longer than the buffer and a type it
// decodes), then the empty block, then a marker byte that must be left unread.
func TestDiscarder(t *testing.T) {
	b := nativeproto.NewBlock()
	ids := columns.NewFixed[uint64]("")
	names := columns.NewString()
	fs, err := columns.New("FixedString(3)")
	if err != nil {
		t.Fatal(err)
	}
	nul, err := columns.New("Nullable(String)")
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5000 {
		ids.Append(uint64(i))
		names.Append(strings.Repeat("x", i%300+(i/4999)*100000))
		if err := fs.AppendValue("abc"); err != nil {
			t.Fatal(err)
		}
		var v any
		if i%3 != 0 {
			v = Str(i)
		}
		if err := nul.AppendValue(v); err != nil {
			t.Fatal(err)
		}
	}
	b.Add("id", ids)
	b.Add("name", names)
	b.Add("fs", fs)
	b.Add("n", nul)
	pw := nativeproto.NewPacketWriter()
	pw.SetRevision(Revision)
	var wire bytes.Buffer
	for range 2 {
		if err := pw.WriteData("", b); err != nil {
			t.Fatal(err)
		}
	}
	if err := pw.WriteEmptyData(); err != nil {
		t.Fatal(err)
	}
	pw.Buffer().Byte(0x7f)
	if err := pw.Flush(&wire); err != nil {
		t.Fatal(err)
	}
	for _, size := range []int{16, 100, 4096, 1 << 20} {
		r := columns.NewReaderSize(bytes.NewReader(wire.Bytes()), size)
		d := discarder{rev: Revision}
		blocks := 0
		for {
			code, err := r.UVarInt()
			if err != nil {
				t.Fatal(err)
			}
			if code != uint64(nativeproto.ClientCodeData) {
				t.Fatalf("buffer %d: code %d after %d blocks", size, code, blocks)
			}
			if _, err := r.String("table", 1<<20); err != nil {
				t.Fatal(err)
			}
			end, err := d.block(r)
			if err != nil {
				t.Fatalf("buffer %d: %v", size, err)
			}
			if end {
				break
			}
			blocks++
		}
		if blocks != 2 {
			t.Fatalf("buffer %d: %d blocks", size, blocks)
		}
		if c, err := r.Byte(); err != nil || c != 0x7f {
			t.Fatalf("buffer %d: after the data: %#x, %v", size, c, err)
		}
	}
}
