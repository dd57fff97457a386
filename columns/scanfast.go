package columns

import (
	"bytes"
	"time"
)

// Scanning without boxing (Go 1.27's ScanColumn): the common destinations of the common columns
// are stored straight from the column, before the driver boxes a value for database/sql's
// conversions. Each answer is the value database/sql would store from SQLValue, without the
// interface. (Strings scanned into *string are the driver's: it copies their text a window at a
// time so that they do not alias the column.)
//
// As Append, ScanFast switches on the exact column types (not an interface, which cost a call
// and the exact check a value): *Fixed[uint32] is not *DateTime nor *IPv4.

// ScanFast stores row i of c into dest, reporting false, with dest untouched, when c has no fast
// path to dest's type (the caller then converts as usual: ScanValue, then database/sql's
// conversion of SQLValue). It handles, as database/sql would store them:
//
//	UInt64 into *uint64, and *int64 when it fits; Int64 into *int64 and *int; UInt32 into
//	*uint32, *int64 and *uint64; Int32 into *int32, *int64 and *int; Float64 into *float64;
//	Float32 into *float32 (not *float64: database/sql gives the float64 nearest the float32's
//	shortest text); String into *[]byte (a copy of its own); DateTime into *time.Time.
func ScanFast(c Column, i int, dest any) bool {
	switch c := c.(type) {
	case *UInt64:
		v := c.data[i]
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
		v := c.data[i]
		switch d := dest.(type) {
		case *int64:
			*d = v
			return true
		case *int:
			*d = int(v)
			return true
		}
	case *UInt32:
		v := c.data[i]
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
		v := c.data[i]
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
			*d = c.data[i]
			return true
		}
	case *Float32:
		if d, ok := dest.(*float32); ok {
			*d = c.data[i]
			return true
		}
	case *String:
		if d, ok := dest.(*[]byte); ok {
			*d = bytes.Clone(c.Bytes(i))
			return true
		}
	case *DateTime:
		if d, ok := dest.(*time.Time); ok {
			*d = c.Time(i)
			return true
		}
	}
	return false
}
