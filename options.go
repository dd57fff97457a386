package chnative

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/nativeproto"
)

// Per-query options travel in the context given to QueryContext, ExecContext, PrepareBatch,
// QueryBlocks and the helpers; they apply to every query run with that context. Options nest:
// WithSettings merges over the settings of outer contexts, the others replace.

type ctxKey int

const (
	ctxSettings ctxKey = iota
	ctxQueryID
	ctxQuotaKey
	ctxParameters
	ctxProgress
	ctxProfileInfo
	ctxProfileEvents
	ctxLogs
	ctxExternal
	ctxBlockSize
)

// Settings are ClickHouse settings sent with a query, such as {"max_threads": "4"}.
type Settings map[string]string

// WithSettings returns a context whose queries carry settings (merged over those of the DSN and
// of outer contexts).
func WithSettings(ctx context.Context, s Settings) context.Context {
	merged := Settings{}
	if prev, ok := ctx.Value(ctxSettings).(Settings); ok {
		maps.Copy(merged, prev)
	}
	maps.Copy(merged, s)
	return context.WithValue(ctx, ctxSettings, merged)
}

// WithQueryID returns a context whose next query uses id as its query id.
func WithQueryID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, ctxQueryID, id)
}

// WithQuotaKey returns a context whose queries are accounted to the quota key (instead of the
// DSN's quota_key).
func WithQuotaKey(ctx context.Context, key string) context.Context {
	return context.WithValue(ctx, ctxQuotaKey, key)
}

// WithParameters returns a context whose queries send params as server-side query parameters:
// each value fills the {name:Type} placeholders of that name, rendered for the Type written
// there. Servers below protocol revision 54459 (ClickHouse 22.x and older) have no query
// parameters: a query with them fails there with an *UnsupportedError before anything is sent.
// (sql.Named arguments with {name:Type} placeholders fall back to CAST literals on such servers.)
func WithParameters(ctx context.Context, params map[string]any) context.Context {
	return context.WithValue(ctx, ctxParameters, maps.Clone(params))
}

// Progress is the progress of a query so far: the sums of the server's Progress packets.
type Progress struct {
	ReadRows     uint64        // rows read
	ReadBytes    uint64        // uncompressed bytes read
	TotalRows    uint64        // estimate of the rows to read (total_rows_to_read)
	TotalBytes   uint64        // estimate of the bytes to read (total_bytes_to_read, revision 54463 and newer)
	WrittenRows  uint64        // rows written (INSERT ... SELECT; newer servers)
	WrittenBytes uint64        // bytes written (newer servers)
	Elapsed      time.Duration // server time (newer servers)
}

// WithProgress returns a context whose queries call fn after each Progress packet, with the
// totals so far. fn runs on the goroutine reading the result and must not use the connection.
func WithProgress(ctx context.Context, fn func(Progress)) context.Context {
	return context.WithValue(ctx, ctxProgress, fn)
}

// ProfileInfo is the server's summary of a result, sent once before its end.
type ProfileInfo struct {
	Rows                      uint64
	Blocks                    uint64
	Bytes                     uint64
	AppliedLimit              bool
	RowsBeforeLimit           uint64 // rows before LIMIT, valid when CalculatedRowsBeforeLimit
	CalculatedRowsBeforeLimit bool   // newer servers always send true
	// AppliedAggregation and RowsBeforeAggregation (revision 54469 and newer): whether the query
	// aggregated, and how many rows went into the aggregation.
	AppliedAggregation    bool
	RowsBeforeAggregation uint64
}

// WithProfileInfo returns a context whose queries call fn with the server's ProfileInfo packet.
func WithProfileInfo(ctx context.Context, fn func(ProfileInfo)) context.Context {
	return context.WithValue(ctx, ctxProfileInfo, fn)
}

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

