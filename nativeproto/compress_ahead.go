package nativeproto

import (
	"io"
	"runtime"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// The design of decompress-ahead is in FrameReader's doc comment.

const (
	// aheadMinFrame is the smallest frame after which the next is decompressed ahead: small
	// results stay on the caller's goroutine.
	aheadMinFrame = 64 << 10
	// aheadRawBuffer is the source's buffer size once decompress-ahead engages.
	aheadRawBuffer = 4 << 20
	// aheadPrefix is the room before an ahead frame's output for the decompressed bytes the
	// reader above still holds when it swaps buffers (a value spanning two frames).
	aheadPrefix = 64 << 10
	// aheadBufferSize is the output buffer of a frame decompressed ahead: the decompressing
	// reader's buffer size (decBufferSize), so the two can be swapped.
	aheadBufferSize = aheadPrefix + FrameChunk
)

// bufferedSource is what decompress-ahead needs of a FrameReader's source: internal/wire's Reader.
type bufferedSource interface {
	io.Reader
	Peek(n int) ([]byte, error)
	Skip(n int) error
	Window() []byte
	Buffered() int
	Offset() int64
	Size() int
	Grow(n int)
	SetHold(func())
}

// aheadDepth is how many frames may be ahead at once: three, so that while the goroutine works
// on frame k+1 the next is already queued for it and it does not park between frames (waking a
// parked goroutine costs about 0.1 ms here, a quarter of a frame's decompression).
const aheadDepth = 3

// aheadFrame is a frame a FrameReader decompresses ahead.
type aheadFrame struct {
	pos   int64  // source offset of the frame's first byte
	total int    // the frame's bytes: checksum, header, payload
	usize int    // its uncompressed size
	out   []byte // aheadBufferSize bytes: aheadPrefix of room, then the frame's output
	n     int    // bytes decompressed (set by the goroutine)
	err   error  // set by the goroutine
	// done gets a token when the goroutine has finished the frame; made once (capacity 1)
	// and used again for every frame the slot takes.
	done    chan struct{}
	running bool // a goroutine owns out and has not been joined
}

// join waits for the goroutines decompressing ahead. Sources call it (SetHold) before touching
// their buffered bytes.
func (r *FrameReader) join() {
	// Frames not started yet are decompressed here rather than waited for.
	for r.steal() {
	}
	for _, a := range r.ahead {
		r.joinOne(a)
	}
}

func (r *FrameReader) joinOne(a *aheadFrame) {
	if a.running {
		<-a.done
		a.running = false
	}
}

// finished joins a when its goroutine is done with it, without waiting; it reports whether a
// is joined.
func (a *aheadFrame) finished() bool {
	if !a.running {
		return true
	}
	select {
	case <-a.done:
		a.running = false
		return true
	default:
		return false
	}
}

// dropAhead forgets every frame decompressed ahead.
func (r *FrameReader) dropAhead() {
	r.join()
	r.aheadN = 0
}

// takeAhead returns the oldest frame decompressed ahead when it is the frame at the source's
// read position, whole and valid, and consumes that frame's bytes from the source. Otherwise it
// returns nil and forgets every frame ahead (the later ones were guessed from this one).
func (r *FrameReader) takeAhead() *aheadFrame {
	if r.aheadN == 0 {
		return nil
	}
	a := r.ahead[r.aheadHead]
	// Rather than wait for the goroutine, decompress a later frame that it has not started.
	for !a.finished() && r.steal() {
	}
	r.joinOne(a)
	r.aheadHead = (r.aheadHead + 1) % aheadDepth
	r.aheadN--
	// A frame past SetFrameLimit's limit is read inline too, whose checkLimit refuses it.
	if a.err != nil || a.n != a.usize || r.buf.Offset() != a.pos || r.limit != 0 && a.usize > int(r.limit) {
		r.dropAhead()
		return nil
	}
	// The bytes are buffered: they were when the guess was made, and a buffer keeps unread
	// bytes. A failure here leaves the source where it was, for the inline read.
	if r.buf.Skip(a.total) != nil {
		r.dropAhead()
		return nil
	}
	r.aheadTaken++
	return a
}

// aheadQueue is the frames waiting for the goroutine that decompresses ahead, and whether that
// goroutine runs. It runs while the queue is not empty and ends when it is: no goroutine is
// left behind when a result ends or a connection is closed.
type aheadQueue struct {
	mu    sync.Mutex
	jobs  []aheadJob
	alive bool
}

type aheadJob struct {
	a     *aheadFrame
	frame []byte // the frame's bytes in the source's buffer
}

// enqueue queues frame for decompression into a, starting the goroutine if it is not running.
func (r *FrameReader) enqueue(a *aheadFrame, frame []byte) {
	q := &r.queue
	q.mu.Lock()
	q.jobs = append(q.jobs, aheadJob{a, frame})
	start := !q.alive
	q.alive = true
	q.mu.Unlock()
	if start {
		go r.decompressAhead()
	}
}

// decompressAhead is the goroutine: it verifies and decompresses the queued frames in order,
// with the reader's ZSTD decoder. Only one runs at a time per FrameReader, and the reader
// decodes nothing inline while a frame is queued or running (it joins first).
func (r *FrameReader) decompressAhead() {
	q := &r.queue
	for {
		q.mu.Lock()
		if len(q.jobs) == 0 {
			q.alive = false
			q.mu.Unlock()
			return
		}
		j := q.jobs[0]
		n := copy(q.jobs, q.jobs[1:]) // at most aheadDepth jobs: the array is kept
		q.jobs[n] = aheadJob{}
		q.jobs = q.jobs[:n]
		q.mu.Unlock()
		r.runJob(j, &r.zd)
	}
}

func (r *FrameReader) runJob(j aheadJob, zd **zstdFrames) {
	a, frame := j.a, j.frame
	m, csize, _ := frameHeader(frame)
	out := a.out[aheadPrefix : aheadPrefix+a.usize : min(len(a.out), aheadPrefix+a.usize+zstdSlack)]
	a.n, a.err = decodeFrame(frame, m, csize, uint32(a.usize), out, zd)
	a.done <- struct{}{}
}

// steal takes the last queued frame, not yet started, and decompresses it on the reader's
// goroutine (with a ZSTD decoder of its own): the reader does that instead of waiting for the
// goroutine, so that with two cores both decompress. It reports false when nothing is queued.
func (r *FrameReader) steal() bool {
	q := &r.queue
	q.mu.Lock()
	if len(q.jobs) == 0 {
		q.mu.Unlock()
		return false
	}
	j := q.jobs[len(q.jobs)-1]
	q.jobs[len(q.jobs)-1] = aheadJob{}
	q.jobs = q.jobs[:len(q.jobs)-1]
	q.mu.Unlock()
	r.runJob(j, &r.stealZD)
	return true
}

// speculate queues the next frames for decompressing ahead, up to aheadDepth, when the one
// just taken (of usize bytes) is large enough and the next are buffered in the source (see
// FrameReader's doc).
func (r *FrameReader) speculate(usize int) {
	if r.buf == nil || usize < aheadMinFrame || r.noAhead || r.busy || runtime.GOMAXPROCS(0) < 2 {
		return
	}
	if r.buf.Size() < aheadRawBuffer {
		r.buf.Grow(aheadRawBuffer) // whole frames are buffered from the next read on
		return
	}
	if r.ahead == nil {
		r.ahead = make([]*aheadFrame, aheadDepth)
		for i := range r.ahead {
			r.ahead[i] = &aheadFrame{}
		}
	}
	for r.aheadN < aheadDepth {
		// The next guess starts where the last frame ahead ends, or at the read position.
		base := r.buf.Offset()
		if r.aheadN > 0 {
			last := r.ahead[(r.aheadHead+r.aheadN-1)%aheadDepth]
			base = last.pos + int64(last.total)
		}
		w := r.buf.Window()
		from := int(base - r.buf.Offset())
		if from < 0 || from > len(w) {
			r.dropAhead() // cannot happen: a guess ends inside the window it was made in
			return
		}
		at, total, fsize, whole, ok := nextFrame(w[from:])
		if !ok {
			return
		}
		if !whole {
			// The frame has begun to arrive (nextFrame saw the evidence): the server is
			// sending it, and the rest comes as fast as the socket allows. Wait for it here,
			// so that it can be decompressed while the decoder works on this one.
			if from+at+total > r.buf.Size() {
				return
			}
			if _, err := r.buf.Peek(from + at + total); err != nil {
				return // the inline read meets the error again
			}
			w = r.buf.Window()
		}
		a := r.ahead[(r.aheadHead+r.aheadN)%aheadDepth]
		if len(a.out) != aheadBufferSize {
			a.out = aheadBuffer()
		}
		a.pos, a.total, a.usize = base+int64(at), total, fsize
		a.n, a.err = 0, nil
		if a.done == nil {
			a.done = make(chan struct{}, 1)
		}
		a.running = true
		r.aheadN++
		r.enqueue(a, w[from+at:from+at+total:from+at+total])
	}
}

// nextFrame finds the frame a buffered window most likely starts with: at its first byte (the
// block goes on), or after a Data packet's code and table name (the next block). It reports the
// frame's offset in w, its length and uncompressed size when the frame is LZ4 or ZSTD, passes
// checkHeader and is at most FrameChunk bytes uncompressed; whole says it lies wholly in w.
//
// A frame that is not whole is reported only on evidence that it is one: at least
// aheadEvidence bytes of its payload are in w and they begin a well-formed LZ4 block or a ZSTD
// frame of its declared size. (Bytes after a block that are not a frame are packets: the
// header checks alone let through about one in 10^4 of them, and waiting for the rest of a frame
// that is not one would wait for bytes the server never sends.)
func nextFrame(w []byte) (at, total, usize int, whole, ok bool) {
	if total, usize, whole, ok = frameAt(w, 0); ok {
		return 0, total, usize, whole, true
	}
	// A Data packet: code 1, then the table name (a short string; its length one varint byte).
	if len(w) >= 2 && w[0] == byte(ServerCodeData) && w[1] < 0x80 {
		at = 2 + int(w[1])
		if total, usize, whole, ok = frameAt(w, at); ok {
			return at, total, usize, whole, true
		}
	}
	return 0, 0, 0, false, false
}

// aheadEvidence is how much of a frame's payload must be buffered, and well-formed, before
// decompress-ahead waits for the rest of it.
const aheadEvidence = 4 << 10

func frameAt(w []byte, at int) (total, usize int, whole, ok bool) {
	if at+frameOverhead > len(w) {
		return 0, 0, false, false
	}
	h := w[at : at+frameOverhead]
	m, csize, us := frameHeader(h)
	if m != MethodLZ4 && m != MethodZSTD || checkHeader(m, csize, us) != nil || us > FrameChunk {
		return 0, 0, false, false
	}
	total = FrameChecksumSize + int(csize)
	if total <= len(w)-at {
		return total, int(us), true, true
	}
	payload := w[at+frameOverhead:]
	if len(payload) < aheadEvidence {
		return 0, 0, false, false
	}
	payload = payload[:aheadEvidence]
	switch m {
	case MethodLZ4:
		ok = lz4Plausible(payload, int(us))
	case MethodZSTD:
		var zh zstd.Header
		ok = zh.Decode(payload) == nil && (!zh.HasFCS || zh.FrameContentSize == uint64(us))
	}
	return total, int(us), false, ok
}

// lz4Plausible reports whether src, the beginning of an LZ4 block of usize bytes, is well formed
// as far as it goes: every whole sequence in it has its match inside the output so far and the
// output stays within usize, and it holds at least 16 sequences (random bytes fail within a few).
func lz4Plausible(src []byte, usize int) bool {
	si, di, seqs := 0, 0, 0
	for si < len(src) {
		tok := src[si]
		si++
		lit := int(tok >> 4)
		if lit == 15 {
			for si < len(src) && src[si] == 255 {
				lit += 255
				si++
			}
			if si == len(src) {
				break
			}
			lit += int(src[si])
			si++
		}
		si += lit
		di += lit
		if si+2 > len(src) || di > usize {
			break
		}
		off := int(src[si]) | int(src[si+1])<<8
		si += 2
		if off == 0 || off > di {
			return false
		}
		ml := int(tok&15) + 4
		if ml == 19 {
			for si < len(src) && src[si] == 255 {
				ml += 255
				si++
			}
			if si == len(src) {
				break
			}
			ml += int(src[si])
			si++
		}
		di += ml
		if di > usize {
			return false
		}
		seqs++
	}
	return seqs >= 16 && di <= usize
}

// SwapBuffer implements internal/wire's BufferSwapper for the reader that decodes from this
// FrameReader: when the next frame was decompressed ahead, it hands that reader the buffer the
// frame is in, with keep (the reader's unread bytes) copied in front of it, and takes old, the
// reader's buffer, for the next frame ahead. old must be aheadBufferSize bytes (the
// PacketReader's decompressing reader is). It reports false when no such frame is ready.
func (r *FrameReader) SwapBuffer(old, keep []byte) (buf []byte, start, end int, ok bool) {
	if len(r.data) > 0 || r.err != nil || len(keep) > aheadPrefix || len(old) != aheadBufferSize {
		return nil, 0, 0, false
	}
	a := r.takeAhead()
	if a == nil {
		return nil, 0, 0, false
	}
	r.busy = false
	start = aheadPrefix - len(keep)
	copy(a.out[start:aheadPrefix], keep)
	buf, a.out = a.out, old
	end = aheadPrefix + a.n
	r.speculate(a.usize)
	return buf, start, end, true
}

// useAhead makes the frame just taken (takeAhead) the current one: copied into the caller's
// buffer of Read when it fits there, else read from the ahead buffer, which then stays busy
// (no further frame ahead) until drained.
func (r *FrameReader) useAhead(a *aheadFrame) {
	data := a.out[aheadPrefix : aheadPrefix+a.n]
	if a.n <= len(r.direct) {
		r.directN = copy(r.direct, data)
	} else {
		r.data = data
		r.busy = true
	}
	r.speculate(a.usize)
}
