package boxing

// Window is how many rows are boxed at once.
const Window = 256

// WindowBytes bounds the text of one String column copied per window (a window always holds at
// least one row), and so the memory a single kept string can hold on to.
const WindowBytes = 64 << 10

// slabChunk is the size of the pointer-free chunks slabs and text windows are carved from: one
// allocation serves several windows. A carved slab is never handed out again, so values stay
// immutable; a kept value keeps its chunk (at most slabChunk bytes, or one larger window) alive.
const slabChunk = 64 << 10

// preboxBytes bounds the memory boxed ahead for one block (see Preboxed).
const preboxBytes = 16 << 20

// nextChunk returns the size of the next chunk to allocate for at least need bytes: chunks start
// small and double up to slabChunk, so a one-row result (SELECT 1) does not allocate 64 KiB,
// and a long one soon shares each allocation among many windows. grown is the last size.
func nextChunk(grown *int, need int) int {
	n := min(max(*grown*2, 512), slabChunk)
	for n < need {
		n *= 2
	}
	*grown = n
	return n
}

// stringsEnd returns the end (exclusive) of the longest window of rows [lo, hi) whose text in
// ends (a String column's end offsets) fits WindowBytes, and at least lo+1.
func stringsEnd(ends []int, lo, hi int) int { return stringsWithin(ends, lo, hi, WindowBytes) }

// stringsWithin returns the end (exclusive) of the longest window of rows [lo, hi) whose text in
// ends fits limit bytes, and at least lo+1.
func stringsWithin(ends []int, lo, hi, limit int) int {
	start := 0
	if lo > 0 {
		start = ends[lo-1]
	}
	if ends[hi-1]-start <= limit {
		return hi
	}
	// The largest e in [lo+1, hi] with ends[e-1]-start <= limit, or lo+1.
	a, b := lo+1, hi
	for a < b {
		m := int(uint(a+b+1) >> 1)
		if ends[m-1]-start <= limit {
			a = m
		} else {
			b = m - 1
		}
	}
	return a
}
