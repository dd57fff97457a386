package nativeproto

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"testing"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/internal/wire"
)

// borrowBlock has large and small fixed-width columns around a String column, so that borrowed
// and copied data alternate.
func borrowBlock(rows int) *Block {
	b := NewBlock()
	ids := columns.NewFixed[uint64]("")
	names := columns.NewString()
	vals := columns.NewFixed[float64]("")
	small := columns.NewFixed[uint8]("")
	i32 := columns.NewFixed[int32]("")
	for i := range rows {
		ids.Append(uint64(i) * 7)
		names.Append(fmt.Sprintf("name-%d", i))
		vals.Append(float64(i) / 3)
		small.Append(uint8(i))
		i32.Append(int32(-i))
	}
	b.Add("id", ids)
	b.Add("name", names)
	b.Add("val", vals)
	b.Add("small", small)
	b.Add("i32", i32)
	return b
}

func TestWriteDataStreamSameBytes(t *testing.T) {
	for _, rows := range []int{0, 1, 100, 3000, 70000} {
		for _, m := range []Method{MethodNone, MethodLZ4, MethodZSTD} {
			for _, rev := range []Revision{ClientRevision, RevCustomSerialization - 1} {
				t.Run(fmt.Sprintf("%d/%v/%d", rows, m, rev), func(t *testing.T) {
					b := borrowBlock(rows)
					var want bytes.Buffer
					pw := NewPacketWriter()
					pw.SetRevision(rev)
					var comp *Compressor
					if m != MethodNone {
						var err error
						if comp, err = NewCompressor(m, 0); err != nil {
							t.Fatal(err)
						}
						pw.SetCompressor(comp)
					}
					pw.WritePing()
					if err := pw.WriteData("", b); err != nil {
						t.Fatal(err)
					}
					pw.WritePing()
					if err := pw.Flush(&want); err != nil {
						t.Fatal(err)
					}
					var got bytes.Buffer
					pw.WritePing()
					if err := pw.WriteDataStream("", b, nil); err != nil {
						t.Fatal(err)
					}
					pw.WritePing()
					if m == MethodNone && rows >= 3000 && len(pw.borrowed) == 0 {
						t.Fatal("no column was borrowed")
					}
					if err := pw.Flush(&got); err != nil {
						t.Fatal(err)
					}
					requireBytes(t, got.Bytes(), want.Bytes())
					if len(pw.borrowed) != 0 || pw.Len() != 0 {
						t.Fatal("Flush left data pending")
					}
					// And the block decodes back.
					if m == MethodNone {
						pr := NewPacketReader(bytes.NewReader(got.Bytes()))
						pr.SetRevision(rev)
						for range 2 {
							code, err := pr.ReadCode()
							if err != nil {
								t.Fatal(err)
							}
							if byte(code) == byte(ClientCodeData) {
								_, out, err := pr.ReadBlock(nil)
								if err != nil {
									t.Fatal(err)
								}
								if out.Rows() != rows || out.NumColumns() != 5 {
									t.Fatalf("decoded %d rows %d columns", out.Rows(), out.NumColumns())
								}
							}
						}
					}
				})
			}
		}
	}
}

// TestWriteDataStreamTCP sends through a TCP socket (writev) and a plain writer.
func TestWriteDataStreamTCP(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan []byte, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			got <- nil
			return
		}
		data, _ := io.ReadAll(c)
		c.Close()
		got <- data
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	b := borrowBlock(200000)
	pw := NewPacketWriter()
	var want bytes.Buffer
	for range 2 {
		if err := pw.WriteData("", b); err != nil {
			t.Fatal(err)
		}
		if err := pw.Flush(&want); err != nil {
			t.Fatal(err)
		}
		if err := pw.WriteDataStream("", b, nil); err != nil {
			t.Fatal(err)
		}
		if err := pw.Flush(c); err != nil {
			t.Fatal(err)
		}
	}
	c.Close()
	requireBytes(t, <-got, want.Bytes())
}

// A block whose columns disagree on rows fails and leaves nothing pending.
func TestWriteDataStreamError(t *testing.T) {
	b := borrowBlock(5000)
	b.Column(0).(*columns.UInt64).Append(1)
	pw := NewPacketWriter()
	pw.WritePing()
	if err := pw.WriteDataStream("", b, nil); err == nil {
		t.Fatal("no error for a ragged block")
	}
	if pw.Len() != 1 || len(pw.borrowed) != 0 {
		t.Fatalf("pending %d bytes, %d borrowed", pw.Len(), len(pw.borrowed))
	}
}

// TestWriteDataCompressedFrames: a compressed Data packet is the block's Native form cut into
// frames of WriteFrame bytes wherever the bytes fall, the same as compressing the whole body at
// once, for blocks whose columns (fixed-width ones compressed from their own memory, String ones
// through the body) end before, at and across frame boundaries; and the body buffer holds no more
// than a frame beyond the largest String column.
func TestWriteDataCompressedFrames(t *testing.T) {
	for _, rows := range []int{0, 1, 3000, 70000, WriteFrame / 8, 300_000} {
		for _, m := range []Method{MethodLZ4, MethodZSTD} {
			t.Run(fmt.Sprintf("%d/%v", rows, m), func(t *testing.T) {
				b := borrowBlock(rows)
				comp, err := NewCompressor(m, 0)
				if err != nil {
					t.Fatal(err)
				}
				var body wire.Writer
				if err := WriteBlock(&body, ClientRevision, true, b); err != nil {
					t.Fatal(err)
				}
				var want wire.Writer
				want.UVarInt(uint64(ClientCodeData))
				want.String("t")
				if want.Buf, err = comp.appendFrames(want.Buf, body.Buf, comp.writeFrame()); err != nil {
					t.Fatal(err)
				}
				pw := NewPacketWriter()
				pw.SetCompressor(comp)
				if err := pw.WriteData("t", b); err != nil {
					t.Fatal(err)
				}
				requireBytes(t, pw.Buffer().Buf, want.Buf)
				strs, _ := b.Column(1).(*columns.String).Data()
				// String bytes, their lengths, growth; at least what a block of a frame is given.
				limit := max((comp.writeFrame()+len(strs)+rows)*3/2, pw.keepLimit(1))
				if rows == 300_000 && limit >= len(body.Buf) {
					t.Fatalf("limit %d does not test anything for a block of %d", limit, len(body.Buf))
				}
				if cap(pw.body.Buf) > limit {
					t.Fatalf("body buffer of %d bytes for a block of %d, want at most %d", cap(pw.body.Buf), len(body.Buf), limit)
				}
			})
		}
	}
}
