package columns

import (
	"math"
	"reflect"
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

// encodeGroups writes the body of the rows of src (row-major, d elements each) with stride s.
func encodeGroups[T any](dst []byte, src []T, d, s, w int, tr func([]byte, []T, int)) {
	rows := len(src) / d
	if rows == 0 {
		return
	}
	if s == d {
		tr(dst, src, d)
		return
	}
	gsize := qbit.Size(rows, s, w)
	tmp := make([]T, rows*s)
	for g := 0; g < d/s; g++ {
		for r := 0; r < rows; r++ {
			copy(tmp[r*s:(r+1)*s], src[r*d+g*s:])
		}
		tr(dst[g*gsize:(g+1)*gsize], tmp, s)
	}
}

// decodeGroups decodes the body src of len(dst)/d rows with stride s into dst (row-major).
func decodeGroups[T any](dst []T, src []byte, d, s, w int, de func([]T, []byte, int)) {
	rows := len(dst) / d
	if rows == 0 {
		return
	}
	if s == d {
		de(dst, src, d)
		return
	}
	gsize := qbit.Size(rows, s, w)
	tmp := make([]T, rows*s)
	for g := 0; g < d/s; g++ {
		de(tmp, src[g*gsize:(g+1)*gsize], s)
		for r := 0; r < rows; r++ {
			copy(dst[r*d+g*s:r*d+(g+1)*s], tmp[r*s:])
		}
	}
}

// rowBody gathers decoded row i's bytes of every plane into c.rowBuf, laid out as the body of G
// rows of dimension S (so that one Detranspose with dim S yields the D elements in order).
func (c *QBit) rowBody(i int) []byte {
	g, w, b := c.groups, c.w, c.b
	need := w * g * b
	if cap(c.rowBuf) < need {
		c.rowBuf = make([]byte, need)
	}
	buf := c.rowBuf[:need]
	pl := c.planeLen()
	for gi := 0; gi < g; gi++ {
		for k := 0; k < w; k++ {
			src := (gi*w+k)*pl + i*b
			copy(buf[(k*g+gi)*b:(k*g+gi+1)*b], c.body[src:src+b])
		}
	}
	return buf
}

func (c *QBit) checkRow(i int) {
	if i < 0 || i >= c.Rows() {
		panic("columns: QBit: row " + strconv.Itoa(i) + " out of range [0, " + strconv.Itoa(c.Rows()) + ")")
	}
}

func grow[T any](dst []T, n int) []T {
	if cap(dst) < n {
		return make([]T, n)
	}
	return dst[:n]
}

// RowFloat32 returns row i as float32 values in dst's memory (reallocated when cap(dst) < D),
// detransposing it from the planes. It works on Float32 columns, and on BFloat16 and Int8 columns
// (exact widening); it panics on a Float64 column (use RowFloat64).
func (c *QBit) RowFloat32(i int, dst []float32) []float32 {
	c.checkRow(i)
	dst = grow(dst, c.dim)
	switch c.w {
	case 32:
		if i >= c.nt {
			copy(dst, c.f32[(i-c.nt)*c.dim:])
			return dst
		}
		qbit.DetransposeFloat32(dst, c.rowBody(i), c.stride)
	case 16:
		c.bfRow = c.RowBFloat16(i, c.bfRow)
		for j, x := range c.bfRow {
			dst[j] = math.Float32frombits(uint32(x) << 16)
		}
	case 8:
		c.i8Row = c.RowInt8(i, c.i8Row)
		for j, x := range c.i8Row {
			dst[j] = float32(x)
		}
	default:
		panic("columns: QBit.RowFloat32 on " + c.Type() + ": use RowFloat64")
	}
	return dst
}

// RowFloat64 returns row i as float64 values in dst's memory (reallocated when cap(dst) < D). It
// works on every element type; Float32 and BFloat16 values are widened exactly (NaN payloads are
// bit-exact only through RowFloat32/RowBFloat16).
func (c *QBit) RowFloat64(i int, dst []float64) []float64 {
	c.checkRow(i)
	dst = grow(dst, c.dim)
	switch c.w {
	case 64:
		if i >= c.nt {
			copy(dst, c.f64[(i-c.nt)*c.dim:])
			return dst
		}
		qbit.DetransposeFloat64(dst, c.rowBody(i), c.stride)
	default:
		f := c.RowFloat32(i, nil)
		for j, x := range f {
			dst[j] = float64(x)
		}
	}
	return dst
}

// RowBFloat16 returns row i of a BFloat16 column as raw bfloat16 bit patterns in dst's memory
// (reallocated when cap(dst) < D). It panics on other element types.
func (c *QBit) RowBFloat16(i int, dst []uint16) []uint16 {
	c.checkRow(i)
	if c.w != 16 {
		panic("columns: QBit.RowBFloat16 on " + c.Type())
	}
	dst = grow(dst, c.dim)
	if i >= c.nt {
		copy(dst, c.bf16[(i-c.nt)*c.dim:])
		return dst
	}
	qbit.DetransposeBFloat16(dst, c.rowBody(i), c.stride)
	return dst
}

// RowInt8 returns row i of an Int8 column in dst's memory (reallocated when cap(dst) < D). It
// panics on other element types.
func (c *QBit) RowInt8(i int, dst []int8) []int8 {
	c.checkRow(i)
	if c.w != 8 {
		panic("columns: QBit.RowInt8 on " + c.Type())
	}
	dst = grow(dst, c.dim)
	if i >= c.nt {
		copy(dst, c.i8[(i-c.nt)*c.dim:])
		return dst
	}
	qbit.DetransposeInt8(dst, c.rowBody(i), c.stride)
	return dst
}

// Float32s returns every row of a Float32 column, row-major (Rows()·D values), in dst's memory
// (reallocated when too small), detransposing the whole column at once. It panics on other
// element types.
func (c *QBit) Float32s(dst []float32) []float32 {
	if c.w != 32 {
		panic("columns: QBit.Float32s on " + c.Type())
	}
	dst = grow(dst, c.Rows()*c.dim)
	decodeGroups(dst[:c.nt*c.dim], c.body, c.dim, c.stride, c.w, qbit.DetransposeFloat32)
	copy(dst[c.nt*c.dim:], c.f32)
	return dst
}

// Float64s is Float32s for a Float64 column.
func (c *QBit) Float64s(dst []float64) []float64 {
	if c.w != 64 {
		panic("columns: QBit.Float64s on " + c.Type())
	}
	dst = grow(dst, c.Rows()*c.dim)
	decodeGroups(dst[:c.nt*c.dim], c.body, c.dim, c.stride, c.w, qbit.DetransposeFloat64)
	copy(dst[c.nt*c.dim:], c.f64)
	return dst
}

// BFloat16s is Float32s for a BFloat16 column (raw bfloat16 bit patterns).
func (c *QBit) BFloat16s(dst []uint16) []uint16 {
	if c.w != 16 {
		panic("columns: QBit.BFloat16s on " + c.Type())
	}
	dst = grow(dst, c.Rows()*c.dim)
	decodeGroups(dst[:c.nt*c.dim], c.body, c.dim, c.stride, c.w, qbit.DetransposeBFloat16)
	copy(dst[c.nt*c.dim:], c.bf16)
	return dst
}

// Int8s is Float32s for an Int8 column.
func (c *QBit) Int8s(dst []int8) []int8 {
	if c.w != 8 {
		panic("columns: QBit.Int8s on " + c.Type())
	}
	dst = grow(dst, c.Rows()*c.dim)
	decodeGroups(dst[:c.nt*c.dim], c.body, c.dim, c.stride, c.w, qbit.DetransposeInt8)
	copy(dst[c.nt*c.dim:], c.i8)
	return dst
}

// Value returns row i in a new slice: []float32 (Float32), []float64 (Float64), []uint16 (BFloat16,
// raw bit patterns) or []int8 (Int8).
func (c *QBit) Value(i int) any {
	switch c.w {
	case 32:
		return c.RowFloat32(i, nil)
	case 64:
		return c.RowFloat64(i, nil)
	case 16:
		return c.RowFloat32(i, nil) // widened exactly, as a BFloat16 column's values are
	}
	return c.RowInt8(i, nil)
}

// ScanType returns []float32 (Float32 and BFloat16), []float64 or []int8. RowBFloat16 gives the
// raw bfloat16 bits.
func (c *QBit) ScanType() reflect.Type {
	switch c.w {
	case 32:
		return reflect.TypeFor[[]float32]()
	case 64:
		return reflect.TypeFor[[]float64]()
	case 16:
		return reflect.TypeFor[[]float32]()
	}
	return reflect.TypeFor[[]int8]()
}

func (c *QBit) lenErr(goType string, n int) error {
	return &TypeMismatchError{Column: c.Type(), GoType: goType,
		Reason: "vector of " + strconv.Itoa(n) + " elements, want " + strconv.Itoa(c.dim)}
}

func (c *QBit) typeErr(goType string) error {
	return &TypeMismatchError{Column: c.Type(), GoType: goType}
}

// AppendFloat32 appends a row of D float32 values: exact for Float32 and Float64 columns,
// truncated to bfloat16 (as the server's CAST) for BFloat16; an error for Int8.
func (c *QBit) AppendFloat32(row []float32) error {
	if len(row) != c.dim {
		return c.lenErr("[]float32", len(row))
	}
	switch c.w {
	case 32:
		c.f32 = append(c.f32, row...)
	case 64:
		for _, x := range row {
			c.f64 = append(c.f64, float64(x))
		}
	case 16:
		for _, x := range row {
			c.bf16 = append(c.bf16, uint16(math.Float32bits(x)>>16))
		}
	default:
		return c.typeErr("[]float32")
	}
	return nil
}

// AppendFloat64 appends a row of D float64 values: exact for Float64; rounded to the nearest
// float32 for Float32 (an error when a finite value overflows float32); rounded to float32 and then
// truncated to bfloat16 for BFloat16 (as the server's CAST); an error for Int8.
func (c *QBit) AppendFloat64(row []float64) error {
	if len(row) != c.dim {
		return c.lenErr("[]float64", len(row))
	}
	switch c.w {
	case 64:
		c.f64 = append(c.f64, row...)
		return nil
	case 8:
		return c.typeErr("[]float64")
	}
	for _, x := range row {
		if !math.IsInf(x, 0) && !math.IsNaN(x) && math.Abs(x) > math.MaxFloat32 {
			return &TypeMismatchError{Column: c.Type(), GoType: "[]float64", Reason: "value out of range"}
		}
	}
	if c.w == 32 {
		for _, x := range row {
			c.f32 = append(c.f32, float32(x))
		}
	} else {
		for _, x := range row {
			c.bf16 = append(c.bf16, uint16(math.Float32bits(float32(x))>>16))
		}
	}
	return nil
}

// AppendBFloat16 appends a row of D raw bfloat16 bit patterns: as is for BFloat16, widened exactly
// for Float32 and Float64; an error for Int8.
func (c *QBit) AppendBFloat16(row []uint16) error {
	if len(row) != c.dim {
		return c.lenErr("[]uint16", len(row))
	}
	switch c.w {
	case 16:
		c.bf16 = append(c.bf16, row...)
	case 32:
		for _, x := range row {
			c.f32 = append(c.f32, math.Float32frombits(uint32(x)<<16))
		}
	case 64:
		for _, x := range row {
			c.f64 = append(c.f64, float64(math.Float32frombits(uint32(x)<<16)))
		}
	default:
		return c.typeErr("[]uint16")
	}
	return nil
}

// AppendInt8 appends a row of D int8 values to an Int8 column (an error for other element types).
func (c *QBit) AppendInt8(row []int8) error {
	if len(row) != c.dim {
		return c.lenErr("[]int8", len(row))
	}
	if c.w != 8 {
		return c.typeErr("[]int8")
	}
	c.i8 = append(c.i8, row...)
	return nil
}

// AppendValue appends a []float32, []float64, []uint16 (raw bfloat16 bits), []int8, a named type
// or an array of those element types, or a pointer to one; see the type's table for conversions.
func (c *QBit) AppendValue(v any) error {
	v, isNil, err := deref(v)
	if err != nil {
		return err
	}
	if isNil {
		return mismatch(c, nil, "NULL in a non-Nullable column")
	}
	switch x := v.(type) {
	case []float32:
		return c.AppendFloat32(x)
	case []float64:
		return c.AppendFloat64(x)
	case []uint16:
		return c.AppendBFloat16(x)
	case []int8:
		return c.AppendInt8(x)
	}
	rv := reflect.ValueOf(v)
	if k := rv.Kind(); k != reflect.Slice && k != reflect.Array {
		return mismatch(c, v, "")
	}
	n := rv.Len()
	var conv any
	switch rv.Type().Elem().Kind() {
	case reflect.Float32:
		conv = make([]float32, n)
	case reflect.Float64:
		conv = make([]float64, n)
	case reflect.Uint16:
		conv = make([]uint16, n)
	case reflect.Int8:
		conv = make([]int8, n)
	default:
		return mismatch(c, v, "")
	}
	cv := reflect.ValueOf(conv)
	for j := 0; j < n; j++ {
		cv.Index(j).Set(rv.Index(j).Convert(cv.Type().Elem()))
	}
	if err := c.AppendValue(conv); err != nil {
		if tm, ok := err.(*TypeMismatchError); ok {
			tm.GoType = goTypeName(v)
		}
		return err
	}
	return nil
}

// AppendDefault appends the zero vector.
func (c *QBit) AppendDefault() {
	switch c.w {
	case 32:
		c.f32 = append(c.f32, make([]float32, c.dim)...)
	case 64:
		c.f64 = append(c.f64, make([]float64, c.dim)...)
	case 16:
		c.bf16 = append(c.bf16, make([]uint16, c.dim)...)
	default:
		c.i8 = append(c.i8, make([]int8, c.dim)...)
	}
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
