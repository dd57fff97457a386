package columns

import (
	"reflect"
	"strconv"
)

// Bool is a column of Bool: one byte per value, 0 for false and 1 for true (a decoded non-zero byte
// reads as true and is written back unchanged). Values returns the raw bytes (borrowed).
type Bool struct{ Fixed[uint8] }

// NewBool returns an empty Bool column.
func NewBool() *Bool { return &Bool{Fixed[uint8]{name: "Bool"}} }

// Append appends b.
func (c *Bool) Append(b bool) {
	var x uint8
	if b {
		x = 1
	}
	c.data = append(c.data, x)
}

// Row returns value i.
func (c *Bool) Row(i int) bool { return c.data[i] != 0 }

// Value returns row i as a bool.
func (c *Bool) Value(i int) any { return c.data[i] != 0 }

// ScanType returns bool.
func (c *Bool) ScanType() reflect.Type { return reflect.TypeFor[bool]() }

func (c *Bool) sliceValue(lo, hi int) any {
	out := make([]bool, hi-lo)
	for j, x := range c.data[lo:hi] {
		out[j] = x != 0
	}
	return out
}

// AppendValue appends a bool, an integer or integral float that is 0 or 1, or a string that
// strconv.ParseBool accepts ("true", "false", "1", "0", ...).
func (c *Bool) AppendValue(v any) error {
	if b, ok := v.(bool); ok {
		c.Append(b)
		return nil
	}
	x, isNil, err := deref(v)
	if err != nil {
		return err
	}
	if isNil {
		return mismatch(c, nil, "NULL in a non-Nullable column")
	}
	if s, ok := x.(string); ok {
		b, err := strconv.ParseBool(s)
		if err != nil {
			return mismatch(c, v, textReason(v, s, "a boolean"))
		}
		c.Append(b)
		return nil
	}
	i, u, f, kind := numOf(x)
	switch {
	case kind == 'i' && (i == 0 || i == 1):
		c.Append(i == 1)
	case kind == 'u' && u <= 1:
		c.Append(u == 1)
	case kind == 'f' && (f == 0 || f == 1):
		c.Append(f == 1)
	case kind == 0:
		return mismatch(c, v, "")
	default:
		return mismatch(c, v, "not 0 or 1")
	}
	return nil
}
