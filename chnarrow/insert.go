package chnarrow

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/chnative/chnative"
	"github.com/chnative/chnative/columns"
)

// Insert sends a block once it buffers InsertBlockRows rows or InsertBlockBytes bytes of values
// (the defaults of the DSN keys insert_block_rows and insert_block_bytes), after the record
// that reaches either: a block holds whole records.
const (
	InsertBlockRows  = 1_000_000
	InsertBlockBytes = 16 << 20
)

// errNull is the cause of a NULL sent to a column that cannot hold it.
var errNull = errors.New("NULL into a column that is not Nullable")

// Insert runs query ("INSERT INTO t [(cols)]") on a connection of db (a chnative *sql.DB) and
// inserts every record of rr, returning the number of rows the server confirmed. Record fields
// are matched to the insert's columns by name when every column has a field of its name, else
// by position when the counts agree; a column or field left unmatched is an error before
// anything is sent.
//
// Values convert as the package doc's table says. A value that does not convert ends the insert
// with a *chnative.ColumnError naming the column, the ClickHouse type and the row (counted from
// 0 over all records); the insert is then cancelled, and n is the rows sent in earlier blocks,
// which the server may keep or drop (see chnative.Batch).
func Insert(ctx context.Context, db *sql.DB, query string, rr array.RecordReader) (n int64, err error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	return InsertSQLConn(ctx, conn, query, rr)
}

// InsertSQLConn is Insert on conn.
func InsertSQLConn(ctx context.Context, conn *sql.Conn, query string, rr array.RecordReader) (n int64, err error) {
	err = conn.Raw(func(dc any) error {
		c, ok := chnative.AsConn(dc)
		if !ok {
			return ErrNotChnative
		}
		var ierr error
		n, ierr = InsertConn(ctx, c, query, rr)
		return ierr
	})
	return n, err
}

// InsertConn is Insert on c, a chnative connection reached through sql.Conn.Raw.
func InsertConn(ctx context.Context, c chnative.Conn, query string, rr array.RecordReader) (int64, error) {
	b, err := c.PrepareBatch(ctx, query)
	if err != nil {
		return 0, err
	}
	fail := func(err error) (int64, error) {
		sent := int64(b.Sent())
		b.Abort()
		return sent, err
	}
	fieldOf, err := matchColumns(b, rr.Schema())
	if err != nil {
		return fail(err)
	}
	var total int64
	for rr.Next() {
		rec := rr.RecordBatch()
		if err := appendRecord(b, rec, fieldOf, total); err != nil {
			return fail(err)
		}
		total += rec.NumRows()
		if b.Rows() >= InsertBlockRows || b.Block().DataBytes(InsertBlockBytes) >= InsertBlockBytes {
			if err := b.Flush(); err != nil {
				return int64(b.Sent()), err // the Batch has ended
			}
		}
	}
	if err := rr.Err(); err != nil {
		return fail(fmt.Errorf("chnarrow: reading the records to insert: %w", err))
	}
	if err := b.SendContext(ctx); err != nil {
		return int64(b.Sent()), err
	}
	return total, nil
}

// matchColumns returns, for each column of the insert, the index of its record field.
func matchColumns(b *chnative.Batch, s *arrow.Schema) ([]int, error) {
	n := b.NumColumns()
	fieldOf := make([]int, n)
	byName := true
	for i := range n {
		idx := s.FieldIndices(b.Name(i))
		if len(idx) != 1 {
			byName = false
			break
		}
		fieldOf[i] = idx[0]
	}
	if byName && s.NumFields() == n {
		return fieldOf, nil
	}
	if s.NumFields() != n {
		var names []string
		for i := range n {
			names = append(names, b.Name(i))
		}
		return nil, fmt.Errorf("chnarrow: the records have %d fields (%s) and the insert %d columns (%s): name the columns in the INSERT, or give one field per column",
			s.NumFields(), fieldNames(s), n, strings.Join(names, ", "))
	}
	for i := range fieldOf {
		fieldOf[i] = i
	}
	return fieldOf, nil
}

func fieldNames(s *arrow.Schema) string {
	var names []string
	for _, f := range s.Fields() {
		names = append(names, f.Name)
	}
	return strings.Join(names, ", ")
}

