package nativeproto

import (
	"log/slog"
	"time"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/internal/wire"
)

// MaxLogBlockRows caps the rows of a Log or ProfileEvents block, checked before any entry is
// made or any callback runs: a server sends a few hundred per packet, and a column such as
// Tuple() lets a block announce rows that cost no input.
const MaxLogBlockRows = 1 << 20

// logColumns and profileEventColumns are the columns of the two layouts: a block with rows
// must have at least one of its kind's.
var (
	logColumns = []string{"event_time", "event_time_microseconds", "host_name", "query_id", "thread_id",
		"thread_number", "priority", "source", "text"}
	profileEventColumns = []string{"host_name", "current_time", "thread_id", "type", "name", "value"}
)

// checkLogBlock refuses a block of kind what whose rows cannot be entries: more than
// MaxLogBlockRows, or rows without any column of the layout (known names).
func checkLogBlock(b *Block, what string, known []string) error {
	rows := b.Rows()
	if rows == 0 {
		return nil
	}
	if rows > MaxLogBlockRows {
		return &ProtocolError{Op: what + " block", Err: &wire.LimitError{What: what + " rows", Value: uint64(rows), Max: MaxLogBlockRows}}
	}
	if b.columnNamed(known...) == nil {
		return protoErr("%s block of %d rows has none of the layout's columns (%d columns)", what, rows, b.NumColumns())
	}
	return nil
}

// LogEntry is one server log line sent with a query's result (setting send_logs_level), one row
// of a Log packet's block. It has exactly the fields of the root package's Log, so that type can
// be an alias of this one.
type LogEntry struct {
	Time     time.Time
	Host     string
	QueryID  string
	ThreadID uint64
	Priority int8 // 1 fatal ... 6 information, 7 debug, 8 trace
	Source   string
	Text     string
}

// Level maps the priority to a slog level.
func (l LogEntry) Level() slog.Level {
	switch {
	case l.Priority <= 3: // fatal, critical, error
		return slog.LevelError
	case l.Priority <= 5: // warning, notice
		return slog.LevelWarn
	case l.Priority == 6:
		return slog.LevelInfo
	}
	return slog.LevelDebug
}

// DecodeLogs calls fn for each row of a Log block, in order. Columns are found by name, so the
// layouts of old servers (thread_number UInt32) and new ones (thread_id UInt64) both work; a
// column that is missing, or of a type other than expected, leaves its field at the zero value.
// event_time_microseconds, when present, adds its sub-second microseconds to event_time.
//
// A block with rows but none of the layout's columns, or more than MaxLogBlockRows rows, is a
// *ProtocolError, before fn is called; otherwise a layout the decoder does not know yields zero
// fields rather than an error. The entries own their memory; b may be reused as soon as
// DecodeLogs returns.
func DecodeLogs(b *Block, fn func(LogEntry)) error {
	if err := checkLogBlock(b, "log", logColumns); err != nil {
		return err
	}
	evTime, evMicros := b.columnNamed("event_time"), b.columnNamed("event_time_microseconds")
	host, qid := b.columnNamed("host_name"), b.columnNamed("query_id")
	thread, prio := b.columnNamed("thread_id", "thread_number"), b.columnNamed("priority")
	source, text := b.columnNamed("source"), b.columnNamed("text")
	for i := 0; i < b.Rows(); i++ {
		var l LogEntry
		if t, ok := valueAt(evTime, i).(time.Time); ok {
			l.Time = t
			if us, ok := toUint(valueAt(evMicros, i)); ok {
				l.Time = l.Time.Add(time.Duration(us%1_000_000) * time.Microsecond)
			}
		}
		l.Host, _ = valueAt(host, i).(string)
		l.QueryID, _ = valueAt(qid, i).(string)
		l.ThreadID, _ = toUint(valueAt(thread, i))
		if p, ok := toInt(valueAt(prio, i)); ok {
			l.Priority = int8(p)
		}
		l.Source, _ = valueAt(source, i).(string)
		l.Text, _ = valueAt(text, i).(string)
		fn(l)
	}
	return nil
}

// columnNamed returns the column of the first of names that b has, or nil.
func (b *Block) columnNamed(names ...string) columns.Column {
	for _, n := range names {
		if i := b.Index(n); i >= 0 {
			return b.Column(i)
		}
	}
	return nil
}

// valueAt returns row i of c, or nil when c is nil or shorter.
func valueAt(c columns.Column, i int) any {
	if c == nil || i >= c.Rows() {
		return nil
	}
	return c.Value(i)
}

// toUint reads the unsigned integers (and Int64) the log and profile-event layouts use.
func toUint(v any) (uint64, bool) {
	switch x := v.(type) {
	case uint8:
		return uint64(x), true
	case uint16:
		return uint64(x), true
	case uint32:
		return uint64(x), true
	case uint64:
		return x, true
	case int64:
		return uint64(x), true
	}
	return 0, false
}

// toInt reads any fixed-width integer up to 64 bits as an int64 (a UInt64 wraps).
func toInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int8:
		return int64(x), true
	case int16:
		return int64(x), true
	case int32:
		return int64(x), true
	case int64:
		return x, true
	case uint8:
		return int64(x), true
	case uint16:
		return int64(x), true
	case uint32:
		return int64(x), true
	case uint64:
		return int64(x), true
	}
	return 0, false
}
