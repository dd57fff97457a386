package columns

import (
	"fmt"
	"strconv"
	"strings"
)

// Binary type encoding (ClickHouse DataTypesBinaryEncoding): one byte naming the type, then what
// the type needs (sizes, nested types, names). Dynamic's SharedVariant and JSON's shared data carry
// each value as its binary-encoded type followed by the value in the type's binary (RowBinary)
// format.

// maxBinaryTypeElems caps the element counts of a binary-encoded type, as the server does.
const maxBinaryTypeElems = 1000000

// BinaryTypeError reports a binary-encoded type this package cannot decode.
type BinaryTypeError struct {
	ID  byte
	Msg string
}

func (e *BinaryTypeError) Error() string {
	return fmt.Sprintf("columns: binary type id %#02x: %s", e.ID, e.Msg)
}

var simpleBinaryTypes = map[byte]string{
	0x00: "Nothing", 0x01: "UInt8", 0x02: "UInt16", 0x03: "UInt32", 0x04: "UInt64", 0x05: "UInt128",
	0x06: "UInt256", 0x07: "Int8", 0x08: "Int16", 0x09: "Int32", 0x0A: "Int64", 0x0B: "Int128",
	0x0C: "Int256", 0x0D: "Float32", 0x0E: "Float64", 0x0F: "Date", 0x10: "Date32", 0x11: "DateTime",
	0x15: "String", 0x1D: "UUID", 0x28: "IPv4", 0x29: "IPv6", 0x2D: "Bool", 0x31: "BFloat16", 0x32: "Time",
}

var intervalKinds = []string{"Nanosecond", "Microsecond", "Millisecond", "Second", "Minute", "Hour", "Day", "Week", "Month", "Quarter", "Year"}

// DecodeBinaryType reads one binary-encoded type and returns its name as the server spells it,
// e.g. "Array(Nullable(Int64))". Type ids for aggregate functions, functions, sets and JSON with
// skip clauses are reported as a *BinaryTypeError.
func DecodeBinaryType(r *Reader) (string, error) {
	var b strings.Builder
	if err := decodeBinaryType(r, &b, 1); err != nil {
		return "", err
	}
	return b.String(), nil
}

