//go:build !purego

package columns

import "unsafe"

// Why unsafe: String.UnsafeString hands out a value without copying it, for callers (the
// database/sql adapter's scanning, struct mapping) that consume it before the column changes.
//
// What it relies on: b is not empty and is not modified while the string is in use, which
// UnsafeString's contract puts on the caller (valid only until the column is next read, reset or
// appended to, and the column never writes into bytes it has handed out before then); the string
// keeps b's backing array reachable.

// unsafeString returns b's bytes as a string without a copy.
func unsafeString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
