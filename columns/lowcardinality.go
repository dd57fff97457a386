package columns

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"slices"
)

// LowCardinality serialization constants (SerializationLowCardinality in ClickHouse).
const (
	lcKeysVersion            = 1 // SharedDictionariesWithAdditionalKeys
	lcNeedGlobalDictionary   = 1 << 8
	lcHasAdditionalKeys      = 1 << 9
	lcNeedUpdateDictionary   = 1 << 10
	lcKeyTypeMask            = 0xff
	maxLowCardinalityDictLen = 1 << 28
)

// LowCardinality is a column of LowCardinality(T) or LowCardinality(Nullable(T)): a dictionary of
// distinct values and one index per row. For the nullable form index 0 means NULL.
type LowCardinality struct {
	dict     Column
	newDict  func() Column
	nullable bool
	idx      []uint32

	// lookup maps a value to its dictionary index while appending; rebuilt lazily after a Read.
	lookup    map[any]uint32
	strLookup map[string]uint32
	strRecent *[recentSlots]recentString // in front of strLookup (recentSlot)
	recentOff bool                       // the cache missed too often for this block
	misses    int                        // the cache's misses in this block
	lookupOK  bool

	scratch Column   // second and later granules of one block
	keys    []byte   // raw UInt8/UInt16/UInt64 indexes of one granule, reused
	all     []uint32 // 0, 1, ... n-1: gathers a whole dictionary (gather.go)
}

// lookupKey is the map key of a dictionary value: floats by their bits, so that -0 and +0 (and
// NaNs of different payloads) stay distinct entries and values round-trip bit-exactly.
func lookupKey(v any) any {
	switch x := v.(type) {
	case float64:
		return math.Float64bits(x)
	case float32:
		return math.Float32bits(x)
	case *big.Int: // Int128 … UInt256 dictionaries: by value, not by pointer
		return x.String()
	}
	return v
}

// NewLowCardinality returns an empty LowCardinality column whose dictionary columns are made by
// newDict (a non-Nullable type). nullable selects LowCardinality(Nullable(T)).
func NewLowCardinality(newDict func() Column, nullable bool) *LowCardinality {
	return &LowCardinality{dict: newDict(), newDict: newDict, nullable: nullable}
}

// Type returns "LowCardinality(T)" or "LowCardinality(Nullable(T))".
func (c *LowCardinality) Type() string {
	if c.nullable {
		return "LowCardinality(Nullable(" + c.dict.Type() + "))"
	}
	return "LowCardinality(" + c.dict.Type() + ")"
}

// Dictionary returns the dictionary column (borrowed). For the nullable form entry 0 stands for NULL.
func (c *LowCardinality) Dictionary() Column { return c.dict }

// Indexes returns the per-row dictionary indexes (borrowed).
func (c *LowCardinality) Indexes() []uint32 { return c.idx }

// Nullable reports whether the type is LowCardinality(Nullable(T)).
func (c *LowCardinality) Nullable() bool { return c.nullable }

// Rows returns the number of values.
func (c *LowCardinality) Rows() int { return len(c.idx) }

// IsNull reports whether row i is NULL.
func (c *LowCardinality) IsNull(i int) bool { return c.nullable && c.idx[i] == 0 }

// Value returns row i's dictionary value, or nil for NULL.
func (c *LowCardinality) Value(i int) any {
	if c.nullable && c.idx[i] == 0 {
		return nil
	}
	return c.dict.Value(int(c.idx[i]))
}

// Bytes returns row i of a String dictionary, borrowed (nil for NULL or other dictionary types).
func (c *LowCardinality) Bytes(i int) []byte {
	s, ok := c.dict.(*String)
	if !ok || c.nullable && c.idx[i] == 0 {
		return nil
	}
	return s.Bytes(int(c.idx[i]))
}

// ScanType returns the dictionary's scan type.
func (c *LowCardinality) ScanType() reflect.Type { return c.dict.ScanType() }