// WithProfileEvents returns a context whose queries call fn with each ProfileEvents packet.
func WithProfileEvents(ctx context.Context, fn func([]ProfileEvent)) context.Context {
	return context.WithValue(ctx, ctxProfileEvents, fn)
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

// WithLogs returns a context whose queries ask the server for its logs (send_logs_level, by
// default DefaultLogsLevel; set it with WithSettings for more) and call fn for each line.
func WithLogs(ctx context.Context, fn func(Log)) context.Context {
	return context.WithValue(ctx, ctxLogs, fn)
}

// WithServerLogger is WithLogs writing each line to logger, at the level of its priority, with
// the attributes host, query_id, thread_id and source.
func WithServerLogger(ctx context.Context, logger *slog.Logger) context.Context {
	return WithLogs(ctx, func(l Log) {
		logger.LogAttrs(context.Background(), l.Level(), l.Text,
			slog.String("host", l.Host), slog.String("query_id", l.QueryID),
			slog.Uint64("thread_id", l.ThreadID), slog.String("source", l.Source),
			slog.Time("server_time", l.Time))
	})
}

type externalTable struct {
	name  string
	block *nativeproto.Block
}

// WithExternalTable returns a context whose queries send block as the temporary table name
// (ClickHouse "external data"), readable by the query as FROM name or IN name. Each call adds a
// table. The block must not change until the query has been sent.
func WithExternalTable(ctx context.Context, name string, block *nativeproto.Block) context.Context {
	prev, _ := ctx.Value(ctxExternal).([]externalTable)
	tables := append(prev[:len(prev):len(prev)], externalTable{name: name, block: block})
	return context.WithValue(ctx, ctxExternal, tables)
}

// WithBlockSize returns a context whose queries read blocks of at most n rows (the
// max_block_size setting) and whose inserts (PrepareBatch, prepared and multi-row inserts) send a
// block every n rows.
func WithBlockSize(ctx context.Context, n int) context.Context {
	return context.WithValue(ctx, ctxBlockSize, n)
}

// queryOptions are the per-query settings and parameters.
type queryOptions struct {
	id         string
	settings   map[string]string
	parameters map[string]string // rendered server-side parameters (from sql.Named arguments)

	quotaKey      string
	hasQuotaKey   bool
	rawParams     map[string]any // WithParameters
	progress      func(Progress)
	profileInfo   func(ProfileInfo)
	profileEvents func([]ProfileEvent)
	logs          func(Log)
	external      []externalTable
	blockSize     int
	deadline      time.Time
	trace         *nativeproto.Trace // the caller's span (trace.go), nil for none

	sum Progress // progress so far
}

// optionsFrom merges the options of ctx into opts (which may be nil).
func optionsFrom(ctx context.Context, opts *queryOptions) *queryOptions {
	if ctx == nil {
		return opts
	}
	get := func() *queryOptions {
		if opts == nil {
			opts = &queryOptions{}
		}
		return opts
	}
	if id, _ := ctx.Value(ctxQueryID).(string); id != "" {
		get().id = id
	}
	if s, _ := ctx.Value(ctxSettings).(Settings); len(s) > 0 {
		o := get()
		if o.settings == nil {
			o.settings = map[string]string{}
		}
		maps.Copy(o.settings, s)
	}
	if k, ok := ctx.Value(ctxQuotaKey).(string); ok {
		get().quotaKey, opts.hasQuotaKey = k, true
	}
	if p, _ := ctx.Value(ctxParameters).(map[string]any); len(p) > 0 {
		get().rawParams = p
	}
	if fn, _ := ctx.Value(ctxProgress).(func(Progress)); fn != nil {
		get().progress = fn
	}
	if fn, _ := ctx.Value(ctxProfileInfo).(func(ProfileInfo)); fn != nil {
		get().profileInfo = fn
	}
	if fn, _ := ctx.Value(ctxProfileEvents).(func([]ProfileEvent)); fn != nil {
		get().profileEvents = fn
	}
	if fn, _ := ctx.Value(ctxLogs).(func(Log)); fn != nil {
		get().logs = fn
	}
	if t, _ := ctx.Value(ctxExternal).([]externalTable); len(t) > 0 {
		get().external = t
	}
	if n, _ := ctx.Value(ctxBlockSize).(int); n > 0 {
		get().blockSize = n
	}
	if dl, ok := ctx.Deadline(); ok {
		get().deadline = dl
	}
	if tr := traceFrom(ctx); tr != nil {
		get().trace = tr
	}
	return opts
}

// WithUserLocation returns a context whose queries return the values of DateTime and DateTime64
// columns that have no time zone of their own in loc instead of the server's (or the session's)
// time zone (the same instants, in loc), and Date and Date32 values as midnight in loc instead of
// midnight UTC, as clickhouse-go's WithUserLocation does. A nil loc changes nothing.
func WithUserLocation(ctx context.Context, loc *time.Location) context.Context {
	return context.WithValue(ctx, userLocationKey{}, loc)
}

type userLocationKey struct{}

// userLocation returns the WithUserLocation of ctx, or nil.
func userLocation(ctx context.Context) *time.Location {
	if ctx == nil {
		return nil
	}
	loc, _ := ctx.Value(userLocationKey{}).(*time.Location)
	return loc
}

// blockSizeFrom returns the WithBlockSize of ctx, or 0.
func blockSizeFrom(ctx context.Context) int {
	if ctx == nil {
		return 0
	}
	n, _ := ctx.Value(ctxBlockSize).(int)
	return max(n, 0)
}

// applyOptions adds to the settings of a query what its options imply: max_block_size,
// send_logs_level and max_execution_time from the context deadline (unless set by the caller or
// the DSN). Native-data inserts ("... VALUES" with the data sent as blocks) get no
// max_execution_time: the deadline of PrepareBatch's context does not bound the appends after it.
func (o *queryOptions) applyOptions(settings map[string]string, body string) {
	if o == nil {
		return
	}
	if o.blockSize > 0 {
		if _, ok := settings["max_block_size"]; !ok {
			settings["max_block_size"] = strconv.Itoa(o.blockSize)
		}
	}
	if o.logs != nil {
		if _, ok := settings["send_logs_level"]; !ok {
			settings["send_logs_level"] = DefaultLogsLevel
		}
	}
	if !o.deadline.IsZero() {
		if _, ok := settings["max_execution_time"]; !ok && !nativeInsertBody(body) {
			secs := math.Ceil(time.Until(o.deadline).Seconds())
			settings["max_execution_time"] = strconv.FormatInt(max(int64(secs), 1), 10)
		}
	}
}

// nativeInsertBody reports whether body is an INSERT whose data follows as Data blocks.
func nativeInsertBody(body string) bool {
	if !isInsert(body) {
		return false
	}
	b := strings.ToUpper(strings.TrimRight(body, "; \t\r\n"))
	return strings.HasSuffix(b, "VALUES") || formatClause.MatchString(body)
}

// renderParameters renders the WithParameters values for the {name:Type} placeholders of body.
func (o *queryOptions) renderParameters(body string, rev nativeproto.Revision) error {
	if o == nil || len(o.rawParams) == 0 {
		return nil
	}
	if !rev.Has(nativeproto.RevParameters) {
		return &UnsupportedError{Msg: fmt.Sprintf("WithParameters: server-side query parameters need protocol revision %d (ClickHouse 22.x or newer); this connection uses %d: pass the values as sql.Named arguments instead, which older servers get as CAST literals",
			nativeproto.RevParameters, rev)}
	}
	types := map[string]string{}
	for _, p := range scanPlaceholders(body) {
		if p.kind == '{' {
			types[p.name] = p.typ
		}
	}
	names := make([]string, 0, len(o.rawParams))
	for n := range o.rawParams {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		typ, ok := types[n]
		if !ok {
			// Not in the query text (or the type is unknown): send the plain text form.
			typ = "String"
		}
		s, err := parameterValue(o.rawParams[n], typ)
		if err != nil {
			return bindErr("parameter %s: %v", n, err)
		}
		if o.parameters == nil {
			o.parameters = map[string]string{}
		}
		if _, ok := o.parameters[n]; !ok {
			o.parameters[n] = s
		}
	}
	return nil
}

// onProgress adds a Progress packet to the totals and calls the callback.
func (o *queryOptions) onProgress(p nativeproto.Progress) {
	o.sum.ReadRows += p.ReadRows
	o.sum.ReadBytes += p.ReadBytes
	o.sum.TotalRows += p.TotalRows
	o.sum.TotalBytes += p.TotalBytes
	o.sum.WrittenRows += p.WrittenRows
	o.sum.WrittenBytes += p.WrittenBytes
	o.sum.Elapsed += time.Duration(p.ElapsedNS)
	o.progress(o.sum)
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
