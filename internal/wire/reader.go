package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/chnative/chnative/internal/spare"
)

// DefaultReaderSize is the buffer size of a Reader made by NewReader.
const DefaultReaderSize = 64 << 10

// MaxStringSize caps the length of one String value a Reader accepts (1 GiB, as the server's own cap).
const MaxStringSize = 1 << 30

// Reader is a buffered little-endian reader of the ClickHouse binary encodings (varints, fixed-width
// integers, length-prefixed strings). Columns decode from it. It is not safe for concurrent use.
//
// Reader never reads more from its source than the bytes asked for, rounded up to what one Read call
// of the source returns: callers that switch sources between packets (for example between a raw socket
// and a decompressing frame reader) use one Reader per source.
type Reader struct {
	src  io.Reader
	buf  []byte
	r, w int
	// remaining bounds what the reader may still consume when the source is a fixed-size buffer;
	// -1 when unbounded (a stream).
	remaining int64
	// borrowed is set while buf is the caller's slice (NewBytesReader, ResetBytes): Reset must not
	// then read a stream into it.
	borrowed bool
	// base + r is Offset: the bytes consumed since the last Reset.
	base int64
	// hold, when set, runs before the Reader moves or overwrites bytes it has buffered (SetHold).
	hold func()
	// hinter is src when it is a ReadHinter, else nil.
	hinter ReadHinter
	// budget, while on, bounds what one block may make the client allocate (SetBudget).
	budget budget
	// small is the buffer Grow replaced, for Shrink to go back to without allocating; while
	// borrowed, the Reader's own buffer, for Reset to go back to.
	small []byte
}

// budget is a Reader's per-block allocation budget: the bytes consumed since start plus the
// charges decoders add for memory the input does not account for.
type budget struct {
	name    string // the limit's name in a LimitError's What
	max     int64  // 0: off
	start   int64  // Offset when the budget was set
	charged int64
}

// ReadHinter is implemented by a source that can be told how many bytes the reads about to
// follow wait for (internal/chconn's TCP socket, through SO_RCVLOWAT on Linux). A Reader hints
// only reads of at least hintMin bytes going straight into the caller's slice, before every
// Read of the source with the bytes still missing (never more than the read needs, so a hint
// cannot make a read wait for bytes the peer will not send), and calls HintRead(0) when the
// read is done. A source ignores hints it cannot use.
type ReadHinter interface {
	HintRead(n int)
}

// hintMin is the smallest read a Reader hints to a ReadHinter source: below it the two calls a
// hint costs are not repaid.
const hintMin = 128 << 10

// BufferSwapper is implemented by a source that can hand a Reader a whole buffer of fresh input
// instead of copying it into the Reader's (nativeproto's FrameReader, with a frame it decompressed
// ahead). When the Reader needs more input it offers its buffer and its unread bytes (keep, a
// suffix of old); a swapper that has input ready returns a buffer of the same length as old
// holding keep followed by the new input at buf[start:end] and takes old for itself. ok false
// means nothing is ready, and the Reader reads from the source as usual.
type BufferSwapper interface {
	SwapBuffer(old, keep []byte) (buf []byte, start, end int, ok bool)
}

// MinReaderSize is the smallest buffer NewReaderSize uses: every fixed-width value the package
// reads with Next or Peek fits in it.
const MinReaderSize = 16

// NewReader returns a Reader over src with a DefaultReaderSize buffer.
func NewReader(src io.Reader) *Reader { return NewReaderSize(src, DefaultReaderSize) }

// NewReaderSize returns a Reader over src with a buffer of size bytes (at least MinReaderSize).
// Values larger than the buffer are still read whole; a small buffer only costs more Read calls.
func NewReaderSize(src io.Reader, size int) *Reader {
	r := &Reader{src: src, buf: make([]byte, max(size, MinReaderSize)), remaining: -1}
	r.hinter, _ = src.(ReadHinter)
	return r
}

// NewBytesReader returns a Reader over b. The Reader reads b in place: strings returned as borrowed
// bytes point into b.
func NewBytesReader(b []byte) *Reader {
	return &Reader{buf: b, w: len(b), remaining: int64(len(b)), borrowed: true}
}

