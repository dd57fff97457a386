// Package boxing hands the values of decoded result blocks to database/sql without an allocation
// per value. It is the chnative driver's, below its database/sql adapter (the root package) and
// above columns and nativeproto.
//
// # Design
//
// Before Go 1.27 every value Rows.Next hands over is an interface, and converting a number, string
// or time to one allocates each time. A [Boxer] instead copies a window of rows (every column's
// values, and the strings' bytes) into fresh memory of its own and makes interfaces that point
// into it: no allocation per value, and one per several windows (slabs are carved from shared
// chunks). Which columns can be boxed so, and where their values lie, each column type says
// ([columns.SQLWindowOf]); the others are boxed one value at a time ([columns.SQLValue]).
// [Preboxed] holds windows a read-ahead goroutine boxed before Next asked for them. From Go 1.27
// ScanColumn scans without boxing, and [TextWindows] gives out the strings it scans into *string
// from text copied a window at a time.
//
// # Ownership
//
// The copies belong to the values handed out and are never written again, so values a caller
// keeps (scanned into *any or *string) stay valid and unchanged for as long as the caller keeps
// them, after further Next calls, Close and reuse of the connection. A kept value keeps the
// memory its window was carved from alive: one chunk ([slabChunk] bytes) shared by several
// windows, or a window of its own when that is larger (a window holds at most [Window] rows and,
// per String column, about [WindowBytes] of text or one longer string).
//
// # unsafe, and the purego build
//
// Making interfaces that point into a copy needs package unsafe: it lives in the files named
// *_unsafe.go (built unless the purego tag is given), each saying why and what it relies on.
// Nothing it relies on is taken on trust from a block: Fill checks the rows and every column's
// window (sizes, memory, string offsets) and Row and Value the row and the column asked for,
// before any offset is computed, and a lie is an [*Error] (check.go), in both builds. With
// -tags purego their twins *_purego.go box plainly: each value is boxed by columns.SQLValue (one
// allocation per value, as database/sql's own drivers do), with the same API and ownership. Strings scanned into *string
// (TextWindows) are substrings of a strings.Builder's String in both builds: no unsafe there.
package boxing
