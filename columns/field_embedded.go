package columns

import (
	"math/big"
	"math/bits"
	"reflect"
	"time"

	"github.com/chnative/chnative/internal/fieldslice"
)

// The column types below embed Fixed[T] for their storage, and would otherwise inherit its
// FieldCopyFunc and FieldAppendFunc: a Date would copy its day numbers into uint16 fields, a
// Bool append uint8 fields unchecked. Each says here what it does instead (nil: no fast path,
// struct mapping goes through Value and AppendValue). A new type embedding Fixed[T] belongs in
// this file too (TestFieldFastPathsOfEmbedders lists them).

// FieldCopyFunc returns nil: Bool has no fast path into fields.
func (c *Bool) FieldCopyFunc(reflect.Type) FieldCopyFunc { return nil }

// FieldCopyFunc returns nil: BFloat16 has no fast path into fields.
func (c *BFloat16) FieldCopyFunc(reflect.Type) FieldCopyFunc { return nil }

// FieldCopyFunc returns nil: Date32 has no fast path into fields.
func (c *Date32) FieldCopyFunc(reflect.Type) FieldCopyFunc { return nil }

// FieldCopyFunc returns nil: DateTime64 has no fast path into fields.
func (c *DateTime64) FieldCopyFunc(reflect.Type) FieldCopyFunc { return nil }

// FieldCopyFunc sets Decimal fields (only: not int32 ones, as Fixed[int32] would).
func (c *Decimal32) FieldCopyFunc(ft reflect.Type) FieldCopyFunc {
	if ft != decimalFieldType {
		return nil
	}
	return func(col Column, dst fieldslice.Slice, n int) error {
		d := col.(*Decimal32)
		copyDecimals(d.Values()[:n], d.scale, dst)
		return nil
	}
}

// FieldCopyFunc sets Decimal fields (only: not int64 ones, as Fixed[int64] would).
func (c *Decimal64) FieldCopyFunc(ft reflect.Type) FieldCopyFunc {
	if ft != decimalFieldType {
		return nil
	}
	return func(col Column, dst fieldslice.Slice, n int) error {
		d := col.(*Decimal64)
		copyDecimals(d.Values()[:n], d.scale, dst)
		return nil
	}
}

var decimalFieldType = reflect.TypeFor[Decimal]()

// copyDecimals stores v as Decimals of scale into dst. The big.Ints and their words are
// allocated once for the call (never reused: they belong to the caller), not once per value.
func copyDecimals[T int32 | int64](v []T, scale int, dst fieldslice.Slice) {
	ints := make([]big.Int, len(v))
	var words []big.Word
	if bits.UintSize == 64 {
		words = make([]big.Word, len(v))
	}
	for i, x := range v {
		u := &ints[i]
		switch {
		case x == 0:
		case words != nil:
			m := uint64(x)
			if x < 0 {
				m = -m
			}
			words[i] = big.Word(m)
			u.SetBits(words[i : i+1 : i+1])
			if x < 0 {
				u.Neg(u)
			}
		default:
			u.SetInt64(int64(x))
		}
		fieldslice.Set(dst, i, Decimal{Unscaled: u, Scale: scale})
	}
}

// FieldCopyFunc returns nil: Interval has no fast path into fields.
func (c *Interval) FieldCopyFunc(reflect.Type) FieldCopyFunc { return nil }

// FieldCopyFunc returns nil: Time64 has no fast path into fields.
func (c *Time64) FieldCopyFunc(reflect.Type) FieldCopyFunc { return nil }

// FieldCopyFunc returns nil: IPv4 has no fast path into fields.
func (c *IPv4) FieldCopyFunc(reflect.Type) FieldCopyFunc { return nil }

// FieldAppendFunc returns nil: Bool fields go through AppendValue.
func (c *Bool) FieldAppendFunc(reflect.Type) FieldAppendFunc { return nil }

// FieldAppendFunc returns nil: BFloat16 fields go through AppendValue.
func (c *BFloat16) FieldAppendFunc(reflect.Type) FieldAppendFunc { return nil }

// FieldAppendFunc returns nil: Date32 fields go through AppendValue.
func (c *Date32) FieldAppendFunc(reflect.Type) FieldAppendFunc { return nil }

// FieldAppendFunc returns nil: Date fields go through AppendValue.
func (c *Date) FieldAppendFunc(reflect.Type) FieldAppendFunc { return nil }

// FieldAppendFunc returns nil: DateTime fields go through AppendValue.
func (c *DateTime) FieldAppendFunc(reflect.Type) FieldAppendFunc { return nil }

// FieldAppendFunc appends time.Time fields as AppendTime does (no boxing); others go through
// AppendValue.
func (c *DateTime64) FieldAppendFunc(ft reflect.Type) FieldAppendFunc {
	if ft != reflect.TypeFor[time.Time]() {
		return nil
	}
	return appendTimeFields
}

func appendTimeFields(col Column, src fieldslice.Slice, n int) (int, error) {
	c := col.(*DateTime64)
	for i := 0; i < n; i++ {
		if err := c.AppendTime(fieldslice.Get[time.Time](src, i)); err != nil {
			return i, err
		}
	}
	return n, nil
}

// FieldAppendFunc returns nil: Decimal32 fields go through AppendValue.
func (c *Decimal32) FieldAppendFunc(reflect.Type) FieldAppendFunc { return nil }

// FieldAppendFunc returns nil: Decimal64 fields go through AppendValue.
func (c *Decimal64) FieldAppendFunc(reflect.Type) FieldAppendFunc { return nil }

// FieldAppendFunc returns nil: Enum fields go through AppendValue.
func (c *Enum[T]) FieldAppendFunc(reflect.Type) FieldAppendFunc { return nil }

// FieldAppendFunc returns nil: Interval fields go through AppendValue.
func (c *Interval) FieldAppendFunc(reflect.Type) FieldAppendFunc { return nil }

// FieldAppendFunc returns nil: Time64 fields go through AppendValue.
func (c *Time64) FieldAppendFunc(reflect.Type) FieldAppendFunc { return nil }

// FieldAppendFunc returns nil: IPv4 fields go through AppendValue.
func (c *IPv4) FieldAppendFunc(reflect.Type) FieldAppendFunc { return nil }
