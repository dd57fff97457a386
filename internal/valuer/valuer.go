// Package valuer lets the database/sql adapter give the packages below it a fast way to call a
// driver.Valuer, a type they cannot name.
//
// # Design
//
// Packages columns and bind take database/sql Valuers (sql.NullString, google/uuid.UUID, ...)
// wherever they take a Go value, but must not import database/sql/driver: they sit below
// database/sql, and driver.Valuer's method returns driver.Value, a named type a type assertion
// has to spell. [Call] therefore recognises a Valuer by its method's shape through reflect, which
// is correct but calls the method through reflect.Value.Call, about a microsecond a value. The
// root package, which imports database/sql/driver anyway, registers [Func] at init: a plain type
// assertion that Call asks first. Results are the same with or without it; only the cost differs.
package valuer

import (
	"reflect"
	"sync"
)

// Func, when not nil, calls v's driver.Valuer method when v (not nil) is a driver.Valuer. ok
// reports whether it is; isNil that v is a nil pointer, whose Value is not called. It must be set
// only from an init function (it is read without synchronisation) and must answer exactly as a
// `v.(driver.Valuer)` assertion does.
var Func func(v any) (out any, ok, isNil bool, err error)

// Is and Call recognise database/sql Valuers (sql.NullString, sql.Null[T], google/uuid.UUID, any
// type with a driver.Valuer method) without importing database/sql/driver: the packages
// using them (columns, bind) sit below database/sql. driver.Valuer's method is
// Value() (driver.Value, error), and driver.Value is a named empty interface that cannot be spelled here, so a type assertion cannot
// find it. A Valuer is therefore recognised by the shape of its method: a method named Value with
// no arguments returning an empty interface type (driver.Value, any, or another) and error. The
// shape is looked up once per dynamic type, through reflect, and cached; a type without methods
// costs one NumMethod call. The method is then called through reflect, which allocates; callers'
// fast paths for concrete types come before it, so only values that need unwrapping pay.
//
// A Value() (any, error) method, the shape Decimal has, is asserted directly and costs no
// reflection; so is a driver.Valuer when the database/sql adapter has registered Func (the
// root package does at init), which answers as the reflective path does, only faster.

// anyValuer is driver.Valuer with its result spelled any.
type anyValuer interface{ Value() (any, error) }

var errorType = reflect.TypeFor[error]()

// valueMethods maps a reflect.Type to the index of its Valuer-shaped Value method, or -1.
var valueMethods sync.Map

// valueMethod returns the index in t's method set of a Valuer-shaped Value method, or -1.
func valueMethod(t reflect.Type) int {
	if t.NumMethod() == 0 {
		return -1
	}
	if i, ok := valueMethods.Load(t); ok {
		return i.(int)
	}
	idx := -1
	if m, ok := t.MethodByName("Value"); ok {
		// m.Type has the receiver as its first argument.
		mt := m.Type
		if mt.NumIn() == 1 && mt.NumOut() == 2 && mt.Out(0).Kind() == reflect.Interface &&
			mt.Out(0).NumMethod() == 0 && mt.Out(1) == errorType {
			idx = m.Index
		}
	}
	valueMethods.Store(t, idx)
	return idx
}

// Is reports whether v (not nil) has a database/sql Value method.
func Is(v any) bool {
	if _, ok := v.(anyValuer); ok {
		return true
	}
	return valueMethod(reflect.TypeOf(v)) >= 0
}

// Call calls v's database/sql Value method when v (not nil) has one. ok reports whether it
// has; isNil that v is a nil pointer, whose Value is not called (it is NULL).
func Call(v any) (out any, ok, isNil bool, err error) {
	if x, is := v.(anyValuer); is {
		if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && rv.IsNil() {
			return nil, true, true, nil
		}
		out, err = x.Value()
		return out, true, false, err
	}
	if f := Func; f != nil {
		if out, ok, isNil, err = f(v); ok {
			return out, ok, isNil, err
		}
	}
	i := valueMethod(reflect.TypeOf(v))
	if i < 0 {
		return nil, false, false, nil
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer && rv.IsNil() {
		return nil, true, true, nil
	}
	res := rv.Method(i).Call(nil)
	if e := res[1].Interface(); e != nil {
		return nil, true, false, e.(error)
	}
	return res[0].Interface(), true, false, nil
}

// IsType reports whether values of type t have a database/sql Value method (as Is does for one
// value), for callers that plan by type.
func IsType(t reflect.Type) bool {
	return t.Implements(anyValuerType) || valueMethod(t) >= 0
}

var anyValuerType = reflect.TypeFor[anyValuer]()