// Reset makes the Reader read from src, dropping buffered bytes. A Reader that was reading a
// caller's byte slice gets a buffer of its own: the slice is never written to.
func (r *Reader) Reset(src io.Reader) {
	r.holdOn()
	r.base = 0
	r.budget = budget{}
	r.src = src
	r.hinter, _ = src.(ReadHinter)
	r.r, r.w = 0, 0
	r.remaining = -1
	if r.borrowed && r.small != nil {
		r.buf, r.small = r.small, nil
		r.borrowed = false
	}
	if r.borrowed || len(r.buf) == 0 {
		r.buf = make([]byte, DefaultReaderSize)
		r.borrowed = false
	}
}

// ResetBytes makes the Reader read b in place. Its own buffer is kept for a later Reset, at its
// size before any Grow (a grown one goes to the spare buffers).
func (r *Reader) ResetBytes(b []byte) {
	r.holdOn()
	if !r.borrowed && len(r.buf) > 0 {
		if r.small != nil {
			spareBuffers.Put(r.buf, int64(cap(r.buf)))
			r.buf = r.small
		}
		r.small = r.buf
	}
	r.base = 0
	r.budget = budget{}
	r.src = nil
	r.hinter = nil
	r.buf = b
	r.r, r.w = 0, len(b)
	r.remaining = int64(len(b))
	r.borrowed = true
}

// Buffered returns the number of bytes read from the source and not yet consumed.
func (r *Reader) Buffered() int { return r.w - r.r }

// Offset returns the number of bytes consumed since the Reader was made or last Reset: the
// position in the stream of the first byte of [Reader.Window].
func (r *Reader) Offset() int64 { return r.base + int64(r.r) }

// Size returns the length of the Reader's buffer.
func (r *Reader) Size() int { return len(r.buf) }

// Grow makes the buffer at least n bytes long, keeping what is buffered. A larger buffer lets
// one Read of the source bring in more than one value ahead (FrameReader looks at those bytes
// for the next frame to decompress ahead).
func (r *Reader) Grow(n int) {
	if n <= len(r.buf) || r.borrowed {
		return
	}
	r.holdOn()
	nb, _ := spareBuffers.Get()
	if len(nb) != n {
		nb = make([]byte, n)
	}
	r.base += int64(r.r)
	r.w = copy(nb, r.buf[r.r:r.w])
	r.r = 0
	if r.small == nil {
		r.small = r.buf
	}
	r.buf = nb
}

// Shrink makes the buffer size bytes long again when it has grown longer and what is buffered
// fits, keeping those bytes: a connection gives back the buffer a big result grew (Grow) once
// the result has ended. A borrowed buffer (NewBytesReader) is left alone.
func (r *Reader) Shrink(size int) {
	if r.borrowed || len(r.buf) <= size || r.w-r.r > size || size < MinReaderSize {
		return
	}
	r.holdOn()
	nb := r.small
	if len(nb) != size {
		nb = make([]byte, size)
	}
	r.small = nil
	r.base += int64(r.r)
	r.w = copy(nb, r.buf[r.r:r.w])
	r.r = 0
	spareBuffers.Put(r.buf, int64(cap(r.buf)))
	r.buf = nb
}

// spareBuffers hold the buffers Shrink gave up, for the next Grow of any Reader (a connection's
// next big compressed result), under package spare's budget.
var spareBuffers = spare.New[[]byte]()

// SetHold sets a function the Reader calls before it moves, overwrites or drops bytes it has
// buffered: before compacting its buffer for a fill, in Grow and in Reset. A goroutine that reads
// a slice of [Reader.Window] while the Reader's owner goes on registers the wait for it so.
// The Reader calls hold on the owner's goroutine; nil removes it.
func (r *Reader) SetHold(hold func()) { r.hold = hold }

func (r *Reader) holdOn() {
	if r.hold != nil {
		r.hold()
	}
}

// InputLimit reports an upper bound of the bytes still readable, or -1 when the source is a stream
// of unknown length. Decoders use it to refuse counts that cannot fit the input before allocating.
func (r *Reader) InputLimit() int64 {
	if r.src == nil {
		return int64(r.w - r.r)
	}
	return -1
}

// fill reads at least one more byte into the buffer. At the end of the input it returns io.EOF
// (callers inside a value turn it into io.ErrUnexpectedEOF).
func (r *Reader) fill() error { return r.fillFor(1) }

