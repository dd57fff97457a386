package columns

import (
	"math"
	"reflect"
	"slices"
	"strings"
)

const (
	variantNull        = 255 // discriminator of a NULL row
	variantModeBasic   = 0   // discriminators: one UInt8 per row
	variantModeCompact = 1   // MergeTree-only granule-compact discriminators
	maxVariants        = 255
)

// VariantValue is a non-NULL value of a Variant column together with the variant type holding it.
// AppendValue of Variant and Dynamic columns takes it to say which type a value is for.
type VariantValue struct {
	Type  string // ClickHouse type name of the variant, e.g. "UInt8" or "Array(String)"
	Value any    // the value, as that type's column returns it
}

// Scan implements sql.Scanner: database/sql hands a Variant column's value over as a VariantValue,
// or nil for NULL, which Scan stores as the zero VariantValue (so a variable of the column's scan
// type takes every row).
func (v *VariantValue) Scan(src any) error {
	switch x := src.(type) {
	case nil:
		*v = VariantValue{}
	case VariantValue:
		*v = x
	default:
		return &ScanError{Column: "Variant", GoType: "*columns.VariantValue", Reason: "cannot store a " + goTypeName(src)}
	}
	return nil
}

// Variant is a column of Variant(T1, ..., Tn): per row a discriminator (the index of its type in
// the variant list, sorted by type name as the server sorts it; 255 = NULL) and one column per
// variant holding only the rows of that type, in row order.
type Variant struct {
	vars  []Column
	names []string
	discr []uint8
	offs  []uint32 // row i is vars[discr[i]] row offs[i]; unused for NULL rows
}

// NewVariant returns an empty Variant of the given (empty) columns, sorted by type name. Duplicate
// types, more than 255 variants, and Nullable, Variant or Dynamic variants are an error.
func NewVariant(vars []Column) (*Variant, error) {
	vars = slices.Clone(vars)
	slices.SortFunc(vars, func(a, b Column) int { return strings.Compare(a.Type(), b.Type()) })
	if len(vars) == 0 || len(vars) > maxVariants {
		return nil, &UnsupportedTypeError{Type: "Variant", Reason: "want 1 to 255 variants"}
	}
	names := make([]string, len(vars))
	for i, v := range vars {
		names[i] = v.Type()
		if i > 0 && names[i] == names[i-1] {
			return nil, &UnsupportedTypeError{Type: "Variant", Reason: "variant " + names[i] + " appears twice"}
		}
		switch v.(type) {
		case *Nullable, *Variant, *Dynamic:
			return nil, &UnsupportedTypeError{Type: "Variant", Reason: "a variant cannot be " + names[i]}
		}
		if isNullable(v) {
			return nil, &UnsupportedTypeError{Type: "Variant", Reason: "a variant cannot be " + names[i]}
		}
	}
	return &Variant{vars: vars, names: names}, nil
}

// Type returns "Variant(T1, ..., Tn)" with the types sorted.
func (c *Variant) Type() string { return "Variant(" + strings.Join(c.names, ", ") + ")" }

// Variants returns the variant columns in discriminator order (borrowed).
func (c *Variant) Variants() []Column { return c.vars }

// Discriminators returns the per-row discriminators (borrowed; 255 = NULL).
func (c *Variant) Discriminators() []uint8 { return c.discr }

// Rows returns the number of values.
func (c *Variant) Rows() int { return len(c.discr) }

// IsNull reports whether row i is NULL.
func (c *Variant) IsNull(i int) bool { return c.discr[i] == variantNull }

// Value returns row i as a VariantValue, or nil for NULL.
func (c *Variant) Value(i int) any {
	d := c.discr[i]
	if d == variantNull {
		return nil
	}
	return VariantValue{Type: c.names[d], Value: c.vars[d].Value(int(c.offs[i]))}
}

// ScanType returns VariantValue.
func (c *Variant) ScanType() reflect.Type { return reflect.TypeFor[VariantValue]() }

func (c *Variant) appendNull() {
	c.discr = append(c.discr, variantNull)
	c.offs = append(c.offs, 0)
}

