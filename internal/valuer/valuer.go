// Package valuer is the one home of how the packages below database/sql (columns, bind,
// structmap) recognise and call a database/sql Valuer (sql.NullString, sql.Null[T],
// google/uuid.UUID, columns.Decimal, any driver.Valuer): a type assertion, as database/sql's own
// conversion does.
package valuer

import (
	"database/sql/driver"
	"reflect"
)

// anyValuer is driver.Valuer with its result spelled any: a method of that shape is taken too.
type anyValuer interface{ Value() (any, error) }

// Is reports whether v (not nil) has a database/sql Value method.
func Is(v any) bool {
	switch v.(type) {
	case driver.Valuer, anyValuer:
		return true
	}
	return false
}

// Call calls v's database/sql Value method when v (not nil) has one. ok reports whether it
// has; isNil that v is a nil pointer, whose Value is not called (it is NULL).
func Call(v any) (out any, ok, isNil bool, err error) {
	if !Is(v) {
		return nil, false, false, nil
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && rv.IsNil() {
		return nil, true, true, nil
	}
	if x, is := v.(driver.Valuer); is {
		out, err = x.Value()
	} else {
		out, err = v.(anyValuer).Value()
	}
	return out, true, false, err
}

// IsType reports whether values of type t have a database/sql Value method (as Is does for one
// value), for callers that plan by type.
func IsType(t reflect.Type) bool {
	return t.Implements(valuerType) || t.Implements(anyValuerType)
}

var (
	valuerType    = reflect.TypeFor[driver.Valuer]()
	anyValuerType = reflect.TypeFor[anyValuer]()
)