// fillFor is fill for a caller that needs want bytes from the read position: the buffer is
// compacted first when they would not fit after it.
func (r *Reader) fillFor(want int) error {
	if r.src == nil {
		return io.EOF
	}
	if err := r.checkBudget(0); err != nil {
		return err
	}
	if sw, ok := r.src.(BufferSwapper); ok && !r.borrowed {
		if nb, start, end, ok := sw.SwapBuffer(r.buf, r.buf[r.r:r.w]); ok {
			r.base += int64(r.r - start)
			r.buf, r.r, r.w = nb, start, end
			return nil
		}
	}
	// The buffer is compacted only when its tail is short: with a large buffer, bytes read
	// ahead stay where they are until the reader reaches the end of it.
	if r.r > 0 && (r.r == r.w || len(r.buf)-r.r < want || len(r.buf)-r.w < len(r.buf)/8) {
		r.holdOn()
		n := copy(r.buf, r.buf[r.r:r.w])
		r.base += int64(r.r)
		r.r, r.w = 0, n
	}
	if r.w == len(r.buf) {
		return errors.New("columns: reader buffer full")
	}
	for i := 0; i < 100; i++ {
		n, err := r.src.Read(r.buf[r.w:])
		r.w += n
		if n > 0 {
			return nil
		}
		if err != nil {
			if err == io.EOF {
				return io.EOF
			}
			return err
		}
	}
	return io.ErrNoProgress
}

// need makes n bytes available in the buffer; n must not exceed the buffer size.
func (r *Reader) need(n int) error {
	for r.w-r.r < n {
		if r.src == nil {
			if r.w-r.r == 0 {
				return io.EOF
			}
			return io.ErrUnexpectedEOF
		}
		if n > len(r.buf) {
			return fmt.Errorf("columns: %d bytes exceed the reader buffer", n)
		}
		if err := r.fillFor(n); err != nil {
			if err == io.EOF {
				if r.w-r.r == 0 {
					return io.EOF
				}
				return io.ErrUnexpectedEOF
			}
			return err
		}
	}
	return nil
}

// Unexpected turns io.EOF into io.ErrUnexpectedEOF and returns other errors unchanged: inside a
// value the end of input is never clean. Decoders built on a Reader call it on the error of a read
// that is not the first of a value.
func Unexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// ReadFull fills p. At the very start of input with nothing read it returns io.EOF; inside p it
// returns io.ErrUnexpectedEOF.
func (r *Reader) ReadFull(p []byte) error {
	n := copy(p, r.buf[r.r:r.w])
	r.r += n
	if n == len(p) {
		return nil
	}
	if r.src == nil {
		if n == 0 && len(p) > 0 {
			return io.EOF
		}
		return io.ErrUnexpectedEOF
	}
	p = p[n:]
	// Large remainders go straight from the source into p; small ones through the buffer.
	if len(p) >= len(r.buf)/2 {
		if err := r.checkBudget(int64(len(p))); err != nil {
			return err
		}
		var m int
		var err error
		if r.hinter != nil && len(p) >= hintMin {
			m, err = r.readHinted(p)
		} else {
			m, err = io.ReadFull(r.src, p)
		}
		r.base += int64(m)
		if err != nil {
			if err == io.EOF && n == 0 && m == 0 {
				return io.EOF
			}
			return Unexpected(err)
		}
		return nil
	}
	for len(p) > 0 {
		if err := r.fill(); err != nil {
			if err == io.EOF && n == 0 {
				return io.EOF
			}
			return Unexpected(err)
		}
		m := copy(p, r.buf[r.r:r.w])
		r.r += m
		n += m
		p = p[m:]
	}
	return nil
}

