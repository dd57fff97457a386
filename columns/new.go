package columns

import (
	"fmt"
	"strconv"
)

// New returns an empty column for a ClickHouse type name such as "Array(Nullable(String))",
// "Tuple(a UInt8, b String)", "LowCardinality(Nullable(String))", "Enum8('a' = 1, 'it\\'s' = 2)",
// "DateTime('Europe/Moscow')", "Decimal(18, 4)" or "FixedString(16)". An unknown or malformed type
// is an error naming it.
func New(typeName string) (Column, error) {
	n, err := ParseType(typeName)
	if err != nil {
		return nil, err
	}
	return FromNode(n)
}

// UnsupportedTypeError reports a well-formed type name that this package cannot carry.
type UnsupportedTypeError struct {
	Type   string
	Reason string
}

func (e *UnsupportedTypeError) Error() string {
	if e.Reason == "" {
		return "columns: unsupported type " + e.Type
	}
	return "columns: unsupported type " + e.Type + ": " + e.Reason
}

func unsupported(n *TypeNode, format string, args ...any) error {
	return &UnsupportedTypeError{Type: n.String(), Reason: fmt.Sprintf(format, args...)}
}

// FromNode returns an empty column for a parsed type.
func FromNode(n *TypeNode) (Column, error) {
	args := n.Args
	noArgs := func() error {
		if args != nil {
			return unsupported(n, "%s takes no arguments", n.Name)
		}
		return nil
	}
	switch n.Name {
	case "Int8", "Int16", "Int32", "Int64", "UInt8", "UInt16", "UInt32", "UInt64", "Float32", "Float64":
		if err := noArgs(); err != nil {
			return nil, err
		}
		return newNumeric(n.Name), nil
	case "Int128", "UInt128", "Int256", "UInt256":
		if err := noArgs(); err != nil {
			return nil, err
		}
		switch n.Name {
		case "Int128":
			return NewWide[Int128](n.Name), nil
		case "UInt128":
			return NewWide[UInt128](n.Name), nil
		case "Int256":
			return NewWide[Int256](n.Name), nil
		}
		return NewWide[UInt256](n.Name), nil
	case "String":
		if err := noArgs(); err != nil {
			return nil, err
		}
		return NewString(), nil
	case "FixedString":
		size, err := intArgs(n, 1)
		if err != nil {
			return nil, err
		}
		if size[0] < 1 || size[0] > MaxFixedStringSize {
			return nil, unsupported(n, "size must be 1..%d", MaxFixedStringSize)
		}
		return NewFixedString(size[0]), nil
	case "Date":
		if err := noArgs(); err != nil {
			return nil, err
		}
		return NewDate(), nil
	case "DateTime":
		tz := ""
		if len(args) > 1 || len(args) == 1 && args[0].Kind != ArgString {
			return nil, unsupported(n, "want DateTime or DateTime('zone')")
		}
		if len(args) == 1 {
			tz = args[0].String
		}
		return NewDateTime(tz)
	case "Decimal":
		ps, err := intArgs(n, 2)
		if err != nil {
			return nil, err
		}
		return NewDecimal(ps[0], ps[1])
	case "Decimal32", "Decimal64", "Decimal128", "Decimal256":
		s, err := intArgs(n, 1)
		if err != nil {
			return nil, err
		}
		p := map[string]int{"Decimal32": 9, "Decimal64": 18, "Decimal128": 38, "Decimal256": 76}[n.Name]
		return NewDecimal(p, s[0])
	case "UUID":
		if err := noArgs(); err != nil {
			return nil, err
		}
		return NewUUID(), nil
	case "Enum8", "Enum16":
		return newEnum(n)
	case "QBit":
		return newQBit(n)
	case "Bool", "BFloat16", "Date32", "Time", "IPv4", "IPv6",
		"IntervalNanosecond", "IntervalMicrosecond", "IntervalMillisecond", "IntervalSecond", "IntervalMinute",
		"IntervalHour", "IntervalDay", "IntervalWeek", "IntervalMonth", "IntervalQuarter", "IntervalYear",
		"Point", "Ring", "LineString", "MultiLineString", "Polygon", "MultiPolygon":
		if err := noArgs(); err != nil {
			return nil, err
		}
		return newSimpleType(n.Name), nil
	case "DateTime64", "Time64":
		return newTicksType(n)
	case "SimpleAggregateFunction":
		return newSimpleAggregateFunction(n)
	case "AggregateFunction":
		return newAggregateFunction(n)
	case "Nested":
		return newNested(n)
	case "Nothing":
		if err := noArgs(); err != nil {
			return nil, err
		}
		return &Nothing{}, nil
	case "Nullable":
		inner, err := oneType(n)
		if err != nil {
			return nil, err
		}
		switch inner.(type) {
		case *Nullable, *Array, *Map, *Tuple, *LowCardinality, *Variant, *Dynamic:
			// JSON may be Nullable: servers from 25.x have Nullable(JSON) (a null map, then the
			// JSON column with its default, {}, at NULL rows).
			return nil, unsupported(n, "Nullable cannot wrap %s", inner.Type())
		}
		if !nullableAllowed(inner) {
			return nil, unsupported(n, "Nullable cannot wrap %s", inner.Type())
		}
		return NewNullable(inner), nil
	case "Array":
		elem, err := oneType(n)
		if err != nil {
			return nil, err
		}
		return NewArray(elem), nil
	case "Tuple":
		if len(args) == 0 {
			return nil, unsupported(n, "a Tuple needs elements")
		}
		elems := make([]Column, len(args))
		var names []string
		for i, a := range args {
			if a.Kind != ArgType {
				return nil, unsupported(n, "element %d is not a type", i+1)
			}
			c, err := FromNode(a.Type)
			if err != nil {
				return nil, err
			}
			elems[i] = c
			if a.Field != "" {
				if names == nil {
					if i > 0 {
						return nil, unsupported(n, "some elements are named and some are not")
					}
					names = make([]string, len(args))
				}
				names[i] = a.Field
			} else if names != nil {
				return nil, unsupported(n, "some elements are named and some are not")
			}
		}
		return NewTuple(elems, names), nil
	case "Map":
		if len(args) != 2 || args[0].Kind != ArgType || args[1].Kind != ArgType || args[0].Field != "" || args[1].Field != "" {
			return nil, unsupported(n, "want Map(K, V)")
		}
		k, err := FromNode(args[0].Type)
		if err != nil {
			return nil, err
		}
		if !k.ScanType().Comparable() {
			return nil, unsupported(n, "map key type %s", k.Type())
		}
		v, err := FromNode(args[1].Type)
		if err != nil {
			return nil, err
		}
		return NewMap(k, v), nil
	case "LowCardinality":
		if len(args) != 1 || args[0].Kind != ArgType || args[0].Field != "" {
			return nil, unsupported(n, "want LowCardinality(T)")
		}
		inner := args[0].Type
		nullable := false
		if inner.Name == "Nullable" {
			if len(inner.Args) != 1 || inner.Args[0].Kind != ArgType {
				return nil, unsupported(n, "want LowCardinality(Nullable(T))")
			}
			inner = inner.Args[0].Type
			nullable = true
		}
		probe, err := FromNode(inner)
		if err != nil {
			return nil, err
		}
		if !lowCardinalityAllowed(probe) {
			return nil, unsupported(n, "LowCardinality of %s", probe.Type())
		}
		first := true
		return NewLowCardinality(func() Column {
			if first {
				first = false
				return probe
			}
			c, _ := FromNode(inner)
			return c
		}, nullable), nil
	case "Variant":
		return newVariantFromNode(n)
	case "Dynamic":
		return newDynamicFromNode(n)
	case "JSON":
		return newJSONFromNode(n)
	}
	return nil, unsupported(n, "")
}

