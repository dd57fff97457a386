package chnarrow

import (
	"fmt"
	"strconv"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/chnative/chnative/columns"
)

// TypeMetadataKey is the key of each result field's metadata that holds the ClickHouse type the
// column had ("DateTime64(3, 'UTC')", "Enum8('a' = 1)", ...): what an Arrow type does not say.
const TypeMetadataKey = "clickhouse.type"

// arrowType returns the Arrow type of col's values (see the package doc's table), or an
// *UnsupportedTypeError for a type with no Arrow form here.
func arrowType(col columns.Column) (arrow.DataType, error) {
	switch c := col.(type) {
	case *columns.Int8, *columns.Enum8:
		return arrow.PrimitiveTypes.Int8, nil
	case *columns.Int16, *columns.Enum16:
		return arrow.PrimitiveTypes.Int16, nil
	case *columns.Int32:
		return arrow.PrimitiveTypes.Int32, nil
	case *columns.Int64:
		return arrow.PrimitiveTypes.Int64, nil
	case *columns.UInt8:
		return arrow.PrimitiveTypes.Uint8, nil
	case *columns.UInt16:
		return arrow.PrimitiveTypes.Uint16, nil
	case *columns.UInt32, *columns.IPv4:
		return arrow.PrimitiveTypes.Uint32, nil
	case *columns.UInt64:
		return arrow.PrimitiveTypes.Uint64, nil
	case *columns.Float32, *columns.BFloat16:
		return arrow.PrimitiveTypes.Float32, nil
	case *columns.Float64:
		return arrow.PrimitiveTypes.Float64, nil
	case *columns.Bool:
		return arrow.FixedWidthTypes.Boolean, nil
	case *columns.Wide[columns.Int128], *columns.Wide[columns.UInt128]:
		return &arrow.FixedSizeBinaryType{ByteWidth: 16}, nil
	case *columns.Wide[columns.Int256], *columns.Wide[columns.UInt256]:
		return &arrow.FixedSizeBinaryType{ByteWidth: 32}, nil
	case *columns.String:
		return arrow.BinaryTypes.String, nil
	case *columns.FixedString:
		return &arrow.FixedSizeBinaryType{ByteWidth: c.Size()}, nil
	case *columns.JSON:
		return arrow.BinaryTypes.String, nil
	case *columns.UUID:
		return extensions.NewUUIDType(), nil
	case *columns.IPv6:
		return &arrow.FixedSizeBinaryType{ByteWidth: 16}, nil
	case *columns.Date, *columns.Date32:
		return arrow.FixedWidthTypes.Date32, nil
	case *columns.DateTime:
		return &arrow.TimestampType{Unit: arrow.Second, TimeZone: zoneName(c.Location())}, nil
	case *columns.DateTime64:
		return &arrow.TimestampType{Unit: unitOf(c.Precision()), TimeZone: zoneName(c.Location())}, nil
	case *columns.Time:
		return arrow.FixedWidthTypes.Duration_s, nil
	case *columns.Time64:
		return &arrow.DurationType{Unit: unitOf(c.Precision())}, nil
	case *columns.Interval:
		switch c.Kind() {
		case "IntervalNanosecond":
			return arrow.FixedWidthTypes.Duration_ns, nil
		case "IntervalMicrosecond":
			return arrow.FixedWidthTypes.Duration_us, nil
		case "IntervalMillisecond":
			return arrow.FixedWidthTypes.Duration_ms, nil
		case "IntervalSecond":
			return arrow.FixedWidthTypes.Duration_s, nil
		}
		return arrow.PrimitiveTypes.Int64, nil
	case *columns.Decimal32, *columns.Decimal64, *columns.Decimal128:
		p, s, _ := columns.PrecisionScale(col)
		return &arrow.Decimal128Type{Precision: int32(p), Scale: int32(s)}, nil
	case *columns.Decimal256:
		p, s, _ := columns.PrecisionScale(col)
		return &arrow.Decimal256Type{Precision: int32(p), Scale: int32(s)}, nil
	case *columns.Nothing:
		return arrow.Null, nil
	case *columns.Nullable:
		return arrowType(c.Inner())
	case *columns.SimpleAggregateFunction:
		return arrowType(c.Inner())
	case *columns.Geo:
		return arrowType(c.Inner())
	case *columns.Nested:
		return arrowType(&c.Array)
	case *columns.Array:
		elem, err := arrowType(c.Elem())
		if err != nil {
			return nil, err
		}
		return arrow.ListOfField(arrow.Field{Name: "item", Type: elem, Nullable: nullable(c.Elem())}), nil
	case *columns.Map:
		k, err := arrowType(c.Keys())
		if err != nil {
			return nil, err
		}
		v, err := arrowType(c.Values())
		if err != nil {
			return nil, err
		}
		m := arrow.MapOf(k, v)
		m.SetItemNullable(nullable(c.Values()))
		return m, nil
	case *columns.Tuple:
		names := c.Names()
		fields := make([]arrow.Field, c.Len())
		for i := range fields {
			t, err := arrowType(c.Elem(i))
			if err != nil {
				return nil, err
			}
			name := strconv.Itoa(i + 1) // an unnamed Tuple's elements, as ClickHouse's Arrow output names them
			if i < len(names) && names[i] != "" {
				name = names[i]
			}
			fields[i] = arrow.Field{Name: name, Type: t, Nullable: nullable(c.Elem(i))}
		}
		return arrow.StructOf(fields...), nil
	case *columns.Variant:
		vars := c.Variants()
		if len(vars) >= int(arrow.MaxUnionTypeCode) { // the NULL member takes one more code
			return nil, &UnsupportedTypeError{Type: col.Type(), Reason: fmt.Sprintf("%d variants, past an Arrow union's %d members", len(vars), arrow.MaxUnionTypeCode)}
		}
		fields := make([]arrow.Field, len(vars)+1)
		codes := make([]arrow.UnionTypeCode, len(vars)+1)
		for k, v := range vars {
			t, err := arrowType(v)
			if err != nil {
				return nil, err
			}
			fields[k] = arrow.Field{Name: v.Type(), Type: t, Nullable: nullable(v)}
			codes[k] = arrow.UnionTypeCode(k)
		}
		fields[len(vars)] = arrow.Field{Name: variantNull, Type: arrow.Null, Nullable: true}
		codes[len(vars)] = arrow.UnionTypeCode(len(vars))
		return arrow.DenseUnionOf(fields, codes), nil
	case *columns.QBit:
		elem := arrow.DataType(arrow.PrimitiveTypes.Float32) // Float32, and BFloat16 widened exactly
		switch c.Elem() {
		case "Float64":
			elem = arrow.PrimitiveTypes.Float64
		case "Int8":
			elem = arrow.PrimitiveTypes.Int8
		}
		return arrow.FixedSizeListOfNonNullable(int32(c.Dim()), elem), nil
	case *columns.LowCardinality:
		v, err := arrowType(c.Dictionary())
		if err != nil {
			return nil, err
		}
		return &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Uint32, ValueType: v}, nil
	}
	return nil, &UnsupportedTypeError{Type: col.Type(), Reason: unsupportedReason(col)}
}

