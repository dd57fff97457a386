package nativeproto

import (
	"testing"

	"github.com/chnative/chnative/internal/wire"
)

// FuzzDecodeLogBlocks decodes arbitrary bytes as a block and, when that succeeds, as Log and
// ProfileEvents rows: neither decoder may panic, and each yields exactly one entry per row.
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
		DecodeLogs(b, func(LogEntry) { n++ })
		if n != b.Rows() {
			t.Fatalf("%d log entries from %d rows", n, b.Rows())
		}
		if evs := DecodeProfileEvents(b); len(evs) != b.Rows() {
			t.Fatalf("%d profile events from %d rows", len(evs), b.Rows())
		}
	})
}