// variantIndex finds the variant named typ (in any spelling New accepts), or -1.
func variantIndex(names []string, typ string) int {
	if i := slices.Index(names, typ); i >= 0 {
		return i
	}
	if col, err := New(typ); err == nil {
		return slices.Index(names, col.Type())
	}
	return -1
}

// AppendValue appends nil (NULL), a VariantValue naming one of the variants, or a Go value that
// exactly one variant takes: a value whose Go type is a variant's scan type goes to that variant;
// otherwise the value must convert to exactly one variant (an ambiguous value, such as an int for
// Variant(Int64, UInt64), is an error: wrap it in a VariantValue).
func (c *Variant) AppendValue(v any) error {
	switch x := v.(type) {
	case VariantValue:
		return c.appendTyped(x)
	case *VariantValue:
		if x != nil {
			return c.appendTyped(*x)
		}
	case DynamicValue:
		return c.appendTyped(VariantValue(x))
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
	case VariantValue:
		return c.appendTyped(y)
	case DynamicValue:
		return c.appendTyped(VariantValue(y))
	}
	k, err := pickVariant(c, c.vars, x)
	if err != nil {
		return err
	}
	return c.appendTo(k, x)
}

// pickVariant chooses the column of cols that takes x: the only one whose scan type is x's type,
// else the only one whose AppendValue accepts x.
func pickVariant(self Column, cols []Column, x any) (int, error) {
	t := reflect.TypeOf(x)
	exact := -1
	for k, col := range cols {
		if col.ScanType() == t {
			if exact >= 0 {
				exact = -2
				break
			}
			exact = k
		}
	}
	if exact >= 0 {
		return exact, nil
	}
	var ok []int
	for k, col := range cols {
		n := col.Rows()
		if col.AppendValue(x) == nil {
			col.Truncate(n)
			ok = append(ok, k)
		}
	}
	switch len(ok) {
	case 1:
		return ok[0], nil
	case 0:
		return -1, mismatch(self, x, "no variant takes it")
	}
	names := make([]string, len(ok))
	for i, k := range ok {
		names[i] = cols[k].Type()
	}
	return -1, mismatch(self, x, "ambiguous: variants "+strings.Join(names, " and ")+" take it; wrap it in a columns.VariantValue")
}

func (c *Variant) appendTyped(vv VariantValue) error {
	if vv.Type == "" && vv.Value == nil {
		// The zero VariantValue is what Value returns for NULL: it appends back as NULL.
		c.appendNull()
		return nil
	}
	k := variantIndex(c.names, vv.Type)
	if k < 0 {
		return mismatch(c, vv.Value, "no variant "+vv.Type)
	}
	if vv.Value == nil {
		if isNullable(c.vars[k]) {
			return c.appendTo(k, nil)
		}
		c.appendNull()
		return nil
	}
	return c.appendTo(k, vv.Value)
}

func (c *Variant) appendTo(k int, x any) error {
	n := c.vars[k].Rows()
	if err := c.vars[k].AppendValue(x); err != nil {
		c.vars[k].Truncate(n)
		return err
	}
	c.discr = append(c.discr, uint8(k))
	c.offs = append(c.offs, uint32(n))
	return nil
}

// AppendDefault appends NULL, the default of a Variant.
func (c *Variant) AppendDefault() { c.appendNull() }

// Truncate keeps the first n values.
func (c *Variant) Truncate(n int) {
	if n >= len(c.discr) {
		return
	}
	truncateTagged(c.discr[:n], variantNull, c.vars)
	c.discr, c.offs = c.discr[:n], c.offs[:n]
}

// Reset removes all values.
func (c *Variant) Reset() {
	for _, col := range c.vars {
		col.Reset()
	}
	c.discr, c.offs = c.discr[:0], c.offs[:0]
}

