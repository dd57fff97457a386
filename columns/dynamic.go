package columns

import (
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Dynamic structure versions (SerializationDynamic).
const (
	dynamicV1        = 1 // with max_dynamic_types; written for clients of revision < 54473 and by FORMAT Native
	dynamicV2        = 2
	dynamicFlattened = 3 // Native only: the types and one index per row, no SharedVariant

	dynNull = math.MaxUint32 // in-memory index of a NULL row

	sharedVariantName = "SharedVariant"
	// maxDynamicListed caps the types one block's Dynamic prefix may list.
	maxDynamicListed        = 1 << 16
	defaultDynamicMaxTypes  = 32
	maxDynamicMaxTypesParam = 254
)

// DynamicValue is a non-NULL value of a Dynamic column (or of a JSON path) with its type.
type DynamicValue struct {
	Type  string // ClickHouse type name, e.g. "Int64" or "Array(Nullable(Int64))"
	Value any    // the value, as a column of that type returns it
}

// Scan implements sql.Scanner: database/sql hands a Dynamic column's value over as a
// DynamicValue, or nil for NULL, which Scan stores as the zero DynamicValue.
func (d *DynamicValue) Scan(src any) error {
	switch x := src.(type) {
	case nil:
		*d = DynamicValue{}
	case DynamicValue:
		*d = x
	default:
		return &ScanError{Column: "Dynamic", GoType: "*columns.DynamicValue", Reason: "cannot store a " + goTypeName(src)}
	}
	return nil
}

// Dynamic is a column of Dynamic or Dynamic(max_types=N). It keeps one column per type in use and,
// per row, the type and the row in that type's column. Values the server sends in the
// SharedVariant (types past max_types) are decoded into columns of their own types, so a
// Dynamic always holds typed columns.
//
// Decoding reads the V1, V2 and FLATTENED structures; encoding writes FLATTENED (version 3), which
// the server accepts on INSERT and which needs no SharedVariant.
type Dynamic struct {
	maxTypes int
	explicit bool // spelled Dynamic(max_types=N)

	names []string
	cols  []Column
	idx   []uint32 // per row: index into cols, or dynNull
	offs  []uint32 // per row: row in cols[idx]

	// State of the block prefix that Read decodes.
	version uint64
	order   []int // V1/V2: discriminator -> index into cols, -1 for the SharedVariant
	shared  *String

	// byName maps names[k] to k, so that a prefix of n types decodes in O(n) (a linear search
	// per type took 23 s for 65,536 types). It is rebuilt by typeK when it falls out of step.
	byName map[string]int
}

// typeK returns the index of the column named name, or -1.
func (c *Dynamic) typeK(name string) int {
	if len(c.names) < 8 {
		return slices.Index(c.names, name)
	}
	if len(c.byName) != len(c.names) {
		// names was truncated, or grew without the map: rebuild it (amortized O(1) per type).
		clear(c.byName)
		if c.byName == nil {
			c.byName = make(map[string]int, len(c.names))
		}
		for k, n := range c.names {
			c.byName[n] = k
		}
	}
	if k, ok := c.byName[name]; ok {
		return k
	}
	return -1
}

// truncTypes keeps the first n types.
func (c *Dynamic) truncTypes(n int) {
	c.names, c.cols = c.names[:n], c.cols[:n]
	if len(c.byName) > n {
		clear(c.byName)
	}
}

// NewDynamic returns an empty Dynamic(max_types=maxTypes) column; maxTypes < 0 means the plain
// "Dynamic" type (32 types).
func NewDynamic(maxTypes int) *Dynamic {
	if maxTypes < 0 {
		return &Dynamic{maxTypes: defaultDynamicMaxTypes}
	}
	return &Dynamic{maxTypes: maxTypes, explicit: true}
}

func newDynamicFromNode(n *TypeNode) (Column, error) {
	if n.Args == nil {
		return NewDynamic(-1), nil
	}
	if len(n.Args) != 1 || n.Args[0].Kind != ArgRaw {
		return nil, unsupported(n, "want Dynamic or Dynamic(max_types=N)")
	}
	k, v, ok := strings.Cut(n.Args[0].Raw, "=")
	if !ok || strings.TrimSpace(k) != "max_types" {
		return nil, unsupported(n, "want Dynamic(max_types=N)")
	}
	m, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || m < 0 || m > maxDynamicMaxTypesParam {
		return nil, unsupported(n, "max_types must be 0..%d", maxDynamicMaxTypesParam)
	}
	return NewDynamic(m), nil
}

// Type returns "Dynamic" or "Dynamic(max_types=N)".
func (c *Dynamic) Type() string {
	if c.explicit {
		return "Dynamic(max_types=" + strconv.Itoa(c.maxTypes) + ")"
	}
	return "Dynamic"
}

// MaxTypes returns the type's max_types parameter.
func (c *Dynamic) MaxTypes() int { return c.maxTypes }

// Types returns the names of the types the column holds columns for (borrowed).
func (c *Dynamic) Types() []string { return c.names }

// TypeColumn returns the column of type k (borrowed).
func (c *Dynamic) TypeColumn(k int) Column { return c.cols[k] }

// Rows returns the number of values.
func (c *Dynamic) Rows() int { return len(c.idx) }

// IsNull reports whether row i is NULL.
func (c *Dynamic) IsNull(i int) bool { return c.idx[i] == dynNull }

// Value returns row i as a DynamicValue, or nil for NULL.
func (c *Dynamic) Value(i int) any {
	k := c.idx[i]
	if k == dynNull {
		return nil
	}
	return DynamicValue{Type: c.names[k], Value: c.cols[k].Value(int(c.offs[i]))}
}

// ScanType returns DynamicValue.
func (c *Dynamic) ScanType() reflect.Type { return reflect.TypeFor[DynamicValue]() }

func (c *Dynamic) appendNull() {
	c.idx = append(c.idx, dynNull)
	c.offs = append(c.offs, 0)
}

// typeIndex returns the index of the column of type name, making it if needed.
func (c *Dynamic) typeIndex(name string) (int, error) {
	if k := c.typeK(name); k >= 0 {
		return k, nil
	}
	col, err := New(name)
	if err != nil {
		return -1, err
	}
	canon := col.Type()
	if k := c.typeK(canon); k >= 0 {
		return k, nil
	}
	switch col.(type) {
	case *Nullable, *Dynamic:
		return -1, &UnsupportedTypeError{Type: canon, Reason: "a Dynamic value cannot have this type"}
	}
	if isNullable(col) {
		return -1, &UnsupportedTypeError{Type: canon, Reason: "a Dynamic value cannot have this type"}
	}
	c.names = append(c.names, canon)
	c.cols = append(c.cols, col)
	if c.byName != nil && len(c.byName) == len(c.names)-1 {
		c.byName[canon] = len(c.names) - 1
	}
	return len(c.cols) - 1, nil
}

// AppendValue appends nil (NULL), a DynamicValue or VariantValue naming the type, or a Go value of
// an inferable type: Go integers and floats (int -> Int64, uint -> UInt64, int32 -> Int32, ...),
// string and []byte (String), bool (Bool), time.Time (DateTime64(9)), and slices and
// map[string]T of those (Array(T), Map(String, T)). A Go value whose type is the scan type of
// exactly one type already in the column goes there.
func (c *Dynamic) AppendValue(v any) error {
	switch x := v.(type) {
	case DynamicValue:
		return c.appendTyped(x.Type, x.Value)
	case VariantValue:
		return c.appendTyped(x.Type, x.Value)
	}
	x, isNil, err := deref(v)
	if err != nil {
		return err
	}
	if isNil {
		c.appendNull()
		return nil
	}
	switch y := x.(type) {
	case DynamicValue:
		return c.appendTyped(y.Type, y.Value)
	case VariantValue:
		return c.appendTyped(y.Type, y.Value)
	}
	t := reflect.TypeOf(x)
	match := -1
	for k, col := range c.cols {
		if col.ScanType() == t {
			if match >= 0 {
				match = -2
				break
			}
			match = k
		}
	}
	if match >= 0 {
		return c.appendTo(match, x)
	}
	name := inferCHType(t)
	if name == "" {
		return mismatch(c, x, "no ClickHouse type is inferred for it; wrap it in a columns.DynamicValue")
	}
	return c.appendTyped(name, x)
}

func (c *Dynamic) appendTyped(typ string, v any) error {
	if v == nil {
		c.appendNull()
		return nil
	}
	before := len(c.cols)
	k, err := c.typeIndex(typ)
	if err != nil {
		return &TypeMismatchError{Column: c.Type(), GoType: goTypeName(v), Reason: err.Error()}
	}
	if err := c.appendTo(k, v); err != nil {
		if len(c.cols) > before {
			c.truncTypes(before)
		}
		return err
	}
	return nil
}

func (c *Dynamic) appendTo(k int, v any) error {
	n := c.cols[k].Rows()
	if err := c.cols[k].AppendValue(v); err != nil {
		c.cols[k].Truncate(n)
		return err
	}
	c.idx = append(c.idx, uint32(k))
	c.offs = append(c.offs, uint32(n))
	return nil
}

// inferCHType names the ClickHouse type for values of Go type t, or "".
func inferCHType(t reflect.Type) string {
	if t == reflect.TypeFor[time.Time]() {
		return "DateTime64(9)"
	}
	if t == reflect.TypeFor[Decimal]() {
		return ""
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int64:
		return "Int64"
	case reflect.Int32:
		return "Int32"
	case reflect.Int16:
		return "Int16"
	case reflect.Int8:
		return "Int8"
	case reflect.Uint, reflect.Uint64:
		return "UInt64"
	case reflect.Uint32:
		return "UInt32"
	case reflect.Uint16:
		return "UInt16"
	case reflect.Uint8:
		return "UInt8"
	case reflect.Float64:
		return "Float64"
	case reflect.Float32:
		return "Float32"
	case reflect.String:
		return "String"
	case reflect.Bool:
		return "Bool"
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return "String"
		}
		if e := inferCHType(t.Elem()); e != "" {
			return "Array(" + e + ")"
		}
	case reflect.Map:
		if t.Key().Kind() == reflect.String {
			if e := inferCHType(t.Elem()); e != "" {
				return "Map(String, " + e + ")"
			}
		}
	case reflect.Pointer:
		if e := inferCHType(t.Elem()); e != "" && !strings.HasPrefix(e, "Array(") && !strings.HasPrefix(e, "Map(") {
			return "Nullable(" + e + ")"
		}
	}
	return ""
}

