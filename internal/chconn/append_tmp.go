package chconn

import "github.com/chnative/chnative/columns"

// TEMPORARY until columns answers it.

// appendValue appends v to col. The exact Go type of the common columns (uint64 to UInt64, string
// to String, ...) is appended without conversion; anything else goes through AppendValue.
func appendValue(col columns.Column, v any) error {
	switch c := col.(type) {
	case *columns.UInt64:
		if x, ok := v.(uint64); ok {
			c.Append(x)
			return nil
		}
	case *columns.Int64:
		if x, ok := v.(int64); ok {
			c.Append(x)
			return nil
		}
	case *columns.Float64:
		if x, ok := v.(float64); ok {
			c.Append(x)
			return nil
		}
	case *columns.String:
		switch x := v.(type) {
		case string:
			c.Append(x)
			return nil
		case []byte:
			c.AppendBytes(x)
			return nil
		}
	case *columns.UInt32:
		if x, ok := v.(uint32); ok {
			c.Append(x)
			return nil
		}
	case *columns.Int32:
		if x, ok := v.(int32); ok {
			c.Append(x)
			return nil
		}
	case *columns.UInt8:
		if x, ok := v.(uint8); ok {
			c.Append(x)
			return nil
		}
	case *columns.UInt16:
		if x, ok := v.(uint16); ok {
			c.Append(x)
			return nil
		}
	case *columns.Int8:
		if x, ok := v.(int8); ok {
			c.Append(x)
			return nil
		}
	case *columns.Int16:
		if x, ok := v.(int16); ok {
			c.Append(x)
			return nil
		}
	case *columns.Float32:
		if x, ok := v.(float32); ok {
			c.Append(x)
			return nil
		}
	}
	return col.AppendValue(v)
}