// appendRecord appends rec's rows to b's columns; first is the row number of rec's first row.
func appendRecord(b *chnative.Batch, rec arrow.RecordBatch, fieldOf []int, first int64) error {
	rows := int(rec.NumRows())
	for i, f := range fieldOf {
		col := b.Column(i)
		arr := rec.Column(f)
		colErr := func(row int, err error) error {
			return &chnative.ColumnError{Column: b.Name(i), Type: col.Type(), Row: int(first) + row, Err: err}
		}
		if ok, row, err := appendBulk(col, arr); ok {
			if err != nil {
				return colErr(row, err)
			}
			continue
		}
		fn, err := bind(col, arr)
		if err != nil {
			return colErr(0, err)
		}
		for r := range rows {
			if err := fn(r); err != nil {
				return colErr(r, err)
			}
		}
	}
	return nil
}

// appendBulk appends a whole array when it is of the column's own Go type and has no NULLs,
// reporting whether it did (a failure names its row).
func appendBulk(col columns.Column, arr arrow.Array) (ok bool, row int, err error) {
	if n, isNullable := col.(*columns.Nullable); isNullable {
		return appendNullable(n, arr)
	}
	if arr.NullN() > 0 {
		return false, 0, nil
	}
	switch c := col.(type) {
	case *columns.Int8:
		return bulk(c, arr, arrow.INT8)
	case *columns.Int16:
		return bulk(c, arr, arrow.INT16)
	case *columns.Int32:
		return bulk(c, arr, arrow.INT32)
	case *columns.Int64:
		return bulk(c, arr, arrow.INT64)
	case *columns.UInt8:
		return bulk(c, arr, arrow.UINT8)
	case *columns.UInt16:
		return bulk(c, arr, arrow.UINT16)
	case *columns.UInt32:
		return bulk(c, arr, arrow.UINT32)
	case *columns.UInt64:
		return bulk(c, arr, arrow.UINT64)
	case *columns.Float32:
		return bulk(c, arr, arrow.FLOAT32)
	case *columns.Float64:
		return bulk(c, arr, arrow.FLOAT64)
	case *columns.Date32:
		return bulk(&c.Fixed, arr, arrow.DATE32)
	case *columns.DateTime64:
		if ts, ok := arr.DataType().(*arrow.TimestampType); ok && unitDigits(ts.Unit) == c.Precision() {
			return bulk(&c.Fixed, arr, arrow.TIMESTAMP)
		}
	case *columns.String:
		switch a := arr.(type) {
		case *array.String:
			for i := range a.Len() {
				c.Append(a.Value(i))
			}
			return true, 0, nil
		case *array.LargeString:
			for i := range a.Len() {
				c.Append(a.Value(i))
			}
			return true, 0, nil
		case *array.Binary:
			for i := range a.Len() {
				c.AppendBytes(a.Value(i))
			}
			return true, 0, nil
		}
	}
	return false, 0, nil
}

// appendNullable appends an array of the Go type of a Nullable's fixed-width inner column
// (Nullable(Int32) from int32, ...), reporting whether it did.
func appendNullable(n *columns.Nullable, arr arrow.Array) (bool, int, error) {
	switch c := n.Inner().(type) {
	case *columns.Int8:
		return nullableFixed(n, c, arr, arrow.INT8)
	case *columns.Int16:
		return nullableFixed(n, c, arr, arrow.INT16)
	case *columns.Int32:
		return nullableFixed(n, c, arr, arrow.INT32)
	case *columns.Int64:
		return nullableFixed(n, c, arr, arrow.INT64)
	case *columns.UInt8:
		return nullableFixed(n, c, arr, arrow.UINT8)
	case *columns.UInt16:
		return nullableFixed(n, c, arr, arrow.UINT16)
	case *columns.UInt32:
		return nullableFixed(n, c, arr, arrow.UINT32)
	case *columns.UInt64:
		return nullableFixed(n, c, arr, arrow.UINT64)
	case *columns.Float32:
		return nullableFixed(n, c, arr, arrow.FLOAT32)
	case *columns.Float64:
		return nullableFixed(n, c, arr, arrow.FLOAT64)
	}
	return false, 0, nil
}

// nullableFixed appends arr (of type id, c's Go type) to n, whose inner column is c.
func nullableFixed[T columns.FixedNum](n *columns.Nullable, c *columns.Fixed[T], arr arrow.Array, id arrow.Type) (bool, int, error) {
	vals, ok := fixedValues[T](arr, id)
	if !ok {
		return false, 0, nil
	}
	if arr.NullN() == 0 {
		c.AppendSlice(vals)
		for range vals {
			n.AppendNotNull()
		}
		return true, 0, nil
	}
	for i, v := range vals {
		if arr.IsNull(i) {
			n.AppendNull()
		} else {
			c.Append(v)
			n.AppendNotNull()
		}
	}
	return true, 0, nil
}

