package nativeproto

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/chnative/chnative/columns"
)

// streamBlock is borrowBlock with a second String column of long values, a FixedString one, and
// columns of several streams (Nullable, LowCardinality, Array), so that the pieces of every
// column (columns.WritePieces) cross StreamChunk and WriteFrame.
func streamBlock(rows int) *Block {
	b := borrowBlock(rows)
	long := columns.NewString()
	fs := columns.NewFixedString(24)
	multi := map[string]columns.Column{}
	types := []string{"Nullable(String)", "LowCardinality(String)", "Array(UInt64)"}
	for _, typ := range types {
		c, err := columns.New(typ)
		if err != nil {
			panic(err)
		}
		multi[typ] = c
	}
	for i := range rows {
		v := strings.Repeat(string(rune('a'+i%26)), i%300)
		long.Append(v)
		if err := fs.Append([]byte(fmt.Sprintf("fs-%d", i))); err != nil {
			panic(err)
		}
		var nv any = v
		if i%5 == 0 {
			nv = nil
		}
		for typ, x := range map[string]any{types[0]: nv, types[1]: fmt.Sprint("k", i%5000), types[2]: []uint64{uint64(i), 1, 2, 3}} {
			if err := multi[typ].AppendValue(x); err != nil {
				panic(err)
			}
		}
	}
	b.Add("long", long)
	b.Add("fs", fs)
	for _, typ := range types {
		b.Add(typ, multi[typ])
	}
	return b
}

// TestWriteDataStreamPieces: a block written with a spill func leaves in pieces whose bytes, put
// together, are exactly WriteData's packet, with or without compression; each piece is about
// StreamChunk bytes copied (at most a run or a frame more; borrowed columns go out from their own
// memory), and the writer's buffers never grow past what a connection keeps (keepLimit), whatever the block's size (this block's frames compress well).
func TestWriteDataStreamPieces(t *testing.T) {
	for _, rows := range []int{1, 3000, 70000, 300_000} {
		for _, m := range []Method{MethodNone, MethodLZ4, MethodZSTD} {
			t.Run(fmt.Sprintf("%d/%v", rows, m), func(t *testing.T) {
				b := streamBlock(rows)
				ref, pw := NewPacketWriter(), NewPacketWriter()
				if m != MethodNone {
					for _, w := range []*PacketWriter{ref, pw} {
						comp, err := NewCompressor(m, 0)
						if err != nil {
							t.Fatal(err)
						}
						w.SetCompressor(comp)
					}
				}
				if err := ref.WriteData("t", b); err != nil {
					t.Fatal(err)
				}
				want := ref.Buffer().Buf
				var got bytes.Buffer
				pieces, biggest, most := 0, 0, 0
				spill := func() {
					pieces++
					biggest = max(biggest, pw.Len()) // copied bytes; borrowed ones go out from the columns
					most = max(most, cap(pw.buf.Buf))
					if err := pw.Flush(&got); err != nil {
						t.Fatal(err)
					}
				}
				if err := pw.WriteDataStream("t", b, spill); err != nil {
					t.Fatal(err)
				}
				spill()
				requireBytes(t, got.Bytes(), want)
				if len(want) > 4*StreamChunk && pieces < len(want)/(2*StreamChunk) {
					t.Fatalf("%d pieces for a packet of %d bytes", pieces, len(want))
				}
				limit := StreamChunk + writeRun + 300 // and the run's last value
				if m != MethodNone {
					limit = StreamChunk + FrameChunk + FrameChunk/8 // a frame compressed
				}
				if biggest > limit {
					t.Fatalf("a piece of %d bytes copied, want at most %d", biggest, limit)
				}
				if most > pw.keepLimit(0) || cap(pw.body.Buf) > pw.keepLimit(1) {
					t.Fatalf("buffers grew to %d and %d bytes, above the %d and %d a connection keeps", most, cap(pw.body.Buf), pw.keepLimit(0), pw.keepLimit(1))
				}
			})
		}
	}
}

// A ragged block fails before anything is spilled, and leaves nothing pending.
func TestWriteDataStreamErrorBeforeSpill(t *testing.T) {
	b := streamBlock(70000)
	b.Column(0).(*columns.UInt64).Append(1)
	pw := NewPacketWriter()
	pw.WritePing()
	spilled := false
	if err := pw.WriteDataStream("", b, func() { spilled = true }); err == nil {
		t.Fatal("no error for a ragged block")
	}
	if spilled || pw.Len() != 1 || len(pw.borrowed) != 0 {
		t.Fatalf("spilled %v, pending %d bytes, %d borrowed", spilled, pw.Len(), len(pw.borrowed))
	}
}
