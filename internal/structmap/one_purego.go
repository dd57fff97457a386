//go:build purego

package structmap

// The safe twin of one_unsafe.go: a one-element slice holding a copy of *p.

// SliceOfOne returns a one-element slice over *p (sharing it, or a copy under purego). Callers
// only read it.
func SliceOfOne[T any](p *T) []T { return []T{*p} }
