package columns

import (
	"reflect"
)

// Values for database/sql (see SQLValue).
//
// Design: a column whose database/sql form differs from Value's implements sqlValuer in its own
// file; composites build theirs from their elements' and report no difference when no element
// differs, so the common composites keep Value's typed fast paths. Nullable, LowCardinality and
// SimpleAggregateFunction pass their inner column's through (sqlInner). Columns with conversions
// of their own into destinations database/sql cannot reach implement rowScanner.

// sqlValuer is a column whose database/sql values differ from Value's.
type sqlValuer interface {
	// sqlType returns the Go type of sqlValue's non-NULL values at the top level of a result
	// (top) or as an element of a composite, or nil when that is Value's own (sqlValue is then
	// not called).
	sqlType(top bool) reflect.Type
	// sqlValue returns row i: nil for NULL, else a fresh value of sqlType(top).
	sqlValue(i int, top bool) any
}

// rowScanner is a column that stores some destinations itself (see ScanValue).
type rowScanner interface {
	// scanValue stores row i (never NULL) into dest, a non-nil pointer, reporting false when
	// it has no conversion to dest's type.
	scanValue(i int, dest any) (bool, error)
}

// SQLValue returns value i of c as a database/sql driver should hand it to Scan: nil for NULL,
// else memory of its own.
//
// Value returns each type in this package's Go types (netip.Addr, Point, Decimal, [][]any for
// Nested, ...). database/sql, before Go 1.27, hands what a driver's Rows.Next returns to Scan,
// which stores it into a destination of another type only when the value's type is assignable
// to it, convertible to it with the same kind, or a number or string it can format and parse.
// Code written for clickhouse-go's database/sql driver scans into the types that driver hands
// over, so SQLValue returns those:
//
//	ClickHouse type                   SQLValue (non-NULL)        as an element of Array, Map, Tuple
//	--------------------------------  -------------------------  ----------------------------------
//	Int128, UInt128, Int256, UInt256  big.Int                    *big.Int
//	Decimal(P, S)                     string, "-1.5" (no         Decimal
//	                                  trailing zeros)
//	IPv4, IPv6                        net.IP (4 and 16 bytes)    net.IP
//	Point, Ring, LineString,          orb.Point, orb.Ring, ...   the same
//	MultiLineString, Polygon,         (github.com/paulmach/orb)
//	MultiPolygon
//	Tuple(a T, b U)                   map[string]any             the same
//	Tuple(T, U)                       []any                      the same
//	Nested(a T, b U)                  []map[string]any           the same
//	Array(T), Map(K, V)               of the elements' form      the same
//	Nullable(T)                       nil or T's                 *T's element form (typed nil for NULL)
//	every other type                  Value's                    Value's
//
// Elements of tuples, like those of arrays and maps, are in their element form, so a NULL element
// is a typed nil pointer (as in clickhouse-go); an empty array is an empty slice, not nil. Map
// keys stay in Value's form.
//
// SQLScanType names a type a variable of which database/sql can always fill from SQLValue
// (ColumnTypeScanType). ScanValue stores a value straight into destinations SQLValue cannot
// reach through database/sql's conversions (this package's own types, netip.Addr, a JSON object
// into a struct or map, a big integer into a string): a driver that sees the destination (Go
// 1.27's ScanColumn) calls it first. Before Go 1.27 the own types that have a Scan method
// (Point and the other geo types, Decimal, VariantValue, DynamicValue) still scan from SQLValue.
func SQLValue(c Column, i int) any { return sqlValueOf(c, i, true) }

// sqlScanTyper is a column whose scan type (SQLScanType) is not the type of its SQLValue but one
// database/sql fills from it as well.
type sqlScanTyper interface{ sqlScanType() reflect.Type }

// SQLScanType returns the Go type of SQLValue's non-NULL values, or one database/sql fills from
// them as well (*big.Int for the big integers, as clickhouse-go names): a variable of the type
// can be scanned into (for Nullable columns the caller wraps it in a pointer).
func SQLScanType(c Column) reflect.Type {
	for {
		inner, _, ok := sqlInner(c, -1)
		if !ok {
			break
		}
		c = inner
	}
	if s, ok := c.(sqlScanTyper); ok {
		return s.sqlScanType()
	}
	if t := sqlTypeOf(c, true); t != nil {
		return t
	}
	return c.ScanType()
}

// sqlInner returns the column a wrapper (Nullable, LowCardinality, SimpleAggregateFunction) takes
// its values from, and the row of it that row i is; ok is false for other columns and for NULL
// rows (row is then -1).
func sqlInner(c Column, i int) (inner Column, row int, ok bool) {
	switch x := c.(type) {
	case *Nullable:
		if i >= 0 && x.nulls[i] != 0 {
			return x.inner, -1, true
		}
		return x.inner, i, true
	case *LowCardinality:
		if i < 0 {
			return x.dict, i, true
		}
		if x.nullable && x.idx[i] == 0 {
			return x.dict, -1, true
		}
		return x.dict, int(x.idx[i]), true
	case *SimpleAggregateFunction:
		return x.inner, i, true
	}
	return nil, 0, false
}

