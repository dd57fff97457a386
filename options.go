package chnative

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"sort"
	"time"

	"github.com/chnative/chnative/internal/bind"
	"github.com/chnative/chnative/internal/chconn"
	"github.com/chnative/chnative/internal/sqltext"
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
	ctxDedupToken
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
// ClickHouse 21.12 on; older servers send none): fields Host, Time, ThreadID, Type ("increment"
// or "gauge"), Name and Value.
type ProfileEvent = nativeproto.ProfileEvent

// WithProfileEvents returns a context whose queries call fn with each ProfileEvents packet.
func WithProfileEvents(ctx context.Context, fn func([]ProfileEvent)) context.Context {
	return context.WithValue(ctx, ctxProfileEvents, fn)
}

// Log is one server log line sent with a query's result (setting send_logs_level): fields
// Time, Host, QueryID, ThreadID, Priority, Source and Text; Level maps Priority to a slog level.
type Log = nativeproto.LogEntry

// DefaultLogsLevel is the send_logs_level set by WithLogs and WithServerLogger when the query's
// settings do not name one.
const DefaultLogsLevel = chconn.DefaultLogsLevel

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

// WithExternalTable returns a context whose queries send block as the temporary table name
// (ClickHouse "external data"), readable by the query as FROM name or IN name. Each call adds a
// table. The block must not change until the query has been sent.
func WithExternalTable(ctx context.Context, name string, block *nativeproto.Block) context.Context {
	prev, _ := ctx.Value(ctxExternal).([]chconn.ExternalTable)
	tables := append(prev[:len(prev):len(prev)], chconn.ExternalTable{Name: name, Block: block})
	return context.WithValue(ctx, ctxExternal, tables)
}

// WithBlockSize returns a context whose queries read blocks of at most n rows (the
// max_block_size setting) and whose inserts (PrepareBatch, prepared and multi-row inserts) send a
// block every n rows.
func WithBlockSize(ctx context.Context, n int) context.Context {
	return context.WithValue(ctx, ctxBlockSize, n)
}

// WithDeduplicationToken returns a context whose inserts send the setting
// insert_deduplication_token=token: a Replicated*MergeTree table (or a MergeTree with
// non_replicated_deduplication_window) then deduplicates the insert's blocks by token and block
// number (ClickHouse appends _0, _1, ... per block) instead of by their contents, so the same
// rows inserted again with the same token in the same blocks are dropped, and equal rows inserted
// with another token are not. ClickHouse has the setting from 22.2: an insert with a token on an
// older server fails with an *UnsupportedError naming the server's version before anything is
// sent. The token goes with every INSERT run with the context, automatic retries included (see
// InsertUnconfirmedError). "" sends none.
func WithDeduplicationToken(ctx context.Context, token string) context.Context {
	return context.WithValue(ctx, ctxDedupToken, token)
}

// options returns the options of a query, body, run with ctx: its bound server-side parameters
// (params), the options of ctx, and the WithParameters values rendered for body's placeholders.
// nil when there are none.
func (c *conn) options(ctx context.Context, params map[string]string, body string) (*chconn.Options, error) {
	var opts *chconn.Options
	if len(params) > 0 {
		opts = &chconn.Options{Parameters: params}
	}
	opts = optionsFrom(ctx, opts)
	if raw := parametersFrom(ctx); len(raw) > 0 {
		if opts == nil {
			opts = &chconn.Options{}
		}
		if err := renderParameters(opts, raw, body, c.cc.Revision()); err != nil {
			return nil, err
		}
	}
	return opts, nil
}

