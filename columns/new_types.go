package columns

import "time"

// newSimpleType returns an empty column of a type without arguments added with the wider type set
// (Bool, BFloat16, Date32, Time, IPv4, IPv6, Interval*, the geo types), or nil.
func newSimpleType(name string) Column {
	switch name {
	case "Bool":
		return NewBool()
	case "BFloat16":
		return NewBFloat16()
	case "Date32":
		return NewDate32()
	case "Time":
		return NewTime()
	case "IPv4":
		return NewIPv4()
	case "IPv6":
		return NewIPv6()
	}
	if len(name) > len("Interval") && name[:len("Interval")] == "Interval" {
		if c, ok := NewInterval(name[len("Interval"):]); ok {
			return c
		}
	}
	if c, ok := NewGeo(name); ok {
		return c
	}
	return nil
}

// newTicksType returns a DateTime64(P[, 'tz']) or Time64(P) column.
func newTicksType(n *TypeNode) (Column, error) {
	args := n.Args
	if n.Name == "DateTime64" {
		if len(args) < 1 || len(args) > 2 || args[0].Kind != ArgNumber || len(args) == 2 && args[1].Kind != ArgString {
			return nil, unsupported(n, "want DateTime64(P) or DateTime64(P, 'zone')")
		}
	} else if len(args) != 1 || args[0].Kind != ArgNumber {
		return nil, unsupported(n, "want Time64(P)")
	}
	p, err := intArgs(&TypeNode{Name: n.Name, Args: args[:1]}, 1)
	if err != nil || p[0] > 9 {
		return nil, unsupported(n, "precision must be 0..9")
	}
	if n.Name == "Time64" {
		return NewTime64(p[0])
	}
	tz := ""
	if len(args) == 2 {
		tz = args[1].String
	}
	return NewDateTime64(p[0], tz)
}

// nullableAllowed reports whether the server allows Nullable(T) for a column of T: not for
// Nullable, Array, Map, Tuple, LowCardinality, Nested or the geo types (Tuples and Arrays).
func nullableAllowed(c Column) bool {
	switch x := c.(type) {
	case *Nullable, *Array, *Map, *Tuple, *LowCardinality, *Nested, *Geo:
		return false
	case *SimpleAggregateFunction:
		return nullableAllowed(x.inner)
	}
	return true
}

// lowCardinalityAllowed reports whether the server allows a LowCardinality dictionary of the
// column's type (DataTypeLowCardinality::createColumnUniqueImpl): String, FixedString, Date, Date32,
// DateTime, Time, UUID, IPv4, IPv6, the Interval kinds, Bool and every integer and float type
// (Int128 … UInt256 and BFloat16 included). Not Decimal, DateTime64, Time64, Enum or composites.
func lowCardinalityAllowed(c Column) bool {
	switch c.(type) {
	case *String, *FixedString, *Date, *Date32, *DateTime, *Time, *UUID, *IPv4, *IPv6, *Interval, *Bool,
		*Int8, *Int16, *Int32, *Int64, *UInt8, *UInt16, *UInt32, *UInt64, *Float32, *Float64, *BFloat16,
		*Wide[Int128], *Wide[UInt128], *Wide[Int256], *Wide[UInt256]:
		return true
	}
	return false
}

// SetLocation sets loc as the location of the values of every time column without a time zone of
// its own (DateTime, DateTime64) inside c, at any depth: the driver passes the server's time zone.
// Columns of other packages or types join in by having a SetLocation(*time.Location) method.
func SetLocation(c Column, loc *time.Location) {
	walkColumns(c, func(x Column) bool {
		s, ok := x.(interface{ SetLocation(*time.Location) })
		if ok {
			s.SetLocation(loc)
		}
		return ok
	})
}

// SetDateLocation makes the Date and Date32 columns inside c, at any depth, return midnight in
// loc (nil: UTC) of each day: the driver passes the zone of chnative.WithUserLocation, to which
// clickhouse-go moves dates.
func SetDateLocation(c Column, loc *time.Location) {
	walkColumns(c, func(x Column) bool {
		s, ok := x.(interface{ SetDateLocation(*time.Location) })
		if ok {
			s.SetDateLocation(loc)
		}
		return ok
	})
}

// walkColumns calls visit on c and, unless visit returns true, on the columns inside it.
func walkColumns(c Column, visit func(Column) bool) {
	if visit(c) {
		return
	}
	switch x := c.(type) {
	case *Nullable:
		walkColumns(x.inner, visit)
	case *Array:
		walkColumns(x.elem, visit)
	case *Nested:
		walkColumns(x.elem, visit)
	case *LowCardinality:
		walkColumns(x.dict, visit)
	case *Map:
		walkColumns(x.keys, visit)
		walkColumns(x.vals, visit)
	case *Tuple:
		for _, e := range x.elems {
			walkColumns(e, visit)
		}
	case *SimpleAggregateFunction:
		walkColumns(x.inner, visit)
	}
}
