package ingest

import (
	"context"
	"maps"

	"github.com/chnative/chnative/internal/chconn"
	"github.com/chnative/chnative/nativeproto"
)

// OpenFunc prepares the engine's INSERT on a connection from a pool, with the options opts sets,
// and calls use with it and the connection's server, holding the connection for that call only.
// use ends the insert (sends or aborts it).
type OpenFunc func(ctx context.Context, opts func(*chconn.Options), use func(*chconn.Insert, chconn.ServerInfo) error) error

// Open asks the server for the INSERT's columns through open and starts an engine that sends
// each block as one INSERT through open, with cfg's settings (Settings) and, where the server
// takes one (22.2+), the block's token.
func Open(open OpenFunc, cfg Config) (*Engine, error) {
	var names, types []string
	var tokens bool
	if err := open(context.Background(), func(*chconn.Options) {}, func(ins *chconn.Insert, si chconn.ServerInfo) error {
		names, types = Header(ins.Block())
		tokens = HasTokens(si.Major, si.Minor)
		if cfg.Logger == nil {
			cfg.Logger = ins.DebugLog() // the DSN's debug log, when it has one
		}
		ins.Abort()
		return nil
	}); err != nil {
		return nil, err
	}
	set := Settings(cfg.Settings, cfg.Async, cfg.AsyncNoWait, tokens)
	cfg.NoTokens = !tokens
	return New(names, types, cfg, func(ctx context.Context, _ int, b *nativeproto.Block, token string) error {
		opts := func(o *chconn.Options) {
			o.Settings = maps.Clone(o.Settings)
			if o.Settings == nil {
				o.Settings = map[string]string{}
			}
			maps.Copy(o.Settings, set)
			o.DedupToken = token
		}
		return open(ctx, opts, func(ins *chconn.Insert, _ chconn.ServerInfo) error {
			if err := ins.WriteBlock(ctx, b); err != nil {
				ins.Abort()
				return err
			}
			return ins.Send(ctx)
		})
	}, nil)
}

// Header returns the names and types of b's columns: an engine's for the INSERT b is the header of.
func Header(b *nativeproto.Block) (names, types []string) {
	for i := range b.NumColumns() {
		names, types = append(names, b.Name(i)), append(types, b.Type(i))
	}
	return names, types
}

// HasTokens reports whether a server of this version takes insert_deduplication_token (22.2+).
func HasTokens(major, minor uint64) bool { return major > 22 || major == 22 && minor >= 2 }