// ReadPrefix reads the discriminators mode (only BASIC is used in Native) and the variants'
// prefixes.
func (c *Variant) ReadPrefix(r *Reader) error {
	mode, err := r.Uint64()
	if err != nil {
		return decodeErr(c, "prefix: %v", unexpected(err))
	}
	switch mode {
	case variantModeBasic:
	case variantModeCompact:
		return decodeErr(c, "COMPACT discriminators mode is used only in MergeTree parts, not in Native")
	default:
		return decodeErr(c, "unknown discriminators mode %d", mode)
	}
	for _, col := range c.vars {
		if err := col.ReadPrefix(r); err != nil {
			return err
		}
	}
	return nil
}

// WritePrefix writes the BASIC discriminators mode and the variants' prefixes.
func (c *Variant) WritePrefix(w *Writer) {
	w.Uint64(variantModeBasic)
	for _, col := range c.vars {
		col.WritePrefix(w)
	}
}

// Read replaces the values with rows values from r: the discriminators, then each variant's rows.
func (c *Variant) Read(r *Reader, rows int) error {
	if err := c.read(r, rows); err != nil {
		c.Reset()
		return err
	}
	return nil
}

func (c *Variant) read(r *Reader, rows int) error {
	c.Reset()
	if err := checkRows(c, rows); err != nil {
		return err
	}
	var err error
	if c.discr, err = readFixed(r, c.discr, rows); err != nil {
		return decodeErr(c, "discriminators: %v", err)
	}
	// A 4-byte offset per row, from its one-byte discriminator.
	if err := r.Charge("Variant offsets", uint64(rows)*4); err != nil {
		return decodeErr(c, "%v", err)
	}
	counts, err := variantOffsets(c, c.discr, &c.offs, len(c.vars), variantNull)
	if err != nil {
		return err
	}
	for k, col := range c.vars {
		if err := col.Read(r, counts[k]); err != nil {
			return err
		}
	}
	return nil
}

// variantOffsets checks per-row indexes against n (null marks NULL) and fills offs with each row's
// offset into its column; it returns the row count of every column.
func variantOffsets[T uint8 | uint16 | uint32](col Column, idx []T, offs *[]uint32, n int, null T) ([]int, error) {
	counts := make([]int, n)
	o := (*offs)[:0]
	for i, d := range idx {
		if d == null {
			o = append(o, 0)
			continue
		}
		if int(d) >= n {
			*offs = o[:0]
			return nil, decodeErr(col, "row %d: discriminator %d of %d types", i, d, n)
		}
		o = append(o, uint32(counts[d]))
		counts[d]++
	}
	*offs = o
	return counts, nil
}

// Write appends the discriminators and each variant's rows.
func (c *Variant) Write(w *Writer) { c.writePieces(w, math.MaxInt, func() {}) }

// writePieces is Write in pieces of about n bytes, flush called after each (WritePieces).
func (c *Variant) writePieces(w *Writer, n int, flush func()) {
	writeBytePieces(w, c.discr, n, flush)
	for _, col := range c.vars {
		if col.Rows() > 0 {
			WritePieces(col, w, n, flush)
		}
	}
}

func newVariantFromNode(n *TypeNode) (Column, error) {
	if len(n.Args) == 0 {
		return nil, unsupported(n, "a Variant needs types")
	}
	if len(n.Args) > maxVariants {
		// Refused before a column is built for any of them.
		return nil, unsupported(n, "%d variants, want 1 to %d", len(n.Args), maxVariants)
	}
	vars := make([]Column, len(n.Args))
	for i, a := range n.Args {
		if a.Kind != ArgType || a.Field != "" {
			return nil, unsupported(n, "argument %d is not a type", i+1)
		}
		c, err := FromNode(a.Type)
		if err != nil {
			return nil, err
		}
		vars[i] = c
	}
	v, err := NewVariant(vars)
	if err != nil {
		return nil, unsupported(n, "%s", err.(*UnsupportedTypeError).Reason)
	}
	return v, nil
}

// truncateTagged truncates each of cols to the number of rows of kept (per-row indexes into cols,
// null for NULL rows) that belong to it.
func truncateTagged[T uint8 | uint32](kept []T, null T, cols []Column) {
	counts := make([]int, len(cols))
	for _, k := range kept {
		if k != null {
			counts[k]++
		}
	}
	for k, col := range cols {
		col.Truncate(counts[k])
	}
}