func newNumeric(name string) Column {
	switch name {
	case "Int8":
		return NewFixed[int8](name)
	case "Int16":
		return NewFixed[int16](name)
	case "Int32":
		return NewFixed[int32](name)
	case "Int64":
		return NewFixed[int64](name)
	case "UInt8":
		return NewFixed[uint8](name)
	case "UInt16":
		return NewFixed[uint16](name)
	case "UInt32":
		return NewFixed[uint32](name)
	case "UInt64":
		return NewFixed[uint64](name)
	case "Float32":
		return NewFixed[float32](name)
	}
	return NewFixed[float64](name)
}

func oneType(n *TypeNode) (Column, error) {
	if len(n.Args) != 1 || n.Args[0].Kind != ArgType || n.Args[0].Field != "" {
		return nil, unsupported(n, "want %s(T)", n.Name)
	}
	return FromNode(n.Args[0].Type)
}

func intArgs(n *TypeNode, count int) ([]int, error) {
	if len(n.Args) != count {
		return nil, unsupported(n, "want %d numeric arguments", count)
	}
	out := make([]int, count)
	for i, a := range n.Args {
		if a.Kind != ArgNumber {
			return nil, unsupported(n, "argument %d is not a number", i+1)
		}
		v, err := strconv.Atoi(a.Number)
		if err != nil || v < 0 || v > 1<<30 {
			return nil, unsupported(n, "argument %d is not a small integer", i+1)
		}
		out[i] = v
	}
	return out, nil
}

func newEnum(n *TypeNode) (Column, error) {
	if len(n.Args) == 0 {
		return nil, unsupported(n, "an enum needs elements")
	}
	bits := 8
	if n.Name == "Enum16" {
		bits = 16
	}
	p8 := map[string]int8{}
	p16 := map[string]int16{}
	seen := map[int64]bool{}
	for i, a := range n.Args {
		if a.Kind != ArgEnum {
			return nil, unsupported(n, "element %d is not 'name' = value", i+1)
		}
		v, err := strconv.ParseInt(a.Number, 10, bits)
		if err != nil {
			return nil, unsupported(n, "value of %q is out of range", a.String)
		}
		if seen[v] {
			return nil, unsupported(n, "value %d appears twice", v)
		}
		seen[v] = true
		if _, dup := p16[a.String]; dup {
			return nil, unsupported(n, "name %q appears twice", a.String)
		}
		p8[a.String], p16[a.String] = int8(v), int16(v)
	}
	if bits == 8 {
		return NewEnum(p8), nil
	}
	return NewEnum(p16), nil
}