func (c *LowCardinality) buildLookup() {
	c.lookup, c.strLookup = nil, nil
	if c.nullable && c.dict.Rows() == 0 {
		c.dict.AppendDefault() // index 0: the NULL slot
	}
	first := 0
	if c.nullable {
		first = 1
	}
	if s, ok := c.dict.(*String); ok {
		if c.strRecent == nil {
			c.strRecent = new([recentSlots]recentString)
		}
		clear(c.strRecent[:])
		c.recentOff, c.misses = false, 0
		c.strLookup = make(map[string]uint32, s.Rows())
		for j := s.Rows() - 1; j >= first; j-- {
			c.strLookup[s.String(j)] = uint32(j)
		}
	} else {
		c.lookup = make(map[any]uint32, c.dict.Rows())
		for j := c.dict.Rows() - 1; j >= first; j-- {
			c.lookup[lookupKey(c.dict.Value(j))] = uint32(j)
		}
	}
	c.lookupOK = true
}

// AppendString appends s to a LowCardinality(String) column without boxing.
func (c *LowCardinality) AppendString(s string) error {
	d, ok := c.dict.(*String)
	if !ok {
		return mismatch(c, s, "")
	}
	if !c.lookupOK {
		c.buildLookup()
	}
	var r *recentString
	if len(s) > 0 && !c.recentOff {
		r = &c.strRecent[recentSlot(s)]
		if r.j != 0 && r.s == s {
			c.idx = append(c.idx, r.j-1)
			return nil
		}
		// Values too many or too varied for the cache: the map alone for the rest of the block.
		if c.misses++; c.misses > recentSlots*4 && c.misses*2 > len(c.idx) {
			c.recentOff = true
		}
	}
	j, ok := c.strLookup[s]
	if !ok {
		j = uint32(d.Rows())
		d.Append(s)
		c.strLookup[s] = j
	}
	if r != nil {
		*r = recentString{s: s, j: j + 1}
	}
	c.idx = append(c.idx, j)
	return nil
}

// recentString is a slot of the direct-mapped cache of a LowCardinality(String) column's recent
// values: s is dictionary entry j-1 (j 0: empty). A column's values repeat, and one comparison
// with the slot of a value's length and three of its bytes costs less than the map's hash and
// probe of a group, whose cache lines the rest of an append has mostly evicted.
type recentString struct {
	s string
	j uint32
}

const recentSlots = 64

// recentSlot returns the slot of s (non-empty) in the recent values' cache.
func recentSlot(s string) int {
	h := uint32(len(s)) | uint32(s[0])<<8 | uint32(s[len(s)/2])<<16 | uint32(s[len(s)-1])<<24
	return int((h * 0x9E3779B1) >> 26) // the top 6 bits of a Fibonacci hash: 0..63
}

// AppendNull appends NULL to a LowCardinality(Nullable(T)) column.
func (c *LowCardinality) AppendNull() error {
	if !c.nullable {
		return mismatch(c, nil, "NULL in a non-Nullable column")
	}
	if !c.lookupOK {
		c.buildLookup()
	}
	c.idx = append(c.idx, 0)
	return nil
}

// AppendValue appends v through the dictionary (nil appends NULL for the nullable form).
func (c *LowCardinality) AppendValue(v any) error {
	if s, ok := v.(string); ok && c.strLookup != nil {
		return c.AppendString(s)
	}
	x, isNil, err := deref(v)
	if err != nil {
		return err
	}
	if isNil {
		return c.AppendNull()
	}
	if !c.lookupOK {
		c.buildLookup()
	}
	if s, ok := x.(string); ok && c.strLookup != nil {
		return c.AppendString(s)
	}
	n := c.dict.Rows()
	if err := c.dict.AppendValue(innerArg(v, x)); err != nil {
		return err
	}
	if c.strLookup != nil {
		key := c.dict.(*String).String(n)
		if j, ok := c.strLookup[key]; ok {
			c.dict.Truncate(n)
			c.idx = append(c.idx, j)
			return nil
		}
		c.strLookup[key] = uint32(n)
		c.idx = append(c.idx, uint32(n))
		return nil
	}
	key := lookupKey(c.dict.Value(n))
	if j, ok := c.lookup[key]; ok {
		c.dict.Truncate(n)
		c.idx = append(c.idx, j)
		return nil
	}
	c.lookup[key] = uint32(n)
	c.idx = append(c.idx, uint32(n))
	return nil
}

// AppendDefault appends NULL (nullable form) or the default value.
func (c *LowCardinality) AppendDefault() {
	if c.nullable {
		_ = c.AppendNull()
		return
	}
	if !c.lookupOK {
		c.buildLookup()
	}
	n := c.dict.Rows()
	c.dict.AppendDefault()
	if c.strLookup != nil {
		if j, ok := c.strLookup[""]; ok {
			c.dict.Truncate(n)
			c.idx = append(c.idx, j)
			return
		}
		c.strLookup[""] = uint32(n)
	} else {
		key := lookupKey(c.dict.Value(n))
		if j, ok := c.lookup[key]; ok {
			c.dict.Truncate(n)
			c.idx = append(c.idx, j)
			return
		}
		c.lookup[key] = uint32(n)
	}
	c.idx = append(c.idx, uint32(n))
}

