package nativeproto

import "github.com/chnative/chnative/columns"

// Retained returns about how many bytes of memory b keeps for reuse: its columns' buffers at
// every depth (also those a narrower block hid past len, kept for reuse), its names and the
// scratch of its custom serializations (columns.Retained).
// Counting stops once the sum passes limit (the result is then above limit). A connection
// keeps a block for the next query only while this is at most its block_keep_bytes.
func (b *Block) Retained(limit int64) int64 {
	if b == nil {
		return 0
	}
	n := int64(cap(b.names))*16 + int64(cap(b.cols))*16 + int64(cap(b.types))*16 + int64(cap(b.sers))*8 + int64(cap(b.custom))
	for _, s := range b.names {
		n += int64(len(s))
	}
	for _, s := range b.types {
		n += int64(len(s))
	}
	for _, c := range b.cols[:cap(b.cols)] {
		if n > limit {
			return n
		}
		if c != nil {
			n += columns.Retained(c, limit-n)
		}
	}
	for _, s := range b.sers[:cap(b.sers)] {
		if n > limit {
			return n
		}
		if s != nil {
			n += columns.Retained(s, limit-n)
		}
	}
	return n
}

// DataBytes returns about how many bytes of values b's columns hold (columns.DataSize: lengths,
// not capacities), stopping once the sum passes limit. An insert sends its block when this
// reaches insert_block_bytes.
func (b *Block) DataBytes(limit int64) int64 {
	var n int64
	for _, c := range b.cols {
		if n > limit {
			break
		}
		n += columns.DataSize(c, limit-n)
	}
	return n
}