// unsupportedReason says what to do instead for a type Query does not map.
func unsupportedReason(col columns.Column) string {
	switch col.(type) {
	case *columns.Dynamic:
		return "no Arrow equivalent is mapped; select dynamicElement(v, 'T') per type, or toString(v)"
	}
	return "no Arrow mapping"
}

// variantNull is the name of a Variant's union member that holds its NULLs (as ClickHouse's
// Arrow output names it).
const variantNull = "NULL"

// nullable reports whether col's Arrow form has NULLs.
func nullable(col columns.Column) bool {
	switch c := col.(type) {
	case *columns.Nullable, *columns.Nothing, *columns.Variant:
		return true
	case *columns.LowCardinality:
		return c.Nullable()
	case *columns.SimpleAggregateFunction:
		return nullable(c.Inner())
	}
	return false
}

// unitOf returns the Arrow time unit of ticks of 10^-p seconds: the unit itself for 0, 3, 6 and 9,
// else the next finer one (values are scaled by 10 or 100 on the way).
func unitOf(p int) arrow.TimeUnit {
	switch {
	case p <= 0:
		return arrow.Second
	case p <= 3:
		return arrow.Millisecond
	case p <= 6:
		return arrow.Microsecond
	}
	return arrow.Nanosecond
}

// unitDigits is the number of decimal digits of a second that u counts.
func unitDigits(u arrow.TimeUnit) int { return [...]int{0, 3, 6, 9}[u] }

// zoneName is the Arrow timestamp zone of loc: its IANA name ("UTC" for nil or Local).
func zoneName(loc *time.Location) string {
	if loc == nil || loc == time.Local || loc.String() == "" || loc.String() == "Local" {
		return "UTC"
	}
	return loc.String()
}

// schemaOf returns the Arrow schema of a block's columns.
func schemaOf(names []string, cols []columns.Column) (*arrow.Schema, error) {
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		t, err := arrowType(c)
		if err != nil {
			return nil, fmt.Errorf("chnarrow: column %s: %w", names[i], err)
		}
		fields[i] = arrow.Field{Name: names[i], Type: t, Nullable: nullable(c),
			Metadata: arrow.NewMetadata([]string{TypeMetadataKey}, []string{c.Type()})}
	}
	return arrow.NewSchema(fields, nil), nil
}

// ArrowType returns the Arrow type Query gives a column of the ClickHouse type typ (as the
// server spells it: "DateTime64(3, 'UTC')", "Array(Nullable(String))"); a DateTime without a
// zone gets UTC here (Query gives it the server's zone). Nullable types give their inner type:
// in Arrow a field, not a type, is nullable.
func ArrowType(typ string) (arrow.DataType, error) {
	col, err := columns.New(typ)
	if err != nil {
		return nil, err
	}
	return arrowType(col)
}
