package wire

import "sync"

// Spare buffers. A connection gives up a buffer a big result or block grew once the statement
// has ended, into a sync.Pool that the next big statement of any connection takes it from; the
// garbage collector empties the pool. A sync.Pool holds pointers, and boxing a slice into one
// allocates, so the box a GetSpare took out is kept by its caller and used again by its next
// PutSpare: a buffer that goes out and back each statement allocates nothing.

// GetSpare returns a buffer from pool (of *[]byte), or nil when it has none; *box keeps the
// pointer it came in, for PutSpare.
func GetSpare(pool *sync.Pool, box **[]byte) []byte {
	b, _ := pool.Get().(*[]byte)
	if b == nil {
		return nil
	}
	buf := *b
	*b, *box = nil, b
	return buf
}

// PutSpare puts buf into pool in *box (a new box when it is nil) and clears *box.
func PutSpare(pool *sync.Pool, box **[]byte, buf []byte) {
	b := *box
	if b == nil {
		b = new([]byte)
	}
	*b, *box = buf, nil
	pool.Put(b)
}
