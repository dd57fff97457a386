package columns

import (
	"fmt"
	"reflect"

	"github.com/paulmach/orb"
)

// Point is a value of the geo type Point: Tuple(Float64, Float64), X then Y.
type Point struct{ X, Y float64 }

// The values of the other geo types, as Value returns them.
type (
	Ring            []Point      // Ring: Array(Point), a closed polygon outline
	LineString      []Point      // LineString: Array(Point)
	MultiLineString []LineString // MultiLineString: Array(LineString)
	Polygon         []Ring       // Polygon: Array(Ring), the outer ring first, then holes
	MultiPolygon    []Polygon    // MultiPolygon: Array(Polygon)
)

// geoDepth is the number of Array levels around the Point tuple of each geo type.
var geoDepth = map[string]int{
	"Point": 0, "Ring": 1, "LineString": 1, "MultiLineString": 2, "Polygon": 2, "MultiPolygon": 3,
}

// geoElem is the element type of each geo type that is an Array of another geo type.
var geoElem = map[string]string{
	"Ring": "Point", "LineString": "Point", "MultiLineString": "LineString", "Polygon": "Ring", "MultiPolygon": "Polygon",
}

// GeoElem returns the name of the element type of the geo type kind when kind is an Array of
// another geo type: Point for Ring and LineString, LineString for MultiLineString, Ring for
// Polygon, Polygon for MultiPolygon. ok is false for Point and for other names.
func GeoElem(kind string) (elem string, ok bool) {
	elem, ok = geoElem[kind]
	return elem, ok
}

// Geo is a column of one of the geo types Point, Ring, LineString, MultiLineString, Polygon and
// MultiPolygon. Its encoding is that of the underlying Tuple(Float64, Float64) wrapped in 0 to 3
// Arrays; Type returns the geo name and Value returns Point, Ring, LineString, MultiLineString,
// Polygon or MultiPolygon.
type Geo struct {
	kind   string
	inner  Column   // *Tuple for Point, else the outermost *Array
	arrays []*Array // the Array levels, outermost first
	x, y   *Float64 // the coordinates of every point of every row
}

// NewGeo returns an empty column of the geo type kind ("Point", "Ring", "LineString",
// "MultiLineString", "Polygon" or "MultiPolygon"); ok is false for another name.
func NewGeo(kind string) (c *Geo, ok bool) {
	depth, ok := geoDepth[kind]
	if !ok {
		return nil, false
	}
	c = &Geo{kind: kind, x: NewFixed[float64]("Float64"), y: NewFixed[float64]("Float64")}
	c.inner = NewTuple([]Column{c.x, c.y}, nil)
	c.arrays = make([]*Array, depth)
	for i := depth - 1; i >= 0; i-- {
		a := NewArray(c.inner)
		c.arrays[i] = a
		c.inner = a
	}
	return c, true
}

// Type returns the geo type name, such as "Polygon".
func (c *Geo) Type() string { return c.kind }

// Inner returns the column of the underlying type (Tuple(Float64, Float64) for Point, Arrays of it
// for the others), which holds the data.
func (c *Geo) Inner() Column { return c.inner }

// Coords returns the X and Y coordinates of all points of all rows (borrowed).
func (c *Geo) Coords() (x, y []float64) { return c.x.data, c.y.data }

// Rows returns the number of values.
func (c *Geo) Rows() int { return c.inner.Rows() }

func (c *Geo) points(lo, hi int) []Point {
	out := make([]Point, hi-lo)
	for j := range out {
		out[j] = Point{c.x.data[lo+j], c.y.data[lo+j]}
	}
	return out
}

// rings returns the rings [lo, hi) of the innermost Array.
func (c *Geo) rings(level, lo, hi int) []Ring {
	out := make([]Ring, hi-lo)
	for j := range out {
		a, b := c.arrays[level].Bounds(lo + j)
		out[j] = c.points(a, b)
	}
	return out
}

func (c *Geo) polygons(level, lo, hi int) []Polygon {
	out := make([]Polygon, hi-lo)
	for j := range out {
		a, b := c.arrays[level].Bounds(lo + j)
		out[j] = c.rings(level+1, a, b)
	}
	return out
}

// Value returns row i as a Point, Ring, LineString, MultiLineString, Polygon or MultiPolygon.
func (c *Geo) Value(i int) any {
	if c.kind == "Point" {
		return Point{c.x.data[i], c.y.data[i]}
	}
	lo, hi := c.arrays[0].Bounds(i)
	switch c.kind {
	case "Ring":
		return Ring(c.points(lo, hi))
	case "LineString":
		return LineString(c.points(lo, hi))
	case "Polygon":
		return Polygon(c.rings(1, lo, hi))
	case "MultiLineString":
		rs := c.rings(1, lo, hi)
		out := make(MultiLineString, len(rs))
		for j, r := range rs {
			out[j] = LineString(r)
		}
		return out
	}
	return MultiPolygon(c.polygons(1, lo, hi))
}

