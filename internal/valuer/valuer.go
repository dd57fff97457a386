// Package valuer lets the database/sql adapter give the packages below it a fast way to call a
// driver.Valuer, a type they cannot name.
//
// # Design
//
// Package columns takes database/sql Valuers (sql.NullString, google/uuid.UUID, ...) wherever it
// takes a Go value, but it must not import database/sql/driver: it sits below database/sql, and
// driver.Valuer's method returns driver.Value, a named type a type assertion has to spell. columns
// therefore recognises a Valuer by its method's shape through reflect, which is correct but calls
// the method through reflect.Value.Call, about a microsecond a value. The root package, which
// imports database/sql/driver anyway, registers [Func] at init: a plain type assertion that
// columns asks first. Results are the same with or without it; only the cost differs.
package valuer

// Func, when not nil, calls v's driver.Valuer method when v (not nil) is a driver.Valuer. ok
// reports whether it is; isNil that v is a nil pointer, whose Value is not called. It must be set
// only from an init function (it is read without synchronisation) and must answer exactly as a
// `v.(driver.Valuer)` assertion does.
var Func func(v any) (out any, ok, isNil bool, err error)
