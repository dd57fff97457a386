package chconn

import (
	"context"
	"crypto/rand"

	"fmt"
	"sort"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/nativeproto"
)

// NewQueryID returns a random query id: a version 4 UUID, as the server makes them.
func NewQueryID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return columns.FormatUUID(b)
}

// sendQuery writes a Query packet and the empty Data block that ends the external tables.
func (c *Conn) sendQuery(body string, opts *Options) (string, error) {
	id := ""
	if opts != nil {
		id = opts.ID
	}
	if id == "" {
		id = NewQueryID()
	}
	q := nativeproto.Query{
		ID: id,
		ClientInfo: nativeproto.ClientInfo{
			Kind:            nativeproto.QueryKindInitial,
			InitialQueryID:  id,
			InitialAddress:  "0.0.0.0:0",
			Interface:       nativeproto.InterfaceTCP,
			OSUser:          c.osUser,
			ClientHostname:  c.hostname,
			ClientName:      c.ClientName(),
			Major:           ClientMajor,
			Minor:           ClientMinor,
			ProtocolVersion: c.ClientRevision(),
			QuotaKey:        c.cfg.QuotaKey,
			Patch:           ClientPatch,
		},
		Compression: c.comp != nil,
		Body:        body,
	}
	settings := map[string]string{}
	for k, v := range c.cfg.Settings {
		settings[k] = v
	}
	if opts != nil {
		for k, v := range opts.Settings {
			settings[k] = v
		}
		if opts.HasQuotaKey {
			q.ClientInfo.QuotaKey = opts.QuotaKey
		}
		q.ClientInfo.Trace = opts.Trace // the caller's span (trace.go); sent from revision 54442
		opts.applyOptions(settings, body)
	}
	c.cur, c.progress = opts, nativeproto.Progress{}
	c.queryID = id
	c.startQueryLocation(settings)
	// The server answers in its network_compression_method: LZ4 by default on every version, so
	// only ZSTD is asked for (frames are decoded by their own method byte either way). A setting
	// sent with its default value spelt otherwise ("lz4" to 26.7, "LZ4" to 18.16) is a change
	// that a readonly=1 user is refused (server error 164).
	if c.comp != nil && c.comp.Method() == nativeproto.MethodZSTD {
		settings["network_compression_method"] = "zstd"
	}
	keys := make([]string, 0, len(settings))
	for k := range settings {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	// Every setting is marked important, as clickhouse-go marks them: a server that does not
	// know one refuses the query (UNKNOWN_SETTING) instead of ignoring it with a warning, so a
	// misspelt setting in a DSN or WithSettings is an error, not a silent no-op.
	for _, k := range keys {
		q.Settings = append(q.Settings, nativeproto.Setting{Key: k, Value: settings[k], Important: true})
	}
	if opts != nil && len(opts.Parameters) > 0 {
		keys = keys[:0]
		for k := range opts.Parameters {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			q.Parameters = append(q.Parameters, nativeproto.Setting{Key: k, Value: opts.Parameters[k], Custom: true})
		}
	}
	if err := c.pw.WriteQuery(&q); err != nil {
		c.pw.Reset()
		return id, err
	}
	c.traceStart(id, body)
	c.pr.SetCompression(c.comp != nil)
	if c.comp != nil {
		c.pw.SetCompressor(c.comp)
	} else {
		c.pw.SetCompressor(nil)
	}
	if opts != nil {
		for _, t := range opts.External {
			if err := c.pw.WriteData(t.Name, t.Block); err != nil {
				c.pw.Reset()
				return id, fmt.Errorf("chnative: external table %s: %w", t.Name, err)
			}
		}
	}
	if c.pingEndsTables {
		c.pw.WritePing()
		c.pendingPong = true
		return id, nil
	}
	if err := c.pw.WriteEmptyData(); err != nil {
		c.pw.Reset()
		return id, err
	}
	return id, nil
}

// start sends a query with opts and watches ctx until the returned stop is called. When the
// packets cannot be written the connection is closed and the error is ErrBadConn, so
// database/sql retries on another connection: a query that did not reach
// the server whole is not run (the server waits for the packet that ends it).
func (c *Conn) start(ctx context.Context, body string, opts *Options) (stop func() bool, err error) {
	if err := c.checkDedupToken(body, opts); err != nil {
		return nil, err
	}
	if opts, err = c.withValues(body, opts); err != nil {
		return nil, err
	}
	stop = c.watch(ctx)
	c.qctx = ctx // for the observer's QueryStart (observe.go)
	if _, err := c.sendQuery(body, opts); err != nil {
		stop()
		return nil, err
	}
	if err := c.flush(); err != nil {
		fired := stop()
		c.traceEnd(OutcomeNotSent, err)
		c.markBad()
		if fired {
			return nil, c.contextError(ctx.Err())
		}
		c.logRetry("the query could not be written: " + err.Error())
		return nil, ErrBadConn
	}
	return stop, nil
}
