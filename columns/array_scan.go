package columns

import (
	"fmt"
	"reflect"
)

// Arrays scanned into slices of types the driver does not know (shopspring's decimal.Decimal,
// google/uuid's UUID, sql.NullString, ...), element by element, without importing them.

// valueScanner is database/sql's Scanner, named without importing database/sql.
type valueScanner interface{ Scan(src any) error }

var valueScannerType = reflect.TypeFor[valueScanner]()

// How an element is stored into a slice element of a given type.
const (
	elemNoScan   = iota
	elemScanAddr // the element's address is a valueScanner: Scan(value), NULL as nil
	elemScanNew  // the element is a pointer to a valueScanner: nil for NULL, else new, Scan(value)
	elemUUID     // a [16]byte-shaped element from a UUID column: its bytes (NULL refused)
	elemUUIDPtr  // a pointer to one: nil for NULL
)

func elemScanMode(et reflect.Type, elem Column) int {
	switch {
	case et.Kind() == reflect.Pointer && et.Implements(valueScannerType) && et.Elem().Kind() != reflect.Pointer:
		return elemScanNew
	case et.Kind() != reflect.Pointer && et.Kind() != reflect.Interface && reflect.PointerTo(et).Implements(valueScannerType):
		return elemScanAddr
	}
	inner := elem
	for {
		in, _, ok := sqlInner(inner, -1)
		if !ok {
			break
		}
		inner = in
	}
	if _, ok := inner.(*UUID); !ok {
		return elemNoScan
	}
	switch {
	case uuidShaped(et):
		return elemUUID
	case et.Kind() == reflect.Pointer && uuidShaped(et.Elem()):
		return elemUUIDPtr
	}
	return elemNoScan
}

func uuidShaped(t reflect.Type) bool {
	return t.Kind() == reflect.Array && t.Len() == 16 && t.Elem().Kind() == reflect.Uint8
}

// scanValue stores row i into a pointer to a slice whose elements scan themselves (E or *E with
// a Scan(any) error method, given each element as database/sql hands a value of the element's
// type at the top of a result: a Decimal or UUID as text, NULL as nil), or into a slice of
// [16]byte-shaped arrays (or pointers to them) from Array(UUID). Any other destination is
// left to the caller.
func (c *Array) scanValue(i int, dest any) (bool, error) {
	dv := reflect.ValueOf(dest).Elem()
	if dv.Kind() != reflect.Slice {
		return false, nil
	}
	et := dv.Type().Elem()
	mode := elemScanMode(et, c.elem)
	if mode == elemNoScan {
		return false, nil
	}
	lo, hi := c.Bounds(i)
	s := reflect.MakeSlice(dv.Type(), hi-lo, hi-lo)
	for j := lo; j < hi; j++ {
		if err := scanElem(s.Index(j-lo), c.elem, j, mode); err != nil {
			return true, &ScanError{Column: c.Type(), GoType: dv.Type().String(),
				Reason: fmt.Sprintf("element %d: %v", j-lo, err)}
		}
	}
	dv.Set(s)
	return true, nil
}

func scanElem(dst reflect.Value, elem Column, j int, mode int) error {
	switch mode {
	case elemScanAddr:
		return dst.Addr().Interface().(valueScanner).Scan(sqlValueOf(elem, j, true))
	case elemScanNew:
		v := sqlValueOf(elem, j, true)
		if v == nil {
			return nil // the slice's element is already nil
		}
		p := reflect.New(dst.Type().Elem())
		if err := p.Interface().(valueScanner).Scan(v); err != nil {
			return err
		}
		dst.Set(p)
		return nil
	}
	col, row := elem, j
	for row >= 0 {
		in, r, ok := sqlInner(col, row)
		if !ok {
			break
		}
		col, row = in, r
	}
	if row < 0 {
		if mode == elemUUIDPtr {
			return nil
		}
		return fmt.Errorf("NULL into %s (use a slice of pointers)", dst.Type())
	}
	u := col.(*UUID).data[row][:]
	if mode == elemUUIDPtr {
		p := reflect.New(dst.Type().Elem())
		reflect.Copy(p.Elem(), reflect.ValueOf(u))
		dst.Set(p)
		return nil
	}
	reflect.Copy(dst, reflect.ValueOf(u))
	return nil
}
