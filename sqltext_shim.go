package chnative

import (
	"database/sql/driver"

	"github.com/chnative/chnative/internal/bind"
	"github.com/chnative/chnative/internal/sqltext"
	"github.com/chnative/chnative/nativeproto"
)

// Thin wrappers with the names and signatures the root had before SQL text handling moved to
// internal/sqltext and binding to internal/bind, for the root files that still call them. Each
// one only adapts types (driver.NamedValue, queryOptions); the logic is in those packages.

// placeholder is sqltext.Placeholder with the root's field names.
type placeholder struct {
	start, end int
	kind       byte
	index      int
	name       string
	typ        string
}

func scanPlaceholders(q string) []placeholder {
	ps := sqltext.Placeholders(q)
	out := make([]placeholder, len(ps))
	for i, p := range ps {
		out[i] = placeholder{start: p.Start, end: p.End, kind: p.Kind, index: p.Index, name: p.Name, typ: p.Type}
	}
	return out
}

func bindErr(format string, args ...any) error { return bind.Errorf(format, args...) }

func parameterValue(v any, typ string) (string, error) { return bind.ParameterValue(v, typ) }

func skipQuoted(q string, i int) int { return sqltext.SkipQuoted(q, i) }

func hasPlaceholders(query string) bool { return sqltext.HasPlaceholders(query) }

// bindQuery is bind.Query for database/sql arguments, its query parameters in a *queryOptions
// (nil when there are none).
func bindQuery(query string, args []driver.NamedValue, rev nativeproto.Revision) (string, *queryOptions, error) {
	if len(args) == 0 {
		return query, nil, nil
	}
	bargs := make([]bind.Arg, len(args))
	for i, a := range args {
		bargs[i] = bind.Arg{Name: a.Name, Ordinal: a.Ordinal, Value: a.Value}
	}
	text, params, err := bind.Query(query, bargs, rev)
	if err != nil {
		return "", nil, err
	}
	var opts *queryOptions
	if params != nil {
		opts = &queryOptions{parameters: params}
	}
	return text, opts, nil
}

func insertValuesData(query string) (string, bool) { return sqltext.InsertValuesData(query) }

func placeholderRows(tail string) (tuples, width int, ok bool) { return sqltext.PlaceholderRows(tail) }

func valuesTuples(tail string) ([][]string, bool) { return sqltext.ValuesTuples(tail) }

func valuesMappingError(tail string) error { return bind.ValuesMappingError(tail) }

func insertWantsData(query string) bool { return sqltext.InsertWantsData(query) }

func namedValueKey(a *driver.NamedValue) (string, int) { return a.Name, a.Ordinal }

func splitInsertArgs(tail string, args []driver.NamedValue) ([][]driver.NamedValue, bool, error) {
	return bind.SplitInsertArgs(tail, args, namedValueKey)
}

func mapInsertArgs(tail string, args []driver.NamedValue) ([][]driver.NamedValue, error) {
	return bind.MapInsertArgs(tail, args, namedValueKey)
}