// ScanType returns the Go type of Value.
func (c *Geo) ScanType() reflect.Type {
	switch c.kind {
	case "Point":
		return reflect.TypeFor[Point]()
	case "Ring":
		return reflect.TypeFor[Ring]()
	case "LineString":
		return reflect.TypeFor[LineString]()
	case "MultiLineString":
		return reflect.TypeFor[MultiLineString]()
	case "Polygon":
		return reflect.TypeFor[Polygon]()
	}
	return reflect.TypeFor[MultiPolygon]()
}

// sqlType: database/sql gets the geo types as github.com/paulmach/orb's (orb.Point, orb.Ring,
// orb.LineString, orb.MultiLineString, orb.Polygon, orb.MultiPolygon), as from clickhouse-go:
// database/sql stores a value only into a destination of a type it is assignable to, and orb's
// types are what clickhouse-go's users scan into. This package's own types take orb's through
// their Scan methods, so they scan too.
func (c *Geo) sqlType(bool) reflect.Type {
	switch c.kind {
	case "Point":
		return reflect.TypeFor[orb.Point]()
	case "Ring":
		return reflect.TypeFor[orb.Ring]()
	case "LineString":
		return reflect.TypeFor[orb.LineString]()
	case "MultiLineString":
		return reflect.TypeFor[orb.MultiLineString]()
	case "Polygon":
		return reflect.TypeFor[orb.Polygon]()
	}
	return reflect.TypeFor[orb.MultiPolygon]()
}

// sqlValue returns row i as an orb value (empty ones non-nil, as clickhouse-go's).
func (c *Geo) sqlValue(i int, _ bool) any {
	if c.kind == "Point" {
		return orb.Point{c.x.data[i], c.y.data[i]}
	}
	lo, hi := c.arrays[0].Bounds(i)
	switch c.kind {
	case "Ring":
		return orb.Ring(c.orbPoints(lo, hi))
	case "LineString":
		return orb.LineString(c.orbPoints(lo, hi))
	case "Polygon":
		return c.orbPolygon(1, lo, hi)
	case "MultiLineString":
		out := make(orb.MultiLineString, hi-lo)
		for j := range out {
			a, b := c.arrays[1].Bounds(lo + j)
			out[j] = orb.LineString(c.orbPoints(a, b))
		}
		return out
	}
	out := make(orb.MultiPolygon, hi-lo)
	for j := range out {
		a, b := c.arrays[1].Bounds(lo + j)
		out[j] = c.orbPolygon(2, a, b)
	}
	return out
}

func (c *Geo) orbPoints(lo, hi int) []orb.Point {
	out := make([]orb.Point, hi-lo)
	for j := range out {
		out[j] = orb.Point{c.x.data[lo+j], c.y.data[lo+j]}
	}
	return out
}

// orbPolygon returns the rings [lo, hi) of Array level as an orb.Polygon.
func (c *Geo) orbPolygon(level, lo, hi int) orb.Polygon {
	out := make(orb.Polygon, hi-lo)
	for j := range out {
		a, b := c.arrays[level].Bounds(lo + j)
		out[j] = orb.Ring(c.orbPoints(a, b))
	}
	return out
}

// Scan implements sql.Scanner: it stores an orb.Point (what database/sql gets for a Point
// column, see SQLValue) or a Point into p.
func (p *Point) Scan(src any) error {
	switch v := src.(type) {
	case orb.Point:
		*p = Point{v[0], v[1]}
	case Point:
		*p = v
	default:
		return geoScanErr("Point", src)
	}
	return nil
}

// Scan implements sql.Scanner: it stores an orb.Ring or orb.LineString (or a Ring, a LineString,
// []orb.Point, []Point) into r.
func (r *Ring) Scan(src any) error {
	pts, err := pointsOf("Ring", src)
	*r = Ring(pts)
	return err
}

// Scan implements sql.Scanner: it stores an orb.LineString or orb.Ring (or a LineString, a Ring,
// []orb.Point, []Point) into l.
func (l *LineString) Scan(src any) error {
	pts, err := pointsOf("LineString", src)
	*l = LineString(pts)
	return err
}

// Scan implements sql.Scanner: it stores an orb.MultiLineString or orb.Polygon (or a
// MultiLineString, a Polygon) into m.
func (m *MultiLineString) Scan(src any) error {
	lines, err := linesOf("MultiLineString", src)
	if err != nil {
		return err
	}
	out := make(MultiLineString, len(lines))
	for j, l := range lines {
		out[j] = LineString(l)
	}
	*m = out
	return nil
}