// AppendDefault appends NULL, the default of a Dynamic.
func (c *Dynamic) AppendDefault() { c.appendNull() }

// Truncate keeps the first n values.
func (c *Dynamic) Truncate(n int) {
	if n >= len(c.idx) {
		return
	}
	truncateTagged(c.idx[:n], dynNull, c.cols)
	c.idx, c.offs = c.idx[:n], c.offs[:n]
}

// Reset removes all values and types.
func (c *Dynamic) Reset() {
	c.truncTypes(0)
	c.idx, c.offs = c.idx[:0], c.offs[:0]
}

func (c *Dynamic) clearPrefix() {
	c.version, c.order = 0, nil
}

// ReadPrefix reads the block's structure: V1, V2 or FLATTENED, the types, and their prefixes.
func (c *Dynamic) ReadPrefix(r *Reader) error {
	if err := c.readPrefix(r); err != nil {
		c.Reset()
		c.clearPrefix()
		return err
	}
	return nil
}

func (c *Dynamic) readPrefix(r *Reader) error {
	c.Reset()
	c.clearPrefix()
	ver, err := r.Uint64()
	if err != nil {
		return decodeErr(c, "structure version: %v", unexpected(err))
	}
	switch ver {
	case dynamicV1, dynamicV2, dynamicFlattened:
	default:
		return decodeErr(c, "structure version %d is not supported (1 V1, 2 V2, 3 FLATTENED)", ver)
	}
	if ver == dynamicV1 {
		if _, err := r.UVarInt(); err != nil {
			return decodeErr(c, "max_dynamic_types: %v", unexpected(err))
		}
	}
	limit := maxDynamicListed
	if ver != dynamicFlattened {
		limit = maxVariants - 1 // with the SharedVariant, discriminators are UInt8
	}
	n, err := r.Count("Dynamic types", limit)
	if err != nil {
		return decodeErr(c, "number of types: %v", err)
	}
	for range n {
		name, err := r.String("Dynamic type name", MaxTypeNameLength)
		if err != nil {
			return decodeErr(c, "type name: %v", unexpected(err))
		}
		if name == sharedVariantName {
			return decodeErr(c, "%s listed as a type", name)
		}
		before := len(c.cols)
		if _, err := c.typeIndex(name); err != nil {
			return decodeErr(c, "type %q: %v", name, err)
		}
		if len(c.cols) == before {
			return decodeErr(c, "type %q listed twice", name)
		}
	}
	if ver == dynamicFlattened {
		for _, col := range c.cols {
			if err := col.ReadPrefix(r); err != nil {
				return err
			}
		}
		c.version = ver
		return nil
	}
	// V1/V2: the prefix of Variant(types..., SharedVariant), in sorted order.
	mode, err := r.Uint64()
	if err != nil {
		return decodeErr(c, "variant mode: %v", unexpected(err))
	}
	if mode != variantModeBasic {
		return decodeErr(c, "variant discriminators mode %d, want 0 (BASIC)", mode)
	}
	sorted := append(slices.Clone(c.names), sharedVariantName)
	slices.Sort(sorted)
	c.order = make([]int, len(sorted))
	for d, name := range sorted {
		if name == sharedVariantName {
			c.order[d] = -1
			continue
		}
		k := c.typeK(name)
		c.order[d] = k
		if err := c.cols[k].ReadPrefix(r); err != nil {
			return err
		}
	}
	if c.shared == nil {
		c.shared = NewString()
	}
	c.version = ver
	return nil
}

