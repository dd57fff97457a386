package columns

import "github.com/chnative/chnative/internal/valuer"

// Values with a database/sql Value method (sql.NullString, sql.Null[T], google/uuid.UUID, ...)
// are unwrapped wherever a column takes a Go value; internal/valuer recognises them (a
// driver.Valuer type assertion), for bind and structmap too.

// isValuer reports whether v (not nil) has a database/sql Value method.
func isValuer(v any) bool { return valuer.Is(v) }

// callValuer calls v's database/sql Value method when v has one (see valuer.Call).
func callValuer(v any) (out any, ok, isNil bool, err error) { return valuer.Call(v) }