// sqlTypeOf returns the type of c's database/sql values, or nil when it is Value's.
func sqlTypeOf(c Column, top bool) reflect.Type {
	if inner, _, ok := sqlInner(c, -1); ok {
		return sqlTypeOf(inner, top)
	}
	if s, ok := c.(sqlValuer); ok {
		return s.sqlType(top)
	}
	return nil
}

// sqlValueOf returns row i of c in its database/sql form (nil for NULL; not pointer-wrapped).
func sqlValueOf(c Column, i int, top bool) any {
	if inner, row, ok := sqlInner(c, i); ok {
		if row < 0 {
			return nil
		}
		return sqlValueOf(inner, row, top)
	}
	if s, ok := c.(sqlValuer); ok && s.sqlType(top) != nil {
		return s.sqlValue(i, top)
	}
	return c.Value(i)
}

// sqlDiffers reports whether c's values as elements differ from Value's.
func sqlDiffers(c Column) bool { return sqlTypeOf(c, false) != nil }

// sqlSlotType returns the type of a slice element or map value holding c's values as elements:
// a pointer to them for Nullable columns (clickhouse-go's element scan types).
func sqlSlotType(c Column) reflect.Type {
	t := sqlTypeOf(c, false)
	if t == nil {
		t = c.ScanType()
	}
	if isNullable(c) && t.Kind() != reflect.Interface && t.Kind() != reflect.Pointer {
		return reflect.PointerTo(t)
	}
	return t
}

// sqlSlot returns row i of c as a value of type st (sqlSlotType(c)): NULL is the zero of st (a
// typed nil pointer), a value is wrapped in a fresh pointer where st is one.
func sqlSlot(c Column, i int, st reflect.Type) reflect.Value {
	v := sqlValueOf(c, i, false)
	if v == nil {
		return reflect.Zero(st)
	}
	rv := reflect.ValueOf(v)
	if st.Kind() == reflect.Pointer && rv.Type() != st {
		p := reflect.New(st.Elem())
		p.Elem().Set(rv)
		return p
	}
	return rv
}

// sqlSlice returns elements [lo, hi) of elem as a slice of their element form (never nil).
func sqlSlice(elem Column, lo, hi int) any {
	st := sqlSlotType(elem)
	s := reflect.MakeSlice(reflect.SliceOf(st), hi-lo, hi-lo)
	for j := lo; j < hi; j++ {
		s.Index(j - lo).Set(sqlSlot(elem, j, st))
	}
	return s.Interface()
}

// ScanValue stores value i of c into dest when dest is of a type that SQLValue's value would not
// reach through database/sql's conversions, or reaches only at a cost: Value's own type (*T,
// or **T: nil for NULL), and conversions of the column's own (a big integer into a string, a
// JSON object into a struct or map, ...). It reports false, storing nothing, for any other
// destination, for destinations that implement sql.Scanner (they get SQLValue, as from
// database/sql) and for NULL into anything but **T; the caller then converts SQLValue(c, i).
func ScanValue(c Column, i int, dest any) (bool, error) {
	dt := reflect.TypeOf(dest)
	if dt == nil || dt.Kind() != reflect.Pointer {
		return false, nil
	}
	rv := reflect.ValueOf(dest)
	if rv.IsNil() {
		return false, nil
	}
	e, own := dt.Elem(), c.ScanType()
	if st := sqlTypeOf(c, true); st != nil && (e == st || e.Kind() == reflect.Pointer && e.Elem() == st) {
		return false, nil // SQLValue's own type: as database/sql stores it
	}
	if e.Kind() != reflect.Interface && (e == own || e.Kind() == reflect.Pointer && e.Elem() == own) {
		v := c.Value(i)
		if v == nil {
			if e == own {
				return false, nil
			}
			rv.Elem().SetZero()
			return true, nil
		}
		x := reflect.ValueOf(v)
		if x.Type() != own {
			return false, nil
		}
		if e == own {
			rv.Elem().Set(x)
		} else {
			p := reflect.New(own)
			p.Elem().Set(x)
			rv.Elem().Set(p)
		}
		return true, nil
	}
	if _, ok := dest.(interface{ Scan(any) error }); ok {
		return false, nil
	}
	col, row := c, i
	for {
		inner, r, ok := sqlInner(col, row)
		if !ok {
			break
		}
		if r < 0 {
			return false, nil
		}
		col, row = inner, r
	}
	if s, ok := col.(rowScanner); ok {
		return s.scanValue(row, dest)
	}
	return false, nil
}

// ScanError reports a value that cannot be stored into a destination of a given Go type.
type ScanError struct {
	Column string // ClickHouse type
	GoType string // the destination's type
	Reason string
}

func (e *ScanError) Error() string {
	return "columns: cannot scan " + e.Column + " into " + e.GoType + ": " + e.Reason
}
