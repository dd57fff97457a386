package chconn

import (
	"log/slog"
	"math"
	"strconv"
	"time"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/internal/sqltext"
	"github.com/chnative/chnative/nativeproto"
)

// ProfileEvent is one counter of a ProfileEvents packet (servers from protocol revision 54451,
// ClickHouse 21.12 on; older servers send none).
type ProfileEvent struct {
	Host     string
	Time     time.Time
	ThreadID uint64
	Type     string // "increment" or "gauge"
	Name     string
	Value    int64
}

// Log is one server log line sent with a query's result (setting send_logs_level).
type Log struct {
	Time     time.Time
	Host     string
	QueryID  string
	ThreadID uint64
	Priority int8 // 1 fatal ... 6 information, 7 debug, 8 trace
	Source   string
	Text     string
}

// Level maps the priority to a slog level.
func (l Log) Level() slog.Level {
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

// DefaultLogsLevel is the send_logs_level set by WithLogs and WithServerLogger when the query's
// settings do not name one.
const DefaultLogsLevel = "information"

// ExternalTable is a table sent with a query (WithExternalTable): the query reads it by name.
type ExternalTable struct {
	Name  string
	Block *nativeproto.Block
}

// Options are a query's settings, parameters and callbacks, on top of the configuration's. The
// database/sql adapter builds them from the query's context (chnative.WithSettings and its
// siblings); nil means none.
type Options struct {
	ID         string            // the query id; "" for a random UUID
	Settings   map[string]string // settings on top of the configuration's
	Parameters map[string]string // server-side {name:Type} parameters, rendered as text

	QuotaKey    string
	HasQuotaKey bool // QuotaKey replaces the configuration's quota key, even when ""

	// Callbacks for the packets a query brings besides its result, called on the caller's
	// goroutine while it reads the result (a query with one never reads ahead).
	OnProgress      func(nativeproto.Progress)    // each Progress packet
	OnProfileInfo   func(nativeproto.ProfileInfo) // the ProfileInfo packet
	OnProfileEvents func([]ProfileEvent)          // each ProfileEvents block (the slice is the callee's)
	OnLogs          func(Log)                     // each row of each Log block; sets send_logs_level

	External     []ExternalTable    // external tables sent with the query
	BlockSize    int                // max_block_size for a query, rows per block for an insert
	Deadline     time.Time          // the context's: sets max_execution_time
	Trace        *nativeproto.Trace // the caller's span, sent in the client info; nil for none
	UserLocation *time.Location     // the zone of zone-less DateTime values; nil: the session's
}

// applyOptions adds to the settings of a query what its options imply: max_block_size,
// send_logs_level and max_execution_time from the context deadline (unless set by the caller or
// the DSN). Native-data inserts ("... VALUES" with the data sent as blocks) get no
// max_execution_time: the deadline of PrepareBatch's context does not bound the appends after it.
func (o *Options) applyOptions(settings map[string]string, body string) {
	if o == nil {
		return
	}
	if o.BlockSize > 0 {
		if _, ok := settings["max_block_size"]; !ok {
			settings["max_block_size"] = strconv.Itoa(o.BlockSize)
		}
	}
	if o.OnLogs != nil {
		if _, ok := settings["send_logs_level"]; !ok {
			settings["send_logs_level"] = DefaultLogsLevel
		}
	}
	if !o.Deadline.IsZero() {
		if _, ok := settings["max_execution_time"]; !ok && !sqltext.NativeInsertBody(body) {
			secs := math.Ceil(time.Until(o.Deadline).Seconds())
			settings["max_execution_time"] = strconv.FormatInt(max(int64(secs), 1), 10)
		}
	}
}

// decodeLogs calls fn for each row of a Log block. Columns are found by name, so the layouts of
// old servers (thread_number UInt32) and new ones (thread_id UInt64) both work.
func decodeLogs(b *nativeproto.Block, fn func(Log)) {
	col := func(names ...string) columns.Column {
		for _, n := range names {
			if i := b.Index(n); i >= 0 {
				return b.Column(i)
			}
		}
		return nil
	}
	evTime, evMicros := col("event_time"), col("event_time_microseconds")
	host, qid := col("host_name"), col("query_id")
	thread, prio := col("thread_id", "thread_number"), col("priority")
	source, text := col("source"), col("text")
	for i := 0; i < b.Rows(); i++ {
		var l Log
		if t, ok := value(evTime, i).(time.Time); ok {
			l.Time = t
			if us, ok := toUint(value(evMicros, i)); ok {
				l.Time = l.Time.Add(time.Duration(us%1_000_000) * time.Microsecond)
			}
		}
		l.Host, _ = value(host, i).(string)
		l.QueryID, _ = value(qid, i).(string)
		l.ThreadID, _ = toUint(value(thread, i))
		if p, ok := toInt(value(prio, i)); ok {
			l.Priority = int8(p)
		}
		l.Source, _ = value(source, i).(string)
		l.Text, _ = value(text, i).(string)
		fn(l)
	}
}

// decodeProfileEvents turns a ProfileEvents block into events.
func decodeProfileEvents(b *nativeproto.Block) []ProfileEvent {
	col := func(name string) columns.Column {
		if i := b.Index(name); i >= 0 {
			return b.Column(i)
		}
		return nil
	}
	host, tm, thread := col("host_name"), col("current_time"), col("thread_id")
	typ, name, val := col("type"), col("name"), col("value")
	out := make([]ProfileEvent, b.Rows())
	for i := range out {
		e := &out[i]
		e.Host, _ = value(host, i).(string)
		e.Time, _ = value(tm, i).(time.Time)
		e.ThreadID, _ = toUint(value(thread, i))
		switch t := value(typ, i).(type) {
		case string:
			e.Type = t
		default:
			if n, ok := toInt(t); ok {
				e.Type = map[int64]string{1: "increment", 2: "gauge"}[n]
			}
		}
		e.Name, _ = value(name, i).(string)
		e.Value, _ = toInt(value(val, i))
	}
	return out
}

func value(c columns.Column, i int) any {
	if c == nil || i >= c.Rows() {
		return nil
	}
	return c.Value(i)
}

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
