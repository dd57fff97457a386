package bind

import "fmt"

// Error reports arguments that do not match a query's placeholders or cannot be written as
// ClickHouse literals. The root package exports it as chnative.BindError.
type Error struct {
	Msg string
}

func (e *Error) Error() string { return "chnative: binding arguments: " + e.Msg }

// Errorf returns an *Error with the formatted message.
func Errorf(format string, args ...any) error { return &Error{Msg: fmt.Sprintf(format, args...)} }

func bindErr(format string, args ...any) error { return Errorf(format, args...) }