// Truncate keeps the first n rows (the dictionary keeps its entries).
func (c *LowCardinality) Truncate(n int) { c.idx = c.idx[:n] }

// Reset removes all values and the dictionary.
func (c *LowCardinality) Reset() {
	c.idx = c.idx[:0]
	c.dict.Reset()
	c.lookupOK = false
}

// ReadPrefix reads the key serialization version, which must be 1.
func (c *LowCardinality) ReadPrefix(r *Reader) error {
	v, err := r.Uint64()
	if err != nil {
		return decodeErr(c, "prefix: %v", err)
	}
	if v != lcKeysVersion {
		return decodeErr(c, "key serialization version %d, want %d", v, lcKeysVersion)
	}
	return c.dict.ReadPrefix(r)
}

// WritePrefix writes the key serialization version.
func (c *LowCardinality) WritePrefix(w *Writer) {
	w.Uint64(lcKeysVersion)
	c.dict.WritePrefix(w)
}

// Read replaces the values with rows values from r: one or more granules, each a dictionary and
// indexes into it. Later granules' dictionaries are appended to the first one's. On error the
// column is left empty.
func (c *LowCardinality) Read(r *Reader, rows int) error {
	if err := c.read(r, rows); err != nil {
		c.Reset()
		return err
	}
	return nil
}

func (c *LowCardinality) read(r *Reader, rows int) error {
	c.idx = c.idx[:0]
	c.dict.Reset()
	c.lookupOK = false
	if err := checkRows(c, rows); err != nil {
		return err
	}
	// A 4-byte index per row, from as little as one byte of input.
	if err := r.Charge("LowCardinality indexes", uint64(rows)*4); err != nil {
		return decodeErr(c, "%v", err)
	}
	for granule := 0; len(c.idx) < rows; granule++ {
		flags, err := r.Uint64()
		if err != nil {
			return decodeErr(c, "index type: %v", err)
		}
		if flags&lcNeedGlobalDictionary != 0 {
			return decodeErr(c, "global dictionaries are not used in the Native format (flags %#x)", flags)
		}
		if flags&lcHasAdditionalKeys == 0 {
			return decodeErr(c, "granule without additional keys (flags %#x)", flags)
		}
		if rest := flags &^ (lcKeyTypeMask | lcNeedGlobalDictionary | lcHasAdditionalKeys | lcNeedUpdateDictionary); rest != 0 {
			return decodeErr(c, "unknown index flags %#x", flags)
		}
		keyType := flags & lcKeyTypeMask
		if keyType > 3 {
			return decodeErr(c, "unknown index type %d", keyType)
		}
		nkeys, err := r.Uint64()
		if err != nil {
			return decodeErr(c, "dictionary size: %v", err)
		}
		if nkeys > maxLowCardinalityDictLen {
			return decodeErr(c, "dictionary of %d values exceeds the limit %d", nkeys, maxLowCardinalityDictLen)
		}
		base := c.dict.Rows()
		if uint64(base)+nkeys > math.MaxUint32 {
			return decodeErr(c, "dictionaries of more than %d values", uint64(math.MaxUint32))
		}
		if granule == 0 {
			if err := c.dict.Read(r, int(nkeys)); err != nil {
				return err
			}
		} else {
			if c.scratch == nil {
				c.scratch = c.newDict()
			}
			if err := c.scratch.Read(r, int(nkeys)); err != nil {
				return err
			}
			if err := appendDict(c.dict, c.scratch); err != nil {
				return decodeErr(c, "dictionary: %v", err)
			}
		}
		n, err := r.Uint64()
		if err != nil {
			return decodeErr(c, "row count: %v", err)
		}
		if n > uint64(rows-len(c.idx)) {
			return decodeErr(c, "granule of %d rows exceeds the %d rows left", n, rows-len(c.idx))
		}
		if n == 0 && nkeys == 0 {
			return decodeErr(c, "empty granule")
		}
		if err := c.readIndexes(r, keyType, int(n), uint32(base), nkeys); err != nil {
			return err
		}
	}
	return nil
}