// readHinted is io.ReadFull(r.src, p) telling r.hinter before each Read how many bytes are
// still missing.
func (r *Reader) readHinted(p []byte) (n int, err error) {
	for n < len(p) && err == nil {
		r.hinter.HintRead(len(p) - n)
		var m int
		m, err = r.src.Read(p[n:])
		n += m
	}
	r.hinter.HintRead(0)
	if n == len(p) {
		return n, nil
	}
	if n > 0 && err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

// Skip discards n bytes.
func (r *Reader) Skip(n int) error {
	for n > 0 {
		if r.r == r.w {
			if err := r.fill(); err != nil {
				return Unexpected(err)
			}
		}
		m := min(n, r.w-r.r)
		r.r += m
		n -= m
	}
	return nil
}

// Peek returns the next n bytes without consuming them. The slice is borrowed until the next call.
func (r *Reader) Peek(n int) ([]byte, error) {
	if err := r.need(n); err != nil {
		return nil, Unexpected(err)
	}
	return r.buf[r.r : r.r+n], nil
}

// Next consumes and returns the next n bytes (n at most the buffer size). The slice is borrowed: it
// is valid until the next call on the Reader.
func (r *Reader) Next(n int) ([]byte, error) {
	if err := r.need(n); err != nil {
		return nil, Unexpected(err)
	}
	b := r.buf[r.r : r.r+n]
	r.r += n
	return b, nil
}

// Window returns the bytes buffered and not yet consumed, without reading from the source. It
// lets a decoder parse many small values in one pass over the buffer (the String and sparse-offset
// fast paths of package columns) and then fall back to the value-at-a-time methods for the one
// value that spans the buffer's end. The slice is borrowed: it is valid until the next call that
// reads, and must not be modified. Consume k of its bytes with [Reader.Consume].
func (r *Reader) Window() []byte { return r.buf[r.r:r.w] }

// Consume marks the first n bytes of [Reader.Window] as read. n must be between 0 and
// len(Window()); Consume panics otherwise.
func (r *Reader) Consume(n int) {
	if n < 0 || n > r.w-r.r {
		panic("wire: Consume past the buffered window")
	}
	r.r += n
}

// Byte reads one byte. At the very start of the input it returns io.EOF.
func (r *Reader) Byte() (byte, error) {
	if r.r == r.w {
		if err := r.fill(); err != nil {
			return 0, err
		}
	}
	b := r.buf[r.r]
	r.r++
	return b, nil
}

// Bool reads a UInt8 that must be 0 or 1.
func (r *Reader) Bool() (bool, error) {
	b, err := r.Byte()
	if err != nil {
		return false, Unexpected(err)
	}
	if b > 1 {
		return false, fmt.Errorf("columns: bool byte %#x is neither 0 nor 1", b)
	}
	return b == 1, nil
}

// UVarInt reads an unsigned LEB128 integer. At the very start of the input it returns io.EOF.
func (r *Reader) UVarInt() (uint64, error) {
	if r.w-r.r >= binary.MaxVarintLen64 {
		v, n := binary.Uvarint(r.buf[r.r:r.w])
		if n <= 0 {
			return 0, errors.New("columns: varint overflows 64 bits")
		}
		r.r += n
		return v, nil
	}
	var v uint64
	for i := 0; i < binary.MaxVarintLen64; i++ {
		b, err := r.Byte()
		if err != nil {
			if i > 0 {
				return 0, Unexpected(err)
			}
			return 0, err
		}
		if i == binary.MaxVarintLen64-1 && b > 1 {
			return 0, errors.New("columns: varint overflows 64 bits")
		}
		v |= uint64(b&0x7f) << (7 * i)
		if b < 0x80 {
			return v, nil
		}
	}
	return 0, errors.New("columns: varint overflows 64 bits")
}

// Count reads a UVarInt count or length and checks it against max, naming what in the error.
func (r *Reader) Count(what string, max int) (int, error) {
	v, err := r.UVarInt()
	if err != nil {
		return 0, Unexpected(err)
	}
	if v > uint64(max) {
		return 0, &LimitError{What: what, Value: v, Max: uint64(max)}
	}
	return int(v), nil
}

// Uint16 reads a little-endian uint16.
func (r *Reader) Uint16() (uint16, error) {
	b, err := r.Next(2)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint16(b), nil
}

// Uint32 reads a little-endian uint32.
func (r *Reader) Uint32() (uint32, error) {
	b, err := r.Next(4)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(b), nil
}

// Int32 reads a little-endian int32.
func (r *Reader) Int32() (int32, error) {
	v, err := r.Uint32()
	return int32(v), err
}

// Uint64 reads a little-endian uint64.
func (r *Reader) Uint64() (uint64, error) {
	b, err := r.Next(8)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(b), nil
}

// Int64 reads a little-endian int64.
func (r *Reader) Int64() (int64, error) {
	v, err := r.Uint64()
	return int64(v), err
}

// Float64 reads a little-endian IEEE-754 float64.
func (r *Reader) Float64() (float64, error) {
	v, err := r.Uint64()
	return math.Float64frombits(v), err
}

// StringBytes reads a length-prefixed string of at most max bytes and appends it to dst.
func (r *Reader) StringBytes(dst []byte, what string, max int) ([]byte, error) {
	v, err := r.UVarInt()
	if err != nil {
		return dst, Unexpected(err)
	}
	if v > uint64(max) {
		return dst, &LimitError{What: what + " length", Value: v, Max: uint64(max)}
	}
	n := int(v)
	if lim := r.InputLimit(); lim >= 0 && int64(n) > lim {
		return dst, io.ErrUnexpectedEOF
	}
	// The bytes announced will count against the budget as they arrive: refuse them now, before
	// the value's buffer grows towards them.
	if err := r.checkBudget(int64(n)); err != nil {
		return dst, err
	}
	// Grow in steps bounded by what has arrived, so a huge declared length cannot allocate before
	// the bytes are there.
	for n > 0 {
		if r.r == r.w {
			if err := r.fill(); err != nil {
				return dst, Unexpected(err)
			}
		}
		m := min(n, r.w-r.r)
		dst = append(dst, r.buf[r.r:r.r+m]...)
		r.r += m
		n -= m
	}
	return dst, nil
}

// String reads a length-prefixed string of at most max bytes.
func (r *Reader) String(what string, max int) (string, error) {
	b, err := r.StringBytes(nil, what, max)
	return string(b), err
}

// Read implements io.Reader over the buffered input, so a Reader can feed another decoder (such as
// a decompressing frame reader) without losing what it has buffered.
func (r *Reader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if r.r == r.w {
		if r.src == nil {
			return 0, io.EOF
		}
		if len(p) >= len(r.buf) {
			if err := r.checkBudget(0); err != nil {
				return 0, err
			}
			n, err := r.src.Read(p)
			r.base += int64(n)
			return n, err
		}
		if err := r.fill(); err != nil {
			return 0, err
		}
	}
	n := copy(p, r.buf[r.r:r.w])
	r.r += n
	return n, nil
}

// BudgetName is the name of the per-block allocation limit in a budget's *LimitError: the DSN
// key that sets it.
const BudgetName = "block_memory_limit"

// SetBudget starts a budget of max bytes for what the input about to be read (one block) may
// make the client allocate: every byte consumed from now on counts, and so does every [Reader.Charge].
// A read that would take the total past max, or a charge that would, fails with a *LimitError
// whose What names BudgetName. max <= 0 turns the budget off ([Reader.ClearBudget]). The budget
// is checked when the Reader asks its source for more input, so the bytes consumed may pass max
// by at most one buffer before the error.
func (r *Reader) SetBudget(max int64) { r.SetNamedBudget(BudgetName, max) }

// SetNamedBudget is SetBudget for a budget whose LimitError names the limit name instead of
// BudgetName (a packet other than a block: a server exception's chain).
func (r *Reader) SetNamedBudget(name string, max int64) {
	if max <= 0 {
		r.budget = budget{}
		return
	}
	r.budget = budget{name: name, max: max, start: r.Offset()}
}

// ClearBudget turns the budget off.
func (r *Reader) ClearBudget() { r.budget = budget{} }

// budgetUsed returns the bytes the budget has counted so far (consumed plus charged), 0 when off.
func (r *Reader) budgetUsed() int64 {
	if r.budget.max == 0 {
		return 0
	}
	return r.Offset() - r.budget.start + r.budget.charged
}

// Charge adds n bytes of memory that the input read so far makes the caller allocate beyond its
// own size (a sparse column's default rows, a replicated column's repeated rows), naming what.
// Decoders call it before allocating. With no budget on it does nothing.
func (r *Reader) Charge(what string, n uint64) error {
	if r == nil || r.budget.max == 0 || n == 0 {
		return nil
	}
	used := uint64(r.budgetUsed())
	if n > uint64(r.budget.max) || used+n > uint64(r.budget.max) {
		return &LimitError{What: r.budget.name + " (" + what + ")", Value: used + n, Max: uint64(r.budget.max)}
	}
	r.budget.charged += int64(n)
	return nil
}

// checkBudget fails when the bytes consumed, the charges and n more bytes of input pass the budget.
func (r *Reader) checkBudget(n int64) error {
	if r.budget.max == 0 {
		return nil
	}
	if used := r.budgetUsed() + n; used > r.budget.max {
		return &LimitError{What: r.budget.name + " (input read)", Value: uint64(used), Max: uint64(r.budget.max)}
	}
	return nil
}