func decodeBinaryType(r *Reader, b *strings.Builder, depth int) error {
	if depth > MaxTypeDepth {
		return &BinaryTypeError{Msg: "nested too deeply"}
	}
	id, err := r.Byte()
	if err != nil {
		return unexpected(err)
	}
	if name, ok := simpleBinaryTypes[id]; ok {
		b.WriteString(name)
		return nil
	}
	str := func() (string, error) {
		s, err := r.String("binary type name", MaxTypeNameLength)
		if err != nil {
			return "", unexpected(err)
		}
		return s, nil
	}
	count := func(what string) (int, error) {
		n, err := r.Count(what, maxBinaryTypeElems)
		if err != nil {
			return 0, unexpected(err)
		}
		return n, nil
	}
	nested := func() error { return decodeBinaryType(r, b, depth+1) }
	switch id {
	case 0x12: // DateTime('tz')
		tz, err := str()
		if err != nil {
			return err
		}
		b.WriteString("DateTime(")
		tnWriteQuoted(b, tz, '\'')
		b.WriteByte(')')
	case 0x13, 0x14: // DateTime64(P[, 'tz'])
		p, err := r.Byte()
		if err != nil {
			return unexpected(err)
		}
		b.WriteString("DateTime64(" + strconv.Itoa(int(p)))
		if id == 0x14 {
			tz, err := str()
			if err != nil {
				return err
			}
			b.WriteString(", ")
			tnWriteQuoted(b, tz, '\'')
		}
		b.WriteByte(')')
	case 0x33: // Time64(P)
		p, err := r.Byte()
		if err != nil {
			return unexpected(err)
		}
		b.WriteString("Time64(" + strconv.Itoa(int(p)) + ")")
	case 0x16: // FixedString(N)
		n, err := r.UVarInt()
		if err != nil {
			return unexpected(err)
		}
		b.WriteString("FixedString(" + strconv.FormatUint(n, 10) + ")")
	case 0x17, 0x18: // Enum8, Enum16
		n, err := count("enum elements")
		if err != nil {
			return err
		}
		if id == 0x17 {
			b.WriteString("Enum8(")
		} else {
			b.WriteString("Enum16(")
		}
		for i := range n {
			name, err := str()
			if err != nil {
				return err
			}
			var v int64
			if id == 0x17 {
				x, err := r.Byte()
				if err != nil {
					return unexpected(err)
				}
				v = int64(int8(x))
			} else {
				x, err := r.Uint16()
				if err != nil {
					return unexpected(err)
				}
				v = int64(int16(x))
			}
			if i > 0 {
				b.WriteString(", ")
			}
			tnWriteQuoted(b, name, '\'')
			b.WriteString(" = " + strconv.FormatInt(v, 10))
		}
		b.WriteByte(')')
	case 0x19, 0x1A, 0x1B, 0x1C: // Decimal32..256(P, S)
		p, err := r.Byte()
		if err != nil {
			return unexpected(err)
		}
		s, err := r.Byte()
		if err != nil {
			return unexpected(err)
		}
		fmt.Fprintf(b, "Decimal(%d, %d)", p, s)
	case 0x1E, 0x23, 0x26: // Array(T), Nullable(T), LowCardinality(T)
		b.WriteString(map[byte]string{0x1E: "Array(", 0x23: "Nullable(", 0x26: "LowCardinality("}[id])
		if err := nested(); err != nil {
			return err
		}
		b.WriteByte(')')
	case 0x1F, 0x20, 0x2A, 0x2F: // Tuple(T...), Tuple(name T...), Variant(T...), Nested(name T...)
		n, err := count("elements")
		if err != nil {
			return err
		}
		b.WriteString(map[byte]string{0x1F: "Tuple(", 0x20: "Tuple(", 0x2A: "Variant(", 0x2F: "Nested("}[id])
		for i := range n {
			if i > 0 {
				b.WriteString(", ")
			}
			if id == 0x20 || id == 0x2F {
				name, err := str()
				if err != nil {
					return err
				}
				b.WriteString(quoteIdent(name) + " ")
			}
			if err := nested(); err != nil {
				return err
			}
		}
		b.WriteByte(')')
	case 0x22: // Interval
		k, err := r.Byte()
		if err != nil {
			return unexpected(err)
		}
		if int(k) >= len(intervalKinds) {
			return &BinaryTypeError{ID: id, Msg: fmt.Sprintf("unknown interval kind %d", k)}
		}
		b.WriteString("Interval" + intervalKinds[k])
	case 0x27: // Map(K, V)
		b.WriteString("Map(")
		if err := nested(); err != nil {
			return err
		}
		b.WriteString(", ")
		if err := nested(); err != nil {
			return err
		}
		b.WriteByte(')')
	case 0x2B: // Dynamic(max_types=N)
		n, err := r.Byte()
		if err != nil {
			return unexpected(err)
		}
		b.WriteString("Dynamic(max_types=" + strconv.Itoa(int(n)) + ")")
	case 0x2C: // custom type by name
		name, err := str()
		if err != nil {
			return err
		}
		b.WriteString(name)
	case 0x30: // JSON
		return decodeBinaryJSONType(r, b, depth)
	default:
		return &BinaryTypeError{ID: id, Msg: "type not supported by this driver (Set, Function, AggregateFunction, SimpleAggregateFunction or unknown)"}
	}
	return nil
}

func decodeBinaryJSONType(r *Reader, b *strings.Builder, depth int) error {
	ver, err := r.Byte()
	if err != nil {
		return unexpected(err)
	}
	if ver != 0 {
		return &BinaryTypeError{ID: 0x30, Msg: fmt.Sprintf("JSON type encoding version %d", ver)}
	}
	maxPaths, err := r.UVarInt()
	if err != nil {
		return unexpected(err)
	}
	maxTypes, err := r.Byte()
	if err != nil {
		return unexpected(err)
	}
	var args []string
	n, err := r.Count("JSON typed paths", maxBinaryTypeElems)
	if err != nil {
		return unexpected(err)
	}
	for range n {
		path, err := r.String("JSON path", MaxTypeNameLength)
		if err != nil {
			return unexpected(err)
		}
		var t strings.Builder
		if err := decodeBinaryType(r, &t, depth+1); err != nil {
			return err
		}
		var q strings.Builder
		tnWriteQuoted(&q, path, '`')
		args = append(args, q.String()+" "+t.String())
	}
	for _, what := range []string{"SKIP", "SKIP REGEXP"} {
		n, err := r.Count("JSON skip paths", maxBinaryTypeElems)
		if err != nil {
			return unexpected(err)
		}
		for range n {
			s, err := r.String("JSON skip path", MaxTypeNameLength)
			if err != nil {
				return unexpected(err)
			}
			var q strings.Builder
			if what == "SKIP" {
				tnWriteQuoted(&q, s, '`')
			} else {
				tnWriteQuoted(&q, s, '\'')
			}
			args = append(args, what+" "+q.String())
		}
	}
	if maxPaths != 1024 {
		args = append([]string{"max_dynamic_paths=" + strconv.FormatUint(maxPaths, 10)}, args...)
	}
	if maxTypes != 32 {
		args = append([]string{"max_dynamic_types=" + strconv.Itoa(int(maxTypes))}, args...)
	}
	b.WriteString("JSON")
	if len(args) > 0 {
		b.WriteString("(" + strings.Join(args, ", ") + ")")
	}
	return nil
}

