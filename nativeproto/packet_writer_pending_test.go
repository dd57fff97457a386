package nativeproto

import (
	"bytes"
	"fmt"
	"testing"
)

// TestAppendPending checks that AppendPending copies exactly what Flush then writes, borrowed
// column data included, and leaves it pending.
func TestAppendPending(t *testing.T) {
	for _, rows := range []int{0, 100, 3000, 70000} {
		for _, m := range []Method{MethodNone, MethodLZ4} {
			t.Run(fmt.Sprintf("%d/%v", rows, m), func(t *testing.T) {
				pw := NewPacketWriter()
				if m != MethodNone {
					comp, err := NewCompressor(m, 0)
					if err != nil {
						t.Fatal(err)
					}
					pw.SetCompressor(comp)
				}
				if err := pw.WriteDataStream("", borrowBlock(rows), nil); err != nil {
					t.Fatal(err)
				}
				pw.WritePing()
				if m == MethodNone && rows >= 3000 && len(pw.borrowed) == 0 {
					t.Fatal("no column was borrowed")
				}
				prefix := []byte("kept:")
				cp := pw.AppendPending(prefix)
				if len(cp)-len(prefix) != pw.PendingLen() {
					t.Fatalf("AppendPending copied %d bytes, PendingLen says %d", len(cp)-len(prefix), pw.PendingLen())
				}
				var sent bytes.Buffer
				if err := pw.Flush(&sent); err != nil {
					t.Fatal(err)
				}
				if !bytes.HasPrefix(cp, prefix) {
					t.Fatal("AppendPending overwrote dst")
				}
				requireBytes(t, cp[len(prefix):], sent.Bytes())
				if pw.PendingLen() != 0 || len(pw.AppendPending(nil)) != 0 {
					t.Fatal("pending bytes after Flush")
				}
			})
		}
	}
}

// TestWriteRawBorrowed checks that raw bytes queued after pending packets go out after them, from
// the caller's memory, and once.
func TestWriteRawBorrowed(t *testing.T) {
	pw := NewPacketWriter()
	if err := pw.WriteDataStream("", borrowBlock(3000), nil); err != nil {
		t.Fatal(err)
	}
	first := pw.AppendPending(nil)
	raw := []byte("kept packets")
	pw.WriteRawBorrowed(raw)
	pw.WriteRawBorrowed(nil)
	pw.WritePing()
	if pw.PendingLen() != len(first)+len(raw)+1 {
		t.Fatalf("PendingLen %d, want %d", pw.PendingLen(), len(first)+len(raw)+1)
	}
	var sent bytes.Buffer
	if err := pw.Flush(&sent); err != nil {
		t.Fatal(err)
	}
	want := append(append(append([]byte(nil), first...), raw...), byte(ClientCodePing))
	requireBytes(t, sent.Bytes(), want)
	sent.Reset()
	if err := pw.Flush(&sent); err != nil || sent.Len() != 0 {
		t.Fatalf("a second Flush wrote %d bytes, %v", sent.Len(), err)
	}
}
