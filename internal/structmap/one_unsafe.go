//go:build !purego

package structmap

// Why unsafe: AppendStruct appends one row from a *T through the same path as a []T, and a
// one-element slice over *row costs nothing while a copy of *row would cost a copy (and, as
// the slice escapes into the columns' loops, an allocation). What it relies on: unsafe.Slice(p,
// 1) is a valid []T over the T p points to (the language defines it), kept alive by the slice;
// the appenders only read through it. purego builds use one_purego.go, which copies.

import "unsafe"

// SliceOfOne returns a one-element slice over *p (sharing it, or a copy under purego). Callers
// only read it.
func SliceOfOne[T any](p *T) []T { return unsafe.Slice(p, 1) }