// readBinaryValue decodes one value in col's binary (RowBinary) format and appends it to col. On
// error col may hold a partial value at depth; callers truncate.
func readBinaryValue(r *Reader, col Column, depth int) error {
	if depth > MaxTypeDepth {
		return fmt.Errorf("columns: binary value nested too deeply")
	}
	switch c := col.(type) {
	case *String:
		b, err := r.StringBytes(nil, "String", MaxStringSize)
		if err != nil {
			return unexpected(err)
		}
		c.AppendBytes(b)
		return nil
	case *Nullable:
		f, err := r.Byte()
		if err != nil {
			return unexpected(err)
		}
		if f != 0 {
			c.AppendNull()
			return nil
		}
		if err := readBinaryValue(r, c.inner, depth+1); err != nil {
			return err
		}
		c.nulls = append(c.nulls, 0)
		return nil
	case *Array:
		n, err := r.Count("array size", MaxElements)
		if err != nil {
			return unexpected(err)
		}
		for range n {
			if err := readBinaryValue(r, c.elem, depth+1); err != nil {
				return err
			}
		}
		c.EndRow()
		return nil
	case *Map:
		n, err := r.Count("map size", MaxElements)
		if err != nil {
			return unexpected(err)
		}
		for range n {
			if err := readBinaryValue(r, c.keys, depth+1); err != nil {
				return err
			}
			if err := readBinaryValue(r, c.vals, depth+1); err != nil {
				return err
			}
		}
		c.offs = append(c.offs, uint64(c.keys.Rows()))
		return nil
	case *Tuple:
		for _, e := range c.elems {
			if err := readBinaryValue(r, e, depth+1); err != nil {
				return err
			}
		}
		c.rows++
		return nil
	case *LowCardinality:
		d := c.newDict()
		if c.nullable {
			f, err := r.Byte()
			if err != nil {
				return unexpected(err)
			}
			if f != 0 {
				return c.AppendNull()
			}
		}
		if err := readBinaryValue(r, d, depth+1); err != nil {
			return err
		}
		return c.AppendValue(d.Value(0))
	case *Variant:
		d, err := r.Byte()
		if err != nil {
			return unexpected(err)
		}
		if d == variantNull {
			c.appendNull()
			return nil
		}
		if int(d) >= len(c.vars) {
			return fmt.Errorf("columns: variant discriminator %d of %d variants", d, len(c.vars))
		}
		n := c.vars[d].Rows()
		if err := readBinaryValue(r, c.vars[d], depth+1); err != nil {
			return err
		}
		c.discr = append(c.discr, d)
		c.offs = append(c.offs, uint32(n))
		return nil
	case *Dynamic:
		name, err := DecodeBinaryType(r)
		if err != nil {
			return err
		}
		if name == "Nothing" {
			c.appendNull()
			return nil
		}
		k, err := c.typeIndex(name)
		if err != nil {
			return err
		}
		n := c.cols[k].Rows()
		if err := readBinaryValue(r, c.cols[k], depth+1); err != nil {
			return err
		}
		c.idx = append(c.idx, uint32(k))
		c.offs = append(c.offs, uint32(n))
		return nil
	case *JSON:
		return c.readBinary(r, depth)
	case *Nothing:
		return fmt.Errorf("columns: a binary value of type Nothing")
	}
	// Fixed-width types: one row of the Native encoding is the binary value.
	one, err := New(col.Type())
	if err != nil {
		return err
	}
	if err := one.Read(r, 1); err != nil {
		return err
	}
	return col.AppendValue(one.Value(0))
}

// decodeBinaryValue decodes b, a binary-encoded type followed by one value of it, into a column of
// that type made by newCol and returns the type name and the value.
func decodeBinaryValue(b []byte) (string, any, error) {
	r := NewBytesReader(b)
	name, v, err := readDynamicBinary(r, 1)
	if err != nil {
		return name, nil, err
	}
	if r.Buffered() != 0 {
		return name, nil, fmt.Errorf("columns: %d bytes after a binary %s value", r.Buffered(), name)
	}
	return name, v, nil
}

// readDynamicBinary reads a binary-encoded type and one value of it.
func readDynamicBinary(r *Reader, depth int) (string, any, error) {
	name, err := DecodeBinaryType(r)
	if err != nil {
		return "", nil, err
	}
	if name == "Nothing" {
		return name, nil, nil
	}
	col, err := New(name)
	if err != nil {
		return name, nil, err
	}
	if err := readBinaryValue(r, col, depth+1); err != nil {
		return name, nil, err
	}
	return col.Type(), col.Value(0), nil
}
