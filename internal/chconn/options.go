package chconn

import (
	"fmt"
	"strconv"
	"time"

	"github.com/chnative/chnative/internal/bind"
	"github.com/chnative/chnative/internal/sqltext"
	"github.com/chnative/chnative/nativeproto"
)

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
	Values     map[string]any    // WithParameters' values, rendered into Parameters (withValues)

	QuotaKey    string
	HasQuotaKey bool // QuotaKey replaces the configuration's quota key, even when ""

	// Callbacks for the packets a query brings besides its result, called on the caller's
	// goroutine while it reads the result (a query with one never reads ahead).
	OnProgress      func(nativeproto.Progress)       // the query's totals, after each Progress packet
	OnProfileInfo   func(nativeproto.ProfileInfo)    // the ProfileInfo packet
	OnProfileEvents func([]nativeproto.ProfileEvent) // each ProfileEvents block (the slice is the callee's)
	OnLogs          func(nativeproto.LogEntry)       // each row of each Log block; sets send_logs_level

	External     []ExternalTable    // external tables sent with the query
	BlockSize    int                // max_block_size for a query, rows per block for an insert
	Trace        *nativeproto.Trace // the caller's span, sent in the client info; nil for none
	UserLocation *time.Location     // the zone of zone-less DateTime values; nil: the session's
	// DedupToken is sent as the setting insert_deduplication_token with an INSERT (ClickHouse
	// 22.2 and newer; older servers refuse the query before it is sent). "" sends none.
	DedupToken string
}

// applyOptions adds to the settings of a query what its options imply: max_block_size and
// send_logs_level (unless set by the caller or the DSN), and an INSERT's
// insert_deduplication_token from DedupToken.
//
// A context's deadline adds no setting: the driver keeps it itself (the socket's deadline, then
// Cancel; see doc.go's Deadlines). A max_execution_time sent for it would fail every query of a
// readonly=1 user (server error 164, READONLY: such a user may change no setting) and of a
// profile whose constraints bound it, and an INSERT's would not bound its later appends anyway.
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
	if o.DedupToken != "" && sqltext.IsInsert(body) {
		settings[dedupTokenSetting] = o.DedupToken
	}
}

// withValues returns opts with WithParameters' values rendered into its Parameters for the
// placeholders of body, the text sent (a copy; opts itself when it has no values). Servers below
// RevParameters have no query parameters: the error says so before anything is sent.
func (c *Conn) withValues(body string, opts *Options) (*Options, error) {
	if opts == nil || len(opts.Values) == 0 {
		return opts, nil
	}
	if !c.rev.Has(nativeproto.RevParameters) {
		return nil, &UnsupportedError{Msg: fmt.Sprintf("WithParameters: server-side query parameters need protocol revision %d (ClickHouse 22.x or newer); this connection uses %d: pass the values as sql.Named arguments instead, which older servers get as CAST literals",
			nativeproto.RevParameters, c.rev)}
	}
	o := *opts
	var err error
	if o.Parameters, err = bind.RenderParameters(opts.Parameters, opts.Values, body); err != nil {
		return nil, err
	}
	return &o, nil
}
