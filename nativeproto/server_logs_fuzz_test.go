package nativeproto

import (
	"errors"
	"testing"

	"github.com/chnative/chnative/internal/wire"
)

// FuzzDecodeLogBlocks decodes arbitrary bytes as a block and, when that succeeds, as Log and
// ProfileEvents rows: neither decoder may panic, and each either refuses the block (a
// ProtocolError: too many rows, or none of its layout's columns) or yields exactly one entry
// per row.
func FuzzDecodeLogBlocks(f *testing.F) {
	for _, old := range []bool{false, true} {
		var w wire.Writer
		if err := WriteBlock(&w, LatestRevision, true, logBlock(f, old)); err != nil {
			f.Fatal(err)
		}
		f.Add(w.Buf)
	}
	b := profileEventsBlock(f)
	var w wire.Writer
	if err := WriteBlock(&w, LatestRevision, true, b); err != nil {
		f.Fatal(err)
	}
	f.Add(w.Buf)
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := ReadBlock(wire.NewBytesReader(data), LatestRevision, true, nil)
		if err != nil {
			return
		}
		n := 0
		if err := DecodeLogs(b, func(LogEntry) { n++ }); err != nil {
			requireLogRefusal(t, b, err, n)
		} else if n != b.Rows() {
			t.Fatalf("%d log entries from %d rows", n, b.Rows())
		}
		if evs, err := DecodeProfileEvents(b); err != nil {
			requireLogRefusal(t, b, err, len(evs))
		} else if len(evs) != b.Rows() {
			t.Fatalf("%d profile events from %d rows", len(evs), b.Rows())
		}
	})
}

// requireLogRefusal checks a refused Log or ProfileEvents block: a *ProtocolError, a block with
// rows, and nothing decoded.
func requireLogRefusal(t *testing.T, b *Block, err error, n int) {
	t.Helper()
	var pe *ProtocolError
	if !errors.As(err, &pe) || b.Rows() == 0 || n != 0 {
		t.Fatalf("refused a block of %d rows after %d entries: %v", b.Rows(), n, err)
	}
}
