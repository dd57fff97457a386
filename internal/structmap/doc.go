// Package structmap maps Go structs to the columns of a result or insert block: the machinery
// behind chnative.Select, ScanStructs, AppendStructs and AppendStruct, which stay in the root as
// thin generic wrappers.
//
// # Design
//
// Planning happens once per query (PlanRead, on the first block) or once per batch and struct
// type (PlanAppend): each column is matched to an exported field by the field's `ch` tag, else
// its `db` tag, else its name, case-insensitively ("-" skips a field; two fields naming one column
// are an error), and the plan keeps, per column, a copier or appender chosen for the column's
// type and the field's Go type. Rows are then moved column by column (CopyBlock, AppendRows),
// each column's loop running over every row of the block with no reflection per row.
//
// Type knowledge lives in package columns, not here: a column type answers, through the optional
// interfaces columns.FieldCopier, columns.NestedFieldCopier (Nullable into *T, Array into []T)
// and columns.FieldAppender, whether it has a fast path into or from fields of a Go type, and
// implements it. This package asks; when the answer is nil it falls back to a reflect loop that
// converts as database/sql does (Scan-ers, pointers for NULL, assignable and convertible types)
// on reads, and through Column.AppendValue (driver.Valuer, encoding.BinaryMarshaler,
// fmt.Stringer and encoding.TextMarshaler, pointers, ...) on appends.
//
// Memory: fields are addressed through internal/fieldslice, one field of every element of a []T.
// Its pointer arithmetic lives in fieldslice/slice_unsafe.go (built without the purego tag,
// which says what it relies on); with the purego tag fieldslice/slice_purego.go does the same
// through reflect, slowly. This package's own unsafe is one_unsafe.go (a one-element slice over a
// *T, for AppendStruct), with its safe twin one_purego.go. Strings, []byte, slices and pointers a
// copier stores are allocated for each block and never reused: they belong to the
// caller.
//
// The package does not import database/sql: a Scan-er is the interface shape
// interface{ Scan(any) error }.
package structmap