// fixedValues returns arr's values when it is of type id with Go type T.
func fixedValues[T columns.FixedNum](arr arrow.Array, id arrow.Type) ([]T, bool) {
	if arr.DataType().ID() != id {
		return nil, false
	}
	if arr.Len() == 0 {
		return nil, true
	}
	d := arr.Data()
	bufs := d.Buffers()
	if len(bufs) < 2 || bufs[1] == nil {
		return nil, false
	}
	vals := arrow.GetData[T](bufs[1].Bytes())
	lo, hi := d.Offset(), d.Offset()+d.Len()
	if hi > len(vals) {
		return nil, false
	}
	return vals[lo:hi], true
}

// bulk appends arr's values to c when arr is of type id with c's Go element type.
func bulk[T columns.FixedNum](c *columns.Fixed[T], arr arrow.Array, id arrow.Type) (bool, int, error) {
	vals, ok := fixedValues[T](arr, id)
	if ok {
		c.AppendSlice(vals)
	}
	return ok, 0, nil
}

// rowFunc appends row i of the array it was bound to.
type rowFunc func(i int) error

// bind returns the function that appends rows of arr to col. A NULL row goes to a Nullable
// column (or a LowCardinality(Nullable)) as NULL and fails elsewhere.
func bind(col columns.Column, arr arrow.Array) (rowFunc, error) {
	if s, ok := col.(*columns.SimpleAggregateFunction); ok {
		return bind(s.Inner(), arr)
	}
	if n, ok := col.(*columns.Nullable); ok {
		inner, err := bindValue(n.Inner(), arr)
		if err != nil {
			return nil, err
		}
		if _, isNull := arr.(*array.Null); isNull {
			return func(int) error { n.AppendNull(); return nil }, nil
		}
		return func(i int) error {
			if arr.IsNull(i) {
				n.AppendNull()
				return nil
			}
			if err := inner(i); err != nil {
				return err
			}
			n.AppendNotNull()
			return nil
		}, nil
	}
	fn, err := bindValue(col, arr)
	if err != nil {
		return nil, err
	}
	if lc, ok := col.(*columns.LowCardinality); ok && lc.Nullable() {
		return func(i int) error {
			if arr.IsNull(i) {
				return lc.AppendNull()
			}
			return fn(i)
		}, nil
	}
	if arr.NullN() == 0 {
		return fn, nil
	}
	return func(i int) error {
		if arr.IsNull(i) {
			return errNull
		}
		return fn(i)
	}, nil
}

// bindValue returns the function that appends the non-NULL row i of arr to col: typed for the
// common pairs, else through the row's Go value (goValue) and the column's AppendValue.
func bindValue(col columns.Column, arr arrow.Array) (rowFunc, error) {
	switch a := arr.(type) {
	case *array.Dictionary:
		dict, err := bind(col, a.Dictionary())
		if err != nil {
			return nil, err
		}
		return func(i int) error { return dict(a.GetValueIndex(i)) }, nil
	case array.ExtensionArray:
		return bindValue(col, a.Storage())
	}
	switch c := col.(type) {
	case *columns.String:
		switch a := arr.(type) {
		case *array.String:
			return func(i int) error { c.Append(a.Value(i)); return nil }, nil
		case *array.Binary:
			return func(i int) error { c.AppendBytes(a.Value(i)); return nil }, nil
		}
	case *columns.FixedString:
		if a, ok := arr.(*array.FixedSizeBinary); ok {
			return func(i int) error { return c.Append(a.Value(i)) }, nil
		}
	case *columns.UInt64:
		if a, ok := arr.(*array.Uint64); ok {
			return func(i int) error { c.Append(a.Value(i)); return nil }, nil
		}
	case *columns.Int64:
		if a, ok := arr.(*array.Int64); ok {
			return func(i int) error { c.Append(a.Value(i)); return nil }, nil
		}
	case *columns.Int32:
		if a, ok := arr.(*array.Int32); ok {
			return func(i int) error { c.Append(a.Value(i)); return nil }, nil
		}
	case *columns.Float64:
		if a, ok := arr.(*array.Float64); ok {
			return func(i int) error { c.Append(a.Value(i)); return nil }, nil
		}
	case *columns.DateTime64:
		if a, ok := arr.(*array.Timestamp); ok {
			return timestampTicks(a, c.Precision(), func(v int64) error { c.Append(v); return nil }), nil
		}
	case *columns.Array:
		if l, ok := arr.(array.ListLike); ok {
			elem, err := bind(c.Elem(), l.ListValues())
			if err != nil {
				return nil, err
			}
			return func(i int) error {
				lo, hi := l.ValueOffsets(i)
				for j := lo; j < hi; j++ {
					if err := elem(int(j)); err != nil {
						return err
					}
				}
				c.EndRow()
				return nil
			}, nil
		}
	case *columns.Wide[columns.Int128]:
		return wideBytes(c, arr, func(b []byte) columns.Int128 { return columns.Int128{Lo: le64(b), Hi: le64(b[8:])} })
	case *columns.Wide[columns.UInt128]:
		return wideBytes(c, arr, func(b []byte) columns.UInt128 { return columns.UInt128{Lo: le64(b), Hi: le64(b[8:])} })
	case *columns.Wide[columns.Int256]:
		return wideBytes(c, arr, func(b []byte) columns.Int256 { return columns.Int256{le64(b), le64(b[8:]), le64(b[16:]), le64(b[24:])} })
	case *columns.Wide[columns.UInt256]:
		return wideBytes(c, arr, func(b []byte) columns.UInt256 {
			return columns.UInt256{le64(b), le64(b[8:]), le64(b[16:]), le64(b[24:])}
		})
	case *columns.QBit:
		if l, ok := arr.(array.ListLike); ok {
			return qbitRows(c, l)
		}
	case *columns.LowCardinality:
		if a, ok := arr.(*array.String); ok {
			return func(i int) error { return c.AppendString(a.Value(i)) }, nil
		}
	}
	if _, ok := arr.(*array.Null); ok {
		return func(int) error { return errNull }, nil
	}
	if err := checkConvertible(arr.DataType()); err != nil {
		return nil, err
	}
	return func(i int) error {
		v, err := goValue(arr, i)
		if err != nil {
			return err
		}
		return col.AppendValue(v)
	}, nil
}

