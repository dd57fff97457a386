package columns

// Column metadata for database/sql's ColumnType (Nullable, DecimalSize, Length), computed from the
// column rather than by parsing its type name again.

// IsNullable reports whether c is Nullable or LowCardinality(Nullable), also inside
// SimpleAggregateFunction(f, T), whose values are T's.
func IsNullable(c Column) bool {
	switch x := c.(type) {
	case *Nullable:
		return true
	case *LowCardinality:
		return x.Nullable()
	case *SimpleAggregateFunction:
		return IsNullable(x.Inner())
	}
	return false
}

// precisionScaler is a column with a precision, and perhaps a scale (Decimal, DateTime64).
type precisionScaler interface {
	precisionScale() (precision, scale int64)
}

func (d decimalSpec) precisionScale() (precision, scale int64) {
	return int64(d.precision), int64(d.scale)
}

func (c *DateTime64) precisionScale() (precision, scale int64) { return int64(c.prec), 0 }

// PrecisionScale returns a Decimal's precision and scale, and a DateTime64's precision (scale 0),
// as clickhouse-go does; for Nullable, LowCardinality, SimpleAggregateFunction(f, T) and Array,
// their innermost element's. ok is false for other columns.
func PrecisionScale(c Column) (precision, scale int64, ok bool) {
	for {
		switch x := c.(type) {
		case *Nullable:
			c = x.Inner()
			continue
		case *LowCardinality:
			c = x.Dictionary()
			continue
		case *SimpleAggregateFunction:
			c = x.Inner()
			continue
		case *Array:
			c = x.Elem()
			continue
		case precisionScaler:
			p, s := x.precisionScale()
			return p, s, true
		}
		return 0, 0, false
	}
}

// Length returns the size of a FixedString, and "unbounded" (1<<63 - 1) for String,
// Nullable(String) and LowCardinality of a String or FixedString; ok is false for other
// columns (Nullable(FixedString(n)) included, as before).
func Length(c Column) (length int64, ok bool) {
	switch x := c.(type) {
	case *FixedString:
		return int64(x.Size()), true
	case *String:
		return 1<<63 - 1, true
	case *Nullable:
		if _, isString := x.Inner().(*String); isString {
			return 1<<63 - 1, true
		}
	case *LowCardinality:
		switch d := x.Dictionary().(type) {
		case *String, *FixedString:
			return 1<<63 - 1, true
		case *Nullable:
			switch d.Inner().(type) {
			case *String, *FixedString:
				return 1<<63 - 1, true
			}
		}
	}
	return 0, false
}
