package chnative

import (
	"context"
	"log/slog"
	"maps"
	"time"

	"github.com/chnative/chnative/internal/chconn"
	"github.com/chnative/chnative/nativeproto"
)

// Per-query options travel in the context given to QueryContext, ExecContext, PrepareBatch,
// QueryBlocks and the helpers; they apply to every query run with that context. Options nest:
// WithSettings merges over the settings of outer contexts, the others replace.

type optionsKey struct{}

// withOptions returns a context whose query options are those of ctx changed by set.
func withOptions(ctx context.Context, set func(*chconn.Options)) context.Context {
	o := new(chconn.Options)
	if prev, _ := ctx.Value(optionsKey{}).(*chconn.Options); prev != nil {
		*o = *prev
	}
	set(o)
	return context.WithValue(ctx, optionsKey{}, o)
}

// Settings are ClickHouse settings sent with a query, such as {"max_threads": "4"}.
type Settings map[string]string

// WithSettings returns a context whose queries carry settings (merged over those of the DSN and
// of outer contexts).
func WithSettings(ctx context.Context, s Settings) context.Context {
	return withOptions(ctx, func(o *chconn.Options) {
		o.Settings = maps.Clone(o.Settings)
		if o.Settings == nil {
			o.Settings = map[string]string{}
		}
		maps.Copy(o.Settings, s)
	})
}

// WithQueryID returns a context whose next query uses id as its query id.
func WithQueryID(ctx context.Context, id string) context.Context {
	return withOptions(ctx, func(o *chconn.Options) { o.ID = id })
}

// WithQuotaKey returns a context whose queries are accounted to the quota key (instead of the
// DSN's quota_key).
func WithQuotaKey(ctx context.Context, key string) context.Context {
	return withOptions(ctx, func(o *chconn.Options) { o.QuotaKey, o.HasQuotaKey = key, true })
}

// WithParameters returns a context whose queries send params as server-side query parameters:
// each value fills the {name:Type} placeholders of that name, rendered for the Type written
// there. Servers below protocol revision 54459 (ClickHouse 22.x and older) have no query
// parameters: a query with them fails there with an *UnsupportedError before anything is sent.
// (sql.Named arguments with {name:Type} placeholders fall back to CAST literals on such servers.)
func WithParameters(ctx context.Context, params map[string]any) context.Context {
	params = maps.Clone(params)
	return withOptions(ctx, func(o *chconn.Options) { o.Values = params })
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
	return withOptions(ctx, func(o *chconn.Options) {
		o.OnProgress = func(p nativeproto.Progress) {
			fn(Progress{ReadRows: p.ReadRows, ReadBytes: p.ReadBytes, TotalRows: p.TotalRows, TotalBytes: p.TotalBytes,
				WrittenRows: p.WrittenRows, WrittenBytes: p.WrittenBytes, Elapsed: time.Duration(p.ElapsedNS)})
		}
	})
}

// ProfileInfo is the server's summary of a result, sent once before its end: fields Rows,
// Blocks, Bytes, AppliedLimit, RowsBeforeLimit (valid when CalculatedRowsBeforeLimit), and from
// revision 54469 AppliedAggregation and RowsBeforeAggregation.
type ProfileInfo = nativeproto.ProfileInfo

// WithProfileInfo returns a context whose queries call fn with the server's ProfileInfo packet.
func WithProfileInfo(ctx context.Context, fn func(ProfileInfo)) context.Context {
	return withOptions(ctx, func(o *chconn.Options) { o.OnProfileInfo = fn })
}

// ProfileEvent is one counter of a ProfileEvents packet (servers from protocol revision 54451,
// ClickHouse 21.12 on; older servers send none): fields Host, Time, ThreadID, Type ("increment"
// or "gauge"), Name and Value.
type ProfileEvent = nativeproto.ProfileEvent

// WithProfileEvents returns a context whose queries call fn with each ProfileEvents packet.
func WithProfileEvents(ctx context.Context, fn func([]ProfileEvent)) context.Context {
	return withOptions(ctx, func(o *chconn.Options) { o.OnProfileEvents = fn })
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
	return withOptions(ctx, func(o *chconn.Options) { o.OnLogs = fn })
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
	return withOptions(ctx, func(o *chconn.Options) {
		o.External = append(o.External[:len(o.External):len(o.External)], chconn.ExternalTable{Name: name, Block: block})
	})
}

// WithBlockSize returns a context whose queries read blocks of at most n rows (the
// max_block_size setting) and whose inserts (PrepareBatch, prepared and multi-row inserts) send a
// block every n rows.
func WithBlockSize(ctx context.Context, n int) context.Context {
	return withOptions(ctx, func(o *chconn.Options) { o.BlockSize = max(n, 0) })
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
	return withOptions(ctx, func(o *chconn.Options) { o.DedupToken = token })
}

// WithUserLocation returns a context whose queries return the values of DateTime and DateTime64
// columns that have no time zone of their own in loc instead of the server's (or the session's)
// time zone (the same instants, in loc), and Date and Date32 values as midnight in loc instead of
// midnight UTC, as clickhouse-go's WithUserLocation does. A nil loc changes nothing.
func WithUserLocation(ctx context.Context, loc *time.Location) context.Context {
	return withOptions(ctx, func(o *chconn.Options) { o.UserLocation = loc })
}

// optionsOf returns the options of ctx, nil when it has none.
func optionsOf(ctx context.Context) *chconn.Options {
	if ctx == nil {
		return nil
	}
	o, _ := ctx.Value(optionsKey{}).(*chconn.Options)
	return o
}

// queryOptions returns the options of a query run with ctx: those of ctx, with its bound server-side
// parameters (params) and the caller's span; nil when there are none. (The native connection
// renders WithParameters' values for the text it sends.)
func queryOptions(ctx context.Context, params map[string]string) *chconn.Options {
	from, tr := optionsOf(ctx), traceFrom(ctx)
	if from == nil && tr == nil && len(params) == 0 {
		return nil
	}
	o := new(chconn.Options)
	if from != nil {
		*o = *from
	}
	o.Trace, o.Parameters = tr, params
	return o
}
