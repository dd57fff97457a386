package columns

import (
	"slices"
	"strconv"

	"github.com/chnative/chnative/qbit"
)

// QBit is a column of QBit(T, D) or the strided QBit(T, D, S): vectors of D elements of type T
// (BFloat16, Float32, Float64 or Int8) stored as bit planes.
//
// # Layout
//
// With W = bits(T), S the stride (D when the type has none), G = D/S stride groups and
// B = ceil(S/8), the Native body of N rows is P = W·G planes, plane t = g·W + k holding bit W-1-k
// (k = 0 is the sign bit) of the elements of stride group g. Each plane is N row bitmaps of B bytes
// (rows contiguous within a plane, planes contiguous), so the body is P·N·B bytes. Inside a row
// bitmap element li of the group is in byte B-1-li/8 at bit li%8 (see package qbit). The server accepts a stride S != D only when S%8 == 0,
// S divides D and G <= 1024; a stride equal to D is the unstrided type and is printed without it.
//
// # Decoded data stays transposed
//
// Read keeps the planes as the wire carries them (one copy of the body, no transposition).
// [QBit.Plane] returns a plane without copying, the Row methods detranspose one row on demand and
// the bulk methods ([QBit.Float32s], ...) a whole column. Write of decoded rows writes their planes
// unchanged, so re-inserting a decoded column costs one copy per plane. Padding bits (the top
// 8B-D bits of byte 0 of every row bitmap when D%8 != 0) are cleared by Read, so a column never
// writes non-zero padding, whatever it decoded.
//
// # Appending
//
// Appended rows are kept untransposed in a staging slice of the element type and transposed in
// blocks by Write with the qbit kernels (a 1024×1024 Float32 block transposes in about 2 ms).
// Plane, and Write of a column holding both decoded and appended rows, transpose the staged rows;
// Plane then keeps the result (the column becomes fully transposed again).
//
// # Element types in Go
//
//	T         Value / ScanType  AppendValue / AppendX accepts
//	--------  ----------------  -------------------------------------------------------------
//	Float32   []float32         []float32 (exact), []float64 (rounded to nearest; error when a
//	                            finite value overflows float32), []uint16 bfloat16 bits (exact)
//	Float64   []float64         []float64, []float32, []uint16 bfloat16 bits (all exact)
//	BFloat16  []uint16          []uint16: raw bfloat16 bit patterns (the top 16 bits of a float32);
//	          (raw bits)        []float32 and []float64 are truncated as the server's CAST does
//	                            (uint16(math.Float32bits(float32(x)) >> 16))
//	Int8      []int8            []int8
//
// Every appended slice must hold exactly D elements. Named slice types and arrays of these element
// types are accepted too. Float bit patterns (NaN payloads, -0, infinities, denormals) are kept
// exactly wherever no conversion happens.
//
// A QBit column is not safe for concurrent use, including concurrent reads: the Row methods use a
// scratch buffer of the column.
type QBit struct {
	elem   string // "BFloat16", "Float32", "Float64" or "Int8"
	dim    int    // D
	stride int    // S (== dim when unstrided)
	w      int    // bits per element
	groups int    // G = D/S
	b      int    // bytes per row per plane: ceil(S/8)
	pad    byte   // mask of the non-padding bits of byte 0 of a row bitmap (0xFF: no padding)

	body []byte // planes of the decoded (transposed) rows
	nt   int    // rows in body

	// staged rows, row-major, untransposed; only the slice of the element type is used.
	f32  []float32
	f64  []float64
	bf16 []uint16
	i8   []int8

	rowBuf []byte   // Row scratch: one row's bytes of every plane
	bfRow  []uint16 // RowFloat32 scratch (BFloat16)
	i8Row  []int8   // RowFloat32 scratch (Int8)
	tmp    []byte   // Write/Plane scratch: the transposed staged rows
}

// MaxQBitGroups is the most stride groups (D/S) the server allows.
const MaxQBitGroups = 1024