// timestampTicks returns the function that appends a's row i as ticks of 10^-p seconds: exact
// from a coarser unit (an overflow is an error), floored from a finer one (as DateTime64 takes a
// time.Time: the sub-tick part toward the past).
func timestampTicks(a *array.Timestamp, p int, add func(int64) error) rowFunc {
	from := unitDigits(a.DataType().(*arrow.TimestampType).Unit)
	mul, div := int64(1), int64(1)
	for d := from; d < p; d++ {
		mul *= 10
	}
	for d := p; d < from; d++ {
		div *= 10
	}
	return func(i int) error {
		v := int64(a.Value(i))
		if mul > 1 {
			w := v * mul
			if w/mul != v {
				return fmt.Errorf("timestamp %d overflows DateTime64(%d)", v, p)
			}
			return add(w)
		}
		q := v / div
		if v%div != 0 && v < 0 {
			q--
		}
		return add(q)
	}
}

// wideBytes binds a fixed_size_binary array of the width of c's integers (little-endian, as
// Query gives them) to c; any other array goes through goValue.
func wideBytes[T columns.WideNum](c *columns.Wide[T], arr arrow.Array, conv func([]byte) T) (rowFunc, error) {
	var z T
	a, ok := arr.(*array.FixedSizeBinary)
	if !ok || a.DataType().(*arrow.FixedSizeBinaryType).ByteWidth != sizeOf(z) {
		if err := checkConvertible(arr.DataType()); err != nil {
			return nil, err
		}
		return func(i int) error {
			v, err := goValue(arr, i)
			if err != nil {
				return err
			}
			return c.AppendValue(v)
		}, nil
	}
	return func(i int) error { c.Append(conv(a.Value(i))); return nil }, nil
}

func le64(b []byte) uint64 { return binary.LittleEndian.Uint64(b) }

// sizeOf is the byte width of a wide integer (16 or 32), without package unsafe.
func sizeOf[T columns.WideNum](z T) int { return int(reflect.TypeOf(z).Size()) }

// qbitRows binds a list (fixed-size or not) of float32, float64 or int8 to a QBit column: each
// row is one vector, of exactly the column's dimension.
func qbitRows(c *columns.QBit, l array.ListLike) (rowFunc, error) {
	switch v := l.ListValues().(type) {
	case *array.Float32:
		return func(i int) error {
			lo, hi := l.ValueOffsets(i)
			return c.AppendValue(v.Float32Values()[lo:hi])
		}, nil
	case *array.Float64:
		return func(i int) error {
			lo, hi := l.ValueOffsets(i)
			return c.AppendValue(v.Float64Values()[lo:hi])
		}, nil
	case *array.Int8:
		return func(i int) error {
			lo, hi := l.ValueOffsets(i)
			return c.AppendValue(v.Int8Values()[lo:hi])
		}, nil
	}
	return nil, &UnsupportedTypeError{Type: l.DataType().String(), Reason: "a QBit takes lists of float32, float64 or int8"}
}