// optionsFrom merges the options of ctx into opts (which may be nil), but for WithParameters'
// (see options).
func optionsFrom(ctx context.Context, opts *chconn.Options) *chconn.Options {
	if ctx == nil {
		return opts
	}
	get := func() *chconn.Options {
		if opts == nil {
			opts = &chconn.Options{}
		}
		return opts
	}
	if id, _ := ctx.Value(ctxQueryID).(string); id != "" {
		get().ID = id
	}
	if s, _ := ctx.Value(ctxSettings).(Settings); len(s) > 0 {
		o := get()
		if o.Settings == nil {
			o.Settings = map[string]string{}
		}
		maps.Copy(o.Settings, s)
	}
	if k, ok := ctx.Value(ctxQuotaKey).(string); ok {
		get().QuotaKey, opts.HasQuotaKey = k, true
	}
	if fn, _ := ctx.Value(ctxProgress).(func(Progress)); fn != nil {
		var sum Progress
		get().OnProgress = func(p nativeproto.Progress) { fn(sum.add(p)) }
	}
	if fn, _ := ctx.Value(ctxProfileInfo).(func(ProfileInfo)); fn != nil {
		get().OnProfileInfo = func(p nativeproto.ProfileInfo) {
			fn(ProfileInfo{Rows: p.Rows, Blocks: p.Blocks, Bytes: p.Bytes, AppliedLimit: p.AppliedLimit,
				RowsBeforeLimit: p.RowsBeforeLimit, CalculatedRowsBeforeLimit: p.CalculatedRowsBeforeLimit,
				AppliedAggregation: p.AppliedAggregation, RowsBeforeAggregation: p.RowsBeforeAggregation})
		}
	}
	if fn, _ := ctx.Value(ctxProfileEvents).(func([]ProfileEvent)); fn != nil {
		get().OnProfileEvents = fn
	}
	if fn, _ := ctx.Value(ctxLogs).(func(Log)); fn != nil {
		get().OnLogs = fn
	}
	if t, _ := ctx.Value(ctxExternal).([]chconn.ExternalTable); len(t) > 0 {
		get().External = t
	}
	if n, _ := ctx.Value(ctxBlockSize).(int); n > 0 {
		get().BlockSize = n
	}
	if t, _ := ctx.Value(ctxDedupToken).(string); t != "" {
		get().DedupToken = t
	}
	if tr := traceFrom(ctx); tr != nil {
		get().Trace = tr
	}
	if loc := userLocation(ctx); loc != nil {
		get().UserLocation = loc
	}
	return opts
}

// parametersFrom returns the WithParameters values of ctx, or nil.
func parametersFrom(ctx context.Context) map[string]any {
	if ctx == nil {
		return nil
	}
	p, _ := ctx.Value(ctxParameters).(map[string]any)
	return p
}

// add adds a Progress packet to the totals p and returns them.
func (p *Progress) add(w nativeproto.Progress) Progress {
	p.ReadRows += w.ReadRows
	p.ReadBytes += w.ReadBytes
	p.TotalRows += w.TotalRows
	p.TotalBytes += w.TotalBytes
	p.WrittenRows += w.WrittenRows
	p.WrittenBytes += w.WrittenBytes
	p.Elapsed += time.Duration(w.ElapsedNS)
	return *p
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

// renderParameters renders the WithParameters values, raw, for the {name:Type} placeholders of
// body into o's Parameters (a parameter bound from a sql.Named argument stays).
func renderParameters(o *chconn.Options, raw map[string]any, body string, rev nativeproto.Revision) error {
	if !rev.Has(nativeproto.RevParameters) {
		return &UnsupportedError{Msg: fmt.Sprintf("WithParameters: server-side query parameters need protocol revision %d (ClickHouse 22.x or newer); this connection uses %d: pass the values as sql.Named arguments instead, which older servers get as CAST literals",
			nativeproto.RevParameters, rev)}
	}
	types := map[string]string{}
	for _, p := range sqltext.Placeholders(body) {
		if p.Kind == '{' {
			types[p.Name] = p.Type
		}
	}
	names := make([]string, 0, len(raw))
	for n := range raw {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		typ, ok := types[n]
		if !ok {
			// Not in the query text (or the type is unknown): send the plain text form.
			typ = "String"
		}
		s, err := bind.ParameterValue(raw[n], typ)
		if err != nil {
			return bind.Errorf("parameter %s: %v", n, err)
		}
		if o.Parameters == nil {
			o.Parameters = map[string]string{}
		}
		if _, ok := o.Parameters[n]; !ok {
			o.Parameters[n] = s
		}
	}
	return nil
}