// NewQBit returns an empty column of QBit(elem, dim) (stride 0 or equal to dim) or of the strided
// QBit(elem, dim, stride). elem is "BFloat16", "Float32", "Float64" or "Int8". The parameters are
// checked as the server checks them.
func NewQBit(elem string, dim, stride int) (*QBit, error) {
	c := &QBit{elem: elem, dim: dim, stride: stride}
	name := func() string {
		s := "QBit(" + elem + ", " + strconv.Itoa(dim)
		if stride != 0 && stride != dim {
			s += ", " + strconv.Itoa(stride)
		}
		return s + ")"
	}
	bad := func(reason string) error { return &UnsupportedTypeError{Type: name(), Reason: reason} }
	switch elem {
	case "BFloat16":
		c.w = 16
	case "Float32":
		c.w = 32
	case "Float64":
		c.w = 64
	case "Int8":
		c.w = 8
	default:
		return nil, bad("element type must be BFloat16, Float32, Float64 or Int8")
	}
	if dim <= 0 || dim > 8*MaxFixedStringSize {
		return nil, bad("dimension must be 1.." + strconv.Itoa(8*MaxFixedStringSize))
	}
	if stride == 0 {
		c.stride = dim
	}
	if c.stride < 0 || c.stride > dim || dim%c.stride != 0 {
		return nil, bad("stride must divide the dimension")
	}
	if c.stride != dim && c.stride%8 != 0 {
		return nil, bad("a stride smaller than the dimension must be a multiple of 8")
	}
	c.groups = dim / c.stride
	if c.groups > MaxQBitGroups {
		return nil, bad("more than " + strconv.Itoa(MaxQBitGroups) + " stride groups")
	}
	c.b = (c.stride + 7) / 8
	c.pad = 0xFF
	if r := c.stride % 8; r != 0 {
		c.pad = byte(1)<<r - 1
	}
	return c, nil
}

// Type returns "QBit(T, D)" or, when strided, "QBit(T, D, S)".
func (c *QBit) Type() string {
	s := "QBit(" + c.elem + ", " + strconv.Itoa(c.dim)
	if c.stride != c.dim {
		s += ", " + strconv.Itoa(c.stride)
	}
	return s + ")"
}

// Elem returns the element type name: "BFloat16", "Float32", "Float64" or "Int8".
func (c *QBit) Elem() string { return c.elem }

// Dim returns D, the number of elements of a vector.
func (c *QBit) Dim() int { return c.dim }

// Stride returns S (D for an unstrided type).
func (c *QBit) Stride() int { return c.stride }

// Bits returns W, the bits of an element (16, 32, 64 or 8): the planes per stride group.
func (c *QBit) Bits() int { return c.w }

// Groups returns G = D/S, the number of stride groups (1 for an unstrided type).
func (c *QBit) Groups() int { return c.groups }

// NumPlanes returns W·G, the number of planes (tuple elements on the wire).
func (c *QBit) NumPlanes() int { return c.w * c.groups }

// RowBytes returns B = ceil(S/8), the bytes of one row in one plane.
func (c *QBit) RowBytes() int { return c.b }

// Rows returns the number of values.
func (c *QBit) Rows() int { return c.nt + c.staged() }

func (c *QBit) staged() int {
	switch c.w {
	case 32:
		return len(c.f32) / c.dim
	case 64:
		return len(c.f64) / c.dim
	case 16:
		return len(c.bf16) / c.dim
	}
	return len(c.i8) / c.dim
}

// planeLen is the bytes of one plane of the decoded rows.
func (c *QBit) planeLen() int { return c.nt * c.b }

// Plane returns plane t (0 <= t < NumPlanes()): Rows() row bitmaps of RowBytes() bytes. Plane
// t = g·W + k holds bit W-1-k of the elements of stride group g (t = 0 is the sign plane of an
// unstrided column). It is the tuple element t+1 of the wire type, i.e. the server's subcolumn
// v.(t+1).
//
// The slice is borrowed from the column (no copy). When rows were appended since the last Read,
// Plane first transposes them into the column's planes (once; O(Rows) work).
func (c *QBit) Plane(t int) []byte {
	if t < 0 || t >= c.NumPlanes() {
		panic("columns: QBit.Plane: plane " + strconv.Itoa(t) + " out of range")
	}
	if c.staged() > 0 {
		c.flush()
	}
	n := c.planeLen()
	return c.body[t*n : (t+1)*n : (t+1)*n]
}

// flush transposes the staged rows into the planes.
func (c *QBit) flush() {
	ns := c.staged()
	p := c.NumPlanes()
	oldLen, newLen := c.planeLen(), ns*c.b
	stagedBody := c.transposeStaged(c.tmp[:0])
	body := make([]byte, p*(oldLen+newLen))
	for t := 0; t < p; t++ {
		o := t * (oldLen + newLen)
		copy(body[o:], c.body[t*oldLen:(t+1)*oldLen])
		copy(body[o+oldLen:], stagedBody[t*newLen:(t+1)*newLen])
	}
	c.tmp = stagedBody[:0]
	c.body = body
	c.nt += ns
	c.clearStaged()
}

func (c *QBit) clearStaged() {
	c.f32, c.f64, c.bf16, c.i8 = c.f32[:0], c.f64[:0], c.bf16[:0], c.i8[:0]
}

