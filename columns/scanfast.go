package columns

import (
	"bytes"
	"time"
)

// Scanning without boxing (Go 1.27's ScanColumn): a column whose values go straight into common
// destinations implements fastScanner, and the driver asks [ScanFast] before it boxes a value for
// database/sql's conversions. Each answer is the value database/sql would store from SQLValue,
// without the interface. (Strings scanned into *string are the driver's: it copies their text a
// window at a time so that they do not alias the column.)

// fastScanner is a column that stores some destinations straight from its memory. outer is the
// column asked (see exact).
type fastScanner interface {
	scanFast(outer Column, i int, dest any) bool
}

// ScanFast stores row i of c into dest, reporting false, with dest untouched, when c has no fast
// path to dest's type (the caller then converts as usual: ScanValue, then database/sql's
// conversion of SQLValue). It handles, as database/sql would store them:
//
//	UInt64 into *uint64, and *int64 when it fits; Int64 into *int64 and *int; UInt32 into
//	*uint32, *int64 and *uint64; Int32 into *int32, *int64 and *int; Float64 into *float64;
//	Float32 into *float32 (not *float64: database/sql gives the float64 nearest the float32's
//	shortest text); String into *[]byte (a copy of its own); DateTime into *time.Time.
func ScanFast(c Column, i int, dest any) bool {
	if s, ok := c.(fastScanner); ok {
		return s.scanFast(c, i, dest)
	}
	return false
}

func (c *Fixed[T]) scanFast(outer Column, i int, dest any) bool {
	if !c.exact(outer) {
		return false
	}
	switch p := any(c).(type) {
	case *UInt64:
		v := p.data[i]
		switch d := dest.(type) {
		case *uint64:
			*d = v
			return true
		case *int64:
			if v <= 1<<63-1 {
				*d = int64(v)
				return true
			}
		}
	case *Int64:
		v := p.data[i]
		switch d := dest.(type) {
		case *int64:
			*d = v
			return true
		case *int:
			*d = int(v)
			return true
		}
	case *UInt32:
		v := p.data[i]
		switch d := dest.(type) {
		case *uint32:
			*d = v
			return true
		case *int64:
			*d = int64(v)
			return true
		case *uint64:
			*d = uint64(v)
			return true
		}
	case *Int32:
		v := p.data[i]
		switch d := dest.(type) {
		case *int32:
			*d = v
			return true
		case *int64:
			*d = int64(v)
			return true
		case *int:
			*d = int(v)
			return true
		}
	case *Float64:
		if d, ok := dest.(*float64); ok {
			*d = p.data[i]
			return true
		}
	case *Float32:
		if d, ok := dest.(*float32); ok {
			*d = p.data[i]
			return true
		}
	}
	return false
}

func (c *String) scanFast(outer Column, i int, dest any) bool {
	if d, ok := dest.(*[]byte); ok && outer == Column(c) {
		*d = bytes.Clone(c.Bytes(i))
		return true
	}
	return false
}

func (c *DateTime) scanFast(outer Column, i int, dest any) bool {
	if d, ok := dest.(*time.Time); ok && outer == Column(c) {
		*d = c.Time(i)
		return true
	}
	return false
}
