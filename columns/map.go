package columns

import (
	"math"
	"reflect"
	"sort"
)

// Map is a column of Map(K, V), encoded as Array(Tuple(K, V)): offsets, then all keys, then all
// values.
type Map struct {
	keys, vals Column
	offs       []uint64
	gidx       []uint32 // entry indexes of a gather (gather.go), reused
}

// NewMap returns an empty Map column of the given (empty) key and value columns. The key column's
// ScanType must be comparable (New refuses other key types).
func NewMap(keys, vals Column) *Map { return &Map{keys: keys, vals: vals} }

// Type returns "Map(K, V)".
func (c *Map) Type() string { return "Map(" + c.keys.Type() + ", " + c.vals.Type() + ")" }

// Keys returns the column of all keys of all rows.
func (c *Map) Keys() Column { return c.keys }

// Values returns the column of all values of all rows.
func (c *Map) Values() Column { return c.vals }

// Offsets returns the cumulative end offsets (borrowed).
func (c *Map) Offsets() []uint64 { return c.offs }

// Bounds returns the entry range of row i.
func (c *Map) Bounds(i int) (lo, hi int) {
	if i > 0 {
		lo = int(c.offs[i-1])
	}
	return lo, int(c.offs[i])
}

// Rows returns the number of maps.
func (c *Map) Rows() int { return len(c.offs) }

// ScanType returns map[K]V of the key and value scan types.
func (c *Map) ScanType() reflect.Type { return reflect.MapOf(c.keys.ScanType(), elemGoType(c.vals)) }

// Value returns row i as a Go map.
func (c *Map) Value(i int) any {
	lo, hi := c.Bounds(i)
	mt := c.ScanType()
	m := reflect.MakeMapWithSize(mt, hi-lo)
	for j := lo; j < hi; j++ {
		var k reflect.Value
		if x := c.keys.Value(j); x == nil {
			k = reflect.Zero(mt.Key())
		} else {
			k = reflect.ValueOf(x)
		}
		var v reflect.Value
		if x := c.vals.Value(j); x == nil {
			v = reflect.Zero(mt.Elem())
		} else {
			v = reflect.ValueOf(x)
			if mt.Elem().Kind() == reflect.Pointer && v.Type() != mt.Elem() {
				p := reflect.New(mt.Elem().Elem())
				p.Elem().Set(v)
				v = p
			}
		}
		m.SetMapIndex(k, v)
	}
	return m.Interface()
}

// sqlType: database/sql gets a map of the values' element form (see SQLValue), keys as Value's,
// or Value's map when the values' form is the same.
func (c *Map) sqlType(bool) reflect.Type {
	if !sqlDiffers(c.vals) {
		return nil
	}
	return reflect.MapOf(c.keys.ScanType(), sqlSlotType(c.vals))
}

func (c *Map) sqlValue(i int, _ bool) any {
	lo, hi := c.Bounds(i)
	mt := c.sqlType(false)
	m := reflect.MakeMapWithSize(mt, hi-lo)
	for j := lo; j < hi; j++ {
		k := reflect.Zero(mt.Key())
		if x := c.keys.Value(j); x != nil {
			k = reflect.ValueOf(x)
		}
		m.SetMapIndex(k, sqlSlot(c.vals, j, mt.Elem()))
	}
	return m.Interface()
}

// AppendValue appends a Go map (entries in key order when the keys sort), or nil as an empty map.
// On error nothing is appended.
func (c *Map) AppendValue(v any) error {
	v, isNil, err := deref(v)
	if err != nil {
		return err
	}
	if isNil {
		c.AppendDefault()
		return nil
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Map {
		return mismatch(c, v, "not a map")
	}
	nk, nv := c.keys.Rows(), c.vals.Rows()
	keys := rv.MapKeys()
	sort.Slice(keys, func(a, b int) bool { return lessValue(keys[a], keys[b]) })
	for _, k := range keys {
		if err := c.keys.AppendValue(k.Interface()); err != nil {
			c.keys.Truncate(nk)
			c.vals.Truncate(nv)
			return err
		}
		if err := c.vals.AppendValue(rv.MapIndex(k).Interface()); err != nil {
			c.keys.Truncate(nk)
			c.vals.Truncate(nv)
			return err
		}
	}
	c.offs = append(c.offs, uint64(c.keys.Rows()))
	return nil
}

func lessValue(a, b reflect.Value) bool {
	switch a.Kind() {
	case reflect.String:
		return a.String() < b.String()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return a.Int() < b.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return a.Uint() < b.Uint()
	case reflect.Float32, reflect.Float64:
		return a.Float() < b.Float()
	}
	return false
}

// AppendDefault appends an empty map.
func (c *Map) AppendDefault() { c.offs = append(c.offs, uint64(c.keys.Rows())) }

// Truncate keeps the first n rows.
func (c *Map) Truncate(n int) {
	c.offs = c.offs[:n]
	e := 0
	if n > 0 {
		e = int(c.offs[n-1])
	}
	c.keys.Truncate(e)
	c.vals.Truncate(e)
}

// Reset removes all values.
func (c *Map) Reset() {
	c.offs = c.offs[:0]
	c.keys.Reset()
	c.vals.Reset()
}

// ReadPrefix reads the key and value prefixes.
func (c *Map) ReadPrefix(r *Reader) error {
	if err := c.keys.ReadPrefix(r); err != nil {
		return err
	}
	return c.vals.ReadPrefix(r)
}

// WritePrefix writes the key and value prefixes.
func (c *Map) WritePrefix(w *Writer) {
	c.keys.WritePrefix(w)
	c.vals.WritePrefix(w)
}

// Read replaces the values with rows maps from r.
func (c *Map) Read(r *Reader, rows int) error {
	total, err := readOffsets(r, c, &c.offs, rows)
	if err == nil {
		err = c.keys.Read(r, total)
	}
	if err == nil {
		err = c.vals.Read(r, total)
	}
	if err != nil {
		c.Reset()
		return err
	}
	return nil
}

// Write appends the offsets, the keys and the values.
func (c *Map) Write(w *Writer) { c.writePieces(w, math.MaxInt, func() {}) }

// writePieces is Write in pieces of about n bytes, flush called after each (WritePieces).
func (c *Map) writePieces(w *Writer, n int, flush func()) {
	writeFixedPieces(w, c.offs, n, flush)
	WritePieces(c.keys, w, n, flush)
	WritePieces(c.vals, w, n, flush)
}