// Scan implements sql.Scanner: it stores an orb.Polygon or orb.MultiLineString (or a Polygon, a
// MultiLineString) into p.
func (p *Polygon) Scan(src any) error {
	lines, err := linesOf("Polygon", src)
	if err != nil {
		return err
	}
	out := make(Polygon, len(lines))
	for j, l := range lines {
		out[j] = Ring(l)
	}
	*p = out
	return nil
}

// Scan implements sql.Scanner: it stores an orb.MultiPolygon (or a MultiPolygon) into m.
func (m *MultiPolygon) Scan(src any) error {
	switch v := src.(type) {
	case MultiPolygon:
		*m = v
		return nil
	case orb.MultiPolygon:
		out := make(MultiPolygon, len(v))
		for j, p := range v {
			if err := out[j].Scan(p); err != nil {
				return err
			}
		}
		*m = out
		return nil
	}
	return geoScanErr("MultiPolygon", src)
}

// pointsOf converts a value of one Array level of points.
func pointsOf(kind string, src any) ([]Point, error) {
	var in []orb.Point
	switch v := src.(type) {
	case orb.Ring:
		in = v
	case orb.LineString:
		in = v
	case []orb.Point:
		in = v
	case Ring:
		return v, nil
	case LineString:
		return v, nil
	case []Point:
		return v, nil
	default:
		return nil, geoScanErr(kind, src)
	}
	out := make([]Point, len(in))
	for j, p := range in {
		out[j] = Point{p[0], p[1]}
	}
	return out, nil
}

// linesOf converts a value of two Array levels of points.
func linesOf(kind string, src any) ([][]Point, error) {
	var out [][]Point
	add := func(n int, at func(int) any) error {
		out = make([][]Point, n)
		for j := range out {
			pts, err := pointsOf(kind, at(j))
			if err != nil {
				return err
			}
			out[j] = pts
		}
		return nil
	}
	var err error
	switch v := src.(type) {
	case orb.Polygon:
		err = add(len(v), func(j int) any { return v[j] })
	case orb.MultiLineString:
		err = add(len(v), func(j int) any { return v[j] })
	case Polygon:
		err = add(len(v), func(j int) any { return v[j] })
	case MultiLineString:
		err = add(len(v), func(j int) any { return v[j] })
	default:
		return nil, geoScanErr(kind, src)
	}
	return out, err
}

func geoScanErr(kind string, src any) error {
	return &ScanError{Column: kind, GoType: "columns." + kind, Reason: fmt.Sprintf("cannot store a %s", goTypeName(src))}
}

// AppendPoint appends p to a Point column.
func (c *Geo) AppendPoint(p Point) error {
	if len(c.arrays) != 0 {
		return mismatch(c, p, "")
	}
	c.x.Append(p.X)
	c.y.Append(p.Y)
	c.inner.(*Tuple).rows++
	return nil
}

// AppendValue appends a value of the geo type: a Point (or [2]float64, a two-element slice, a
// struct of two numbers such as orb.Point's underlying [2]float64) for Point, and for the others
// slices of those nested as deep as the type (Ring and LineString: []Point; Polygon and
// MultiLineString: [][]Point; MultiPolygon: [][][]Point), or nil for an empty value. On error
// nothing is appended.
func (c *Geo) AppendValue(v any) error {
	if p, ok := v.(Point); ok && len(c.arrays) == 0 {
		return c.AppendPoint(p)
	}
	if err := c.inner.AppendValue(v); err != nil {
		if tm, ok := err.(*TypeMismatchError); ok {
			return &TypeMismatchError{Column: c.kind, GoType: goTypeName(v), Reason: tm.Error()}
		}
		return err
	}
	return nil
}

// AppendDefault appends the default: the point (0, 0) or an empty value.
func (c *Geo) AppendDefault() { c.inner.AppendDefault() }

// Truncate keeps the first n values.
func (c *Geo) Truncate(n int) { c.inner.Truncate(n) }

// Reset removes all values.
func (c *Geo) Reset() { c.inner.Reset() }

// ReadPrefix reads nothing: the geo types have no state prefix.
func (c *Geo) ReadPrefix(r *Reader) error { return c.inner.ReadPrefix(r) }

// WritePrefix writes nothing.
func (c *Geo) WritePrefix(w *Writer) { c.inner.WritePrefix(w) }

// Read replaces the values with rows values from r.
func (c *Geo) Read(r *Reader, rows int) error { return c.inner.Read(r, rows) }

// Write appends the values.
func (c *Geo) Write(w *Writer) { c.inner.Write(w) }
