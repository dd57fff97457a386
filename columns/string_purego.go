//go:build purego

package columns

// unsafeString returns a copy of b as a string: the safe twin of string_unsafe.go.
func unsafeString(b []byte) string { return string(b) }
