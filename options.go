package chnative

import (
	"context"
	"maps"
)

type ctxKey int

const (
	ctxSettings ctxKey = iota
	ctxQueryID
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

// optionsFrom merges the options of ctx into opts (which may be nil).
func optionsFrom(ctx context.Context, opts *queryOptions) *queryOptions {
	if ctx == nil {
		return opts
	}
	s, _ := ctx.Value(ctxSettings).(Settings)
	id, _ := ctx.Value(ctxQueryID).(string)
	if s == nil && id == "" {
		return opts
	}
	if opts == nil {
		opts = &queryOptions{}
	}
	if id != "" {
		opts.id = id
	}
	if len(s) > 0 {
		if opts.settings == nil {
			opts.settings = map[string]string{}
		}
		maps.Copy(opts.settings, s)
	}
	return opts
}
