package nativeproto

import (
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/chnative/chnative/internal/wire"
)

// logBlock is a Log block in the layout of current servers (thread_id UInt64, with
// event_time_microseconds) or, when old, of servers before 20.x (thread_number UInt32).
func logBlock(t testing.TB, old bool) *Block {
	t.Helper()
	at := time.Date(2026, 12, 2, 3, 4, 5, 0, time.UTC)
	b := NewBlock()
	b.Add("event_time", mustCol(t, "DateTime", at, at.Add(time.Second)))
	if !old {
		b.Add("event_time_microseconds", mustCol(t, "UInt32", uint32(1_250_000), uint32(7)))
	}
	b.Add("host_name", mustCol(t, "String", "h1", "h2"))
	b.Add("query_id", mustCol(t, "String", "q", "q"))
	if old {
		b.Add("thread_number", mustCol(t, "UInt32", uint32(11), uint32(12)))
	} else {
		b.Add("thread_id", mustCol(t, "UInt64", uint64(1)<<40, uint64(12)))
	}
	b.Add("priority", mustCol(t, "Int8", int8(6), int8(8)))
	b.Add("source", mustCol(t, "String", "executeQuery", "MemoryTracker"))
	b.Add("text", mustCol(t, "String", "Read 1000 rows", "Peak memory"))
	return b
}

func TestDecodeLogs(t *testing.T) {
	at := time.Date(2026, 12, 2, 3, 4, 5, 0, time.UTC)
	for _, old := range []bool{false, true} {
		var got []LogEntry
		if err := DecodeLogs(logBlock(t, old), func(l LogEntry) { got = append(got, l) }); err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 {
			t.Fatalf("old=%v: %d entries", old, len(got))
		}
		want0 := LogEntry{Time: at.Add(250 * time.Millisecond), Host: "h1", QueryID: "q", ThreadID: 1 << 40,
			Priority: 6, Source: "executeQuery", Text: "Read 1000 rows"}
		if old {
			want0.Time, want0.ThreadID = at, 11
		}
		l := got[0]
		if !l.Time.Equal(want0.Time) || l.Host != want0.Host || l.QueryID != want0.QueryID || l.ThreadID != want0.ThreadID ||
			l.Priority != want0.Priority || l.Source != want0.Source || l.Text != want0.Text {
			t.Errorf("old=%v: %+v, want %+v", old, l, want0)
		}
		if got[1].Priority != 8 || got[1].Level() != slog.LevelDebug || got[1].Text != "Peak memory" {
			t.Errorf("old=%v: second entry %+v", old, got[1])
		}
		if !old && !got[1].Time.Equal(at.Add(time.Second+7*time.Microsecond)) {
			t.Errorf("microseconds: %v", got[1].Time)
		}
	}
}

// Missing columns and columns of unexpected types leave zero fields; the block's rows still come.
func TestDecodeLogsTolerant(t *testing.T) {
	b := NewBlock()
	b.Add("text", mustCol(t, "String", "only text"))
	b.Add("priority", mustCol(t, "String", "not a number"))
	b.Add("thread_id", mustCol(t, "Float64", 1.5))
	var got []LogEntry
	if err := DecodeLogs(b, func(l LogEntry) { got = append(got, l) }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != (LogEntry{Text: "only text"}) {
		t.Fatalf("%+v", got)
	}
	if err := DecodeLogs(NewBlock(), func(LogEntry) { t.Fatal("a row of an empty block") }); err != nil {
		t.Fatal(err)
	}
}

func TestLogEntryLevel(t *testing.T) {
	want := map[int8]slog.Level{0: slog.LevelError, 1: slog.LevelError, 3: slog.LevelError, 4: slog.LevelWarn,
		5: slog.LevelWarn, 6: slog.LevelInfo, 7: slog.LevelDebug, 8: slog.LevelDebug}
	for p, lv := range want {
		if got := (LogEntry{Priority: p}).Level(); got != lv {
			t.Errorf("priority %d: %v, want %v", p, got, lv)
		}
	}
}

func TestDecodeProfileEvents(t *testing.T) {
	at := time.Date(2026, 12, 2, 3, 4, 5, 0, time.UTC)
	b := NewBlock()
	b.Add("host_name", mustCol(t, "String", "h", "h", "h"))
	b.Add("current_time", mustCol(t, "DateTime", at, at, at))
	b.Add("thread_id", mustCol(t, "UInt64", uint64(5), uint64(0), uint64(5)))
	b.Add("type", mustCol(t, "Enum8('increment' = 1, 'gauge' = 2)", "increment", "gauge", "increment"))
	b.Add("name", mustCol(t, "String", "SelectedRows", "MemoryTrackerUsage", "x"))
	b.Add("value", mustCol(t, "Int64", int64(1000), int64(-4), int64(0)))
	got, err := DecodeProfileEvents(b)
	if err != nil {
		t.Fatal(err)
	}
	want := []ProfileEvent{{"h", at, 5, "increment", "SelectedRows", 1000}, {"h", at, 0, "gauge", "MemoryTrackerUsage", -4},
		{"h", at, 5, "increment", "x", 0}}
	if len(got) != len(want) {
		t.Fatalf("%d events", len(got))
	}
	for i := range want {
		g, w := got[i], want[i]
		if !g.Time.Equal(w.Time) || g.Host != w.Host || g.ThreadID != w.ThreadID || g.Type != w.Type || g.Name != w.Name || g.Value != w.Value {
			t.Errorf("event %d: %+v, want %+v", i, g, w)
		}
	}
	// A numeric type column: 1 and 2 are named, other numbers give "".
	b = NewBlock()
	b.Add("type", mustCol(t, "Int8", int8(1), int8(2), int8(3)))
	b.Add("value", mustCol(t, "UInt64", uint64(7), uint64(8), uint64(9)))
	if got, err = DecodeProfileEvents(b); err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].Type != "increment" || got[1].Type != "gauge" || got[2].Type != "" || got[2].Value != 9 || got[0].Name != "" {
		t.Fatalf("%+v", got)
	}
}