// appendDict appends every value of src to dst (both of the same dictionary type).
func appendDict(dst, src Column) error {
	if d, ok := dst.(*String); ok {
		s := src.(*String)
		for j := range s.Rows() {
			d.AppendBytes(s.Bytes(j))
		}
		return nil
	}
	if d, ok := dst.(interface{ appendRaw(Column) bool }); ok && d.appendRaw(src) {
		return nil // fixed-width values, bit for bit
	}
	for j := range src.Rows() {
		if err := dst.AppendValue(src.Value(j)); err != nil {
			return err
		}
	}
	return nil
}

// readIndexes appends n indexes of keyType, each checked against the granule's nkeys and rebased
// by base onto the column's dictionary. In the nullable form index 0 of every granule is NULL and
// stays 0.
func (c *LowCardinality) readIndexes(r *Reader, keyType uint64, n int, base uint32, nkeys uint64) error {
	start := len(c.idx)
	width := 1 << keyType
	if keyType == 2 {
		var err error
		if c.idx, err = readFixed(r, c.idx, n); err != nil {
			c.idx = c.idx[:start]
			return decodeErr(c, "indexes: %v", err)
		}
	} else {
		if lim := r.InputLimit(); lim >= 0 && int64(n) > lim/int64(width) {
			return decodeErr(c, "indexes: %v", errShort(n, width, lim))
		}
		var err error
		if c.keys, err = readFixed(r, c.keys[:0], n*width); err != nil {
			return decodeErr(c, "indexes: %v", err)
		}
		c.idx = growIdx(c.idx, n)
		dst := c.idx[start:]
		switch keyType {
		case 0:
			for j, k := range c.keys {
				dst[j] = uint32(k)
			}
		case 1:
			for j := range dst {
				dst[j] = uint32(binary.LittleEndian.Uint16(c.keys[2*j:]))
			}
		case 3:
			for j := range dst {
				k := binary.LittleEndian.Uint64(c.keys[8*j:])
				if k >= nkeys {
					c.idx = c.idx[:start]
					return decodeErr(c, "index %d is past the dictionary of %d values", k, nkeys)
				}
				dst[j] = uint32(k)
			}
		}
	}
	dst := c.idx[start:]
	for j, k := range dst {
		if uint64(k) >= nkeys {
			c.idx = c.idx[:start]
			return decodeErr(c, "index %d is past the dictionary of %d values", k, nkeys)
		}
		if k != 0 || !c.nullable {
			dst[j] = k + base
		}
	}
	return nil
}

// growIdx extends idx by n elements (contents unspecified).
func growIdx(idx []uint32, n int) []uint32 {
	idx = slices.Grow(idx, n)
	return idx[:len(idx)+n]
}

// Write appends one granule: the dictionary and the indexes in the narrowest key type.
func (c *LowCardinality) Write(w *Writer) { c.writePieces(w, math.MaxInt, func() {}) }

// writePieces is Write in pieces of about n bytes, flush called after each (WritePieces).
func (c *LowCardinality) writePieces(w *Writer, n int, flush func()) {
	if len(c.idx) == 0 {
		return
	}
	if c.nullable && c.dict.Rows() == 0 {
		c.dict.AppendDefault()
	}
	keys := c.dict.Rows()
	var keyType uint64
	switch {
	case keys <= 1<<8:
		keyType = 0
	case keys <= 1<<16:
		keyType = 1
	default:
		keyType = 2
	}
	w.Uint64(keyType | lcHasAdditionalKeys | lcNeedUpdateDictionary)
	w.Uint64(uint64(keys))
	WritePieces(c.dict, w, n, flush)
	w.Uint64(uint64(len(c.idx)))
	if keyType == 2 {
		writeFixedPieces(w, c.idx, n, flush)
		return
	}
	per := max(n>>keyType, 1) // indexes of 1 or 2 bytes
	for idx := c.idx; len(idx) > 0; {
		k := min(len(idx), per)
		if keyType == 0 {
			for _, x := range idx[:k] {
				w.Buf = append(w.Buf, byte(x))
			}
		} else {
			for _, x := range idx[:k] {
				w.Uint16(uint16(x))
			}
		}
		flush()
		idx = idx[k:]
	}
}

func (c *LowCardinality) String() string { return fmt.Sprintf("%s[%d rows]", c.Type(), len(c.idx)) }