// WritePrefix writes the FLATTENED structure: version 3, the types and their prefixes.
func (c *Dynamic) WritePrefix(w *Writer) {
	w.Uint64(dynamicFlattened)
	w.UVarInt(uint64(len(c.names)))
	for _, n := range c.names {
		w.String(n)
	}
	for _, col := range c.cols {
		col.WritePrefix(w)
	}
}

// Read replaces the values with rows values from r, in the structure the prefix announced.
func (c *Dynamic) Read(r *Reader, rows int) error {
	if err := c.read(r, rows); err != nil {
		c.idx, c.offs = c.idx[:0], c.offs[:0]
		for _, col := range c.cols {
			col.Reset()
		}
		return err
	}
	return nil
}

func (c *Dynamic) read(r *Reader, rows int) error {
	c.idx, c.offs = c.idx[:0], c.offs[:0]
	if err := checkRows(c, rows); err != nil {
		return err
	}
	if rows == 0 {
		for _, col := range c.cols {
			col.Reset()
		}
		return nil
	}
	// A 4-byte type index and a 4-byte offset per row, from as little as one byte of input.
	if err := r.Charge("Dynamic indexes", uint64(rows)*8); err != nil {
		return decodeErr(c, "%v", err)
	}
	switch c.version {
	case dynamicFlattened:
		return c.readFlattened(r, rows)
	case dynamicV1, dynamicV2:
		return c.readVariant(r, rows)
	}
	return decodeErr(c, "data without a structure prefix")
}