// profileEventsBlock is the block of the ProfileEvents packet a 26.7 server sent (captured).
func profileEventsBlock(t testing.TB) *Block {
	t.Helper()
	p := NewPacketReader(strings.NewReader(string(capture(t, "profile_events_lz4_26_7.raw"))))
	p.SetRevision(LatestRevision)
	p.SetCompression(true)
	if _, err := p.ReadCode(); err != nil {
		t.Fatal(err)
	}
	_, b, err := p.ReadLogBlock(nil)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The ProfileEvents block of a 26.7 server decodes to named counters of both kinds.
func TestDecodeProfileEvents267Capture(t *testing.T) {
	b := profileEventsBlock(t)
	evs, err := DecodeProfileEvents(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != b.Rows() || len(evs) == 0 {
		t.Fatalf("%d events from %d rows", len(evs), b.Rows())
	}
	for _, e := range evs {
		if e.Name == "" || (e.Type != "increment" && e.Type != "gauge") || e.Host == "" || e.Time.IsZero() {
			t.Fatalf("event %+v", e)
		}
	}
}

// TestLogBlocksRefused: a Log or ProfileEvents block of 2^31-1 rows with no columns (found by
// FuzzDecodeLogBlocks: make([]ProfileEvent, 2^31), or 2^31 callbacks), one whose columns are
// none of the layout's, and one past MaxLogBlockRows are ProtocolErrors before any entry.
func TestLogBlocksRefused(t *testing.T) {
	var w wire.Writer
	info := BlockInfo{BucketNum: -1}
	info.Encode(&w, LatestRevision)
	w.UVarInt(0)
	w.UVarInt(1<<31 - 1)
	_, err := ReadBlock(wire.NewBytesReader(w.Buf), LatestRevision, true, nil)
	var pe *ProtocolError
	if !errors.As(err, &pe) {
		t.Fatalf("a block of no columns and 2^31-1 rows decoded: %v", err)
	}
	noCols := NewBlock() // what a decoder that believed the count would hand over
	noCols.rows = 1<<31 - 1
	other := NewBlock()
	other.Add("x", mustCol(t, "String", "a", "b"))
	many := NewBlock()
	many.Add("value", mustCol(t, "UInt8"))
	for range MaxLogBlockRows + 1 {
		many.Column(0).AppendDefault()
	}
	for _, b := range []*Block{noCols, other, many} {
		n := 0
		errL := DecodeLogs(b, func(LogEntry) { n++ })
		evs, errP := DecodeProfileEvents(b)
		if !errors.As(errL, &pe) || !errors.As(errP, &pe) || n != 0 || evs != nil {
			t.Fatalf("%d rows, %d columns: logs %v (%d entries), profile events %v (%d)", b.Rows(), b.NumColumns(), errL, n, errP, len(evs))
		}
		t.Log(errL)
	}
}
