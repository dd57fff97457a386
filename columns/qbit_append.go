package columns

import (
	"math"
	"reflect"
	"strconv"

	"github.com/chnative/chnative/qbit"
)

// Appending vectors to a QBit column: rows are staged, then transposed into bit planes a group at a time.

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