func (c *Dynamic) readFlattened(r *Reader, rows int) error {
	n := len(c.cols)
	var counts []int
	var err error
	switch {
	case n+1 <= 1<<8:
		var ix []uint8
		if ix, err = readFixed(r, []uint8(nil), rows); err == nil {
			counts, err = variantOffsets(c, ix, &c.offs, n, uint8(n))
			c.idx = widenIdx(c.idx, ix, uint64(n))
		}
	case n+1 <= 1<<16:
		var ix []uint16
		if ix, err = readFixed(r, []uint16(nil), rows); err == nil {
			counts, err = variantOffsets(c, ix, &c.offs, n, uint16(n))
			c.idx = widenIdx(c.idx, ix, uint64(n))
		}
	default:
		var ix []uint32
		if ix, err = readFixed(r, []uint32(nil), rows); err == nil {
			counts, err = variantOffsets(c, ix, &c.offs, n, uint32(n))
			c.idx = widenIdx(c.idx, ix, uint64(n))
		}
	}
	if err != nil {
		if _, ok := err.(*DecodeError); ok {
			return err
		}
		return decodeErr(c, "indexes: %v", err)
	}
	for k, col := range c.cols {
		if err := col.Read(r, counts[k]); err != nil {
			return err
		}
	}
	return nil
}