// transposeStaged appends the body of the staged rows to dst.
func (c *QBit) transposeStaged(dst []byte) []byte {
	ns := c.staged()
	size := c.NumPlanes() * ns * c.b
	n := len(dst)
	dst = slices.Grow(dst, size)[:n+size]
	out := dst[n:]
	switch c.w {
	case 32:
		encodeGroups(out, c.f32, c.dim, c.stride, c.w, qbit.TransposeFloat32)
	case 64:
		encodeGroups(out, c.f64, c.dim, c.stride, c.w, qbit.TransposeFloat64)
	case 16:
		encodeGroups(out, c.bf16, c.dim, c.stride, c.w, qbit.TransposeBFloat16)
	default:
		encodeGroups(out, c.i8, c.dim, c.stride, c.w, qbit.TransposeInt8)
	}
	return dst
}

// Truncate keeps the first n values. Truncating into the decoded rows moves the planes together
// (O(n) copying).
func (c *QBit) Truncate(n int) {
	if n >= c.nt {
		k := (n - c.nt) * c.dim
		c.f32, c.f64, c.bf16, c.i8 = c.f32[:min(k, len(c.f32))], c.f64[:min(k, len(c.f64))],
			c.bf16[:min(k, len(c.bf16))], c.i8[:min(k, len(c.i8))]
		return
	}
	old, nl := c.planeLen(), n*c.b
	for t := 1; t < c.NumPlanes(); t++ {
		copy(c.body[t*nl:(t+1)*nl], c.body[t*old:])
	}
	c.body = c.body[:c.NumPlanes()*nl]
	c.nt = n
	c.clearStaged()
}

// Reset removes all values.
func (c *QBit) Reset() {
	c.body = c.body[:0]
	c.nt = 0
	c.clearStaged()
}

// ReadPrefix reads nothing.
func (c *QBit) ReadPrefix(*Reader) error { return nil }

// WritePrefix writes nothing.
func (c *QBit) WritePrefix(*Writer) {}

// Read replaces the values with rows vectors from r, kept transposed. Padding bits are cleared.
func (c *QBit) Read(r *Reader, rows int) error {
	c.Reset()
	if err := checkRows(c, rows); err != nil {
		return err
	}
	per := c.NumPlanes() * c.b // bytes per row
	if rows > (1<<40)/per {
		return decodeErr(c, "%d rows are too many", rows)
	}
	var err error
	c.body, err = readFixed(r, c.body[:0], rows*per)
	if err != nil {
		c.body = c.body[:0]
		return decodeErr(c, "%v", err)
	}
	c.nt = rows
	if c.pad != 0xFF {
		for o := 0; o < len(c.body); o += c.b {
			c.body[o] &= c.pad
		}
	}
	return nil
}

// Write appends the body: decoded planes unchanged, appended rows transposed.
func (c *QBit) Write(w *Writer) {
	ns := c.staged()
	if ns == 0 {
		w.Buf = append(w.Buf, c.body...)
		return
	}
	if c.nt == 0 {
		w.Buf = c.transposeStaged(w.Buf)
		return
	}
	c.tmp = c.transposeStaged(c.tmp[:0])
	old, nl := c.planeLen(), ns*c.b
	for t := 0; t < c.NumPlanes(); t++ {
		w.Buf = append(w.Buf, c.body[t*old:(t+1)*old]...)
		w.Buf = append(w.Buf, c.tmp[t*nl:(t+1)*nl]...)
	}
}

// newQBit makes a column for a parsed QBit(T, D) or QBit(T, D, S).
func newQBit(n *TypeNode) (Column, error) {
	if len(n.Args) != 2 && len(n.Args) != 3 {
		return nil, unsupported(n, "want QBit(T, dimension) or QBit(T, dimension, stride)")
	}
	a := n.Args[0]
	if a.Kind != ArgType || a.Field != "" || a.Type.Args != nil {
		return nil, unsupported(n, "the element type must be BFloat16, Float32, Float64 or Int8")
	}
	nums := make([]int, len(n.Args)-1)
	for i, a := range n.Args[1:] {
		if a.Kind != ArgNumber {
			return nil, unsupported(n, "argument %d is not a number", i+2)
		}
		v, err := strconv.Atoi(a.Number)
		if err != nil || v <= 0 || v > 8*MaxFixedStringSize {
			return nil, unsupported(n, "argument %d is not a positive integer up to %d", i+2, 8*MaxFixedStringSize)
		}
		nums[i] = v
	}
	stride := 0
	if len(nums) == 2 {
		stride = nums[1]
	}
	c, err := NewQBit(a.Type.Name, nums[0], stride)
	if err != nil {
		return nil, err
	}
	return c, nil
}