func widenIdx[T uint8 | uint16 | uint32](dst []uint32, ix []T, null uint64) []uint32 {
	dst = dst[:0]
	for _, k := range ix {
		if uint64(k) == null {
			dst = append(dst, dynNull)
		} else {
			dst = append(dst, uint32(k))
		}
	}
	return dst
}

func (c *Dynamic) readVariant(r *Reader, rows int) error {
	discr, err := readFixed(r, []uint8(nil), rows)
	if err != nil {
		return decodeErr(c, "discriminators: %v", err)
	}
	var voffs []uint32
	counts, err := variantOffsets(c, discr, &voffs, len(c.order), variantNull)
	if err != nil {
		return err
	}
	for d, k := range c.order {
		col := Column(c.shared)
		if k >= 0 {
			col = c.cols[k]
		}
		if err := col.Read(r, counts[d]); err != nil {
			return err
		}
	}
	listed := len(c.cols)
	for i, d := range discr {
		if d == variantNull {
			c.appendNull()
			continue
		}
		if k := c.order[d]; k >= 0 {
			c.idx = append(c.idx, uint32(k))
			c.offs = append(c.offs, voffs[i])
			continue
		}
		if err := c.appendShared(c.shared.Bytes(int(voffs[i])), listed); err != nil {
			return decodeErr(c, "row %d: SharedVariant value: %v (set output_format_native_use_flattened_dynamic_and_json_serialization=1 to have the server send typed columns)", i, err)
		}
	}
	return nil
}

// appendShared appends one SharedVariant value (binary type, then the value) as a typed row. Types
// listed in the prefix (index < listed) cannot appear there.
func (c *Dynamic) appendShared(b []byte, listed int) error {
	r := NewBytesReader(b)
	name, err := DecodeBinaryType(r)
	if err != nil {
		return err
	}
	if name == "Nothing" {
		c.appendNull()
		return nil
	}
	before := len(c.cols)
	k, err := c.typeIndex(name)
	if err != nil {
		return err
	}
	if k < listed {
		return &DecodeError{Type: c.Type(), Msg: "SharedVariant value of listed type " + name}
	}
	n := c.cols[k].Rows()
	if err := readBinaryValue(r, c.cols[k], 1); err != nil {
		c.cols[k].Truncate(n)
		if len(c.cols) > before {
			c.truncTypes(before)
		}
		return err
	}
	if r.Buffered() != 0 {
		return &DecodeError{Type: c.Type(), Msg: strconv.Itoa(r.Buffered()) + " bytes after a " + name + " value"}
	}
	c.idx = append(c.idx, uint32(k))
	c.offs = append(c.offs, uint32(n))
	return nil
}

// Write appends the FLATTENED data: one index per row (UInt8, UInt16 or UInt32 by the number of
// types; the last index is NULL), then each type's rows.
func (c *Dynamic) Write(w *Writer) { c.writePieces(w, math.MaxInt, func() {}) }

// writePieces is Write in pieces of about n bytes, flush called after each (WritePieces).
func (c *Dynamic) writePieces(w *Writer, n int, flush func()) {
	types := len(c.cols)
	per := max(n/4, 1) // indexes of up to 4 bytes
	for idx := c.idx; len(idx) > 0; {
		k := min(len(idx), per)
		for _, x := range idx[:k] {
			if x == dynNull {
				x = uint32(types)
			}
			switch {
			case types+1 <= 1<<8:
				w.Byte(byte(x))
			case types+1 <= 1<<16:
				w.Uint16(uint16(x))
			default:
				w.Uint32(x)
			}
		}
		flush()
		idx = idx[k:]
	}
	for _, col := range c.cols {
		if col.Rows() > 0 {
			WritePieces(col, w, n, flush)
		}
	}
}
