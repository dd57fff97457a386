package columns

import (
	"time"
)

// Windows of database/sql values, for a driver that boxes them many rows at a time.
//
// Design: a driver handing values to database/sql before Go 1.27 boxes each one as an interface;
// boxing a window of rows at once (copying the values into memory of its own and pointing
// interfaces into it) saves an allocation per value. The driver needs to know, per column, where
// the values lie and which Go type SQLValue would give them. Each column type that can say so
// implements sqlWindower in this file; the driver asks [SQLWindowOf] instead of switching on
// column types. A column that does not answer is boxed one value at a time through SQLValue.
//
// A method of Fixed is promoted to every type that embeds one (Bool, Date, DateTime, Decimal32,
// Enum8, IPv4, ...), whose values are not the raw numbers, so Fixed's sqlWindow first checks
// that the column asked is the Fixed itself (exact). (ScanFast and Append, which run once a value,
// switch on the exact types instead.)

// WindowKind says how a column's database/sql values can be boxed a window of rows at a time.
type WindowKind uint8

const (
	// WindowNone: boxed one value at a time (SQLValue).
	WindowNone WindowKind = iota
	// WindowFixed: fixed-width numbers whose memory is the values: Window.Mem holds every row's
	// value, Window.Size bytes each, in Go's memory layout of Window.Zero's type.
	WindowFixed
	// WindowString: the text of a *String: Window.Text and Window.Ends are String.Data's.
	WindowString
	// WindowTime: time.Time values, copied out by SQLTimes.
	WindowTime
)

// Window describes where a column's database/sql values lie (see WindowKind). Its slices are
// borrowed from the column: valid until the column is next Read, Reset or appended to.
type Window struct {
	Kind WindowKind
	Zero any     // WindowFixed: the zero value of the values' Go type, the type SQLValue returns
	Size uintptr // WindowFixed: bytes per value
	Mem  []byte  // WindowFixed: the values, borrowed (a copy under the purego build tag)
	Text []byte  // WindowString: the text of every row, borrowed
	Ends []int   // WindowString: end offset in Text of each row, borrowed
}

// sqlWindower is a column that can say where its database/sql values lie. outer is the column
// asked (see exact).
type sqlWindower interface {
	sqlWindow(outer Column) Window
}

// timeWindower is a column whose database/sql values are times it can copy out a window at a
// time (WindowTime).
type timeWindower interface {
	sqlTimes(dst []time.Time, lo int)
}

// SQLWindowOf reports how c's database/sql values (SQLValue's, for every row: such a column has no
// NULL) can be boxed a window of rows at a time; Kind is WindowNone for a column boxed one value at
// a time. The slices returned are borrowed.
func SQLWindowOf(c Column) Window {
	if w, ok := c.(sqlWindower); ok {
		return w.sqlWindow(c)
	}
	return Window{}
}

// SQLTimes stores rows [lo, lo+len(dst)) of c, a column whose SQLWindowOf is WindowTime, into dst.
func SQLTimes(c Column, dst []time.Time, lo int) {
	c.(timeWindower).sqlTimes(dst, lo)
}

// exact reports whether outer, the column asked, is c itself rather than a column type that
// embeds c (and whose values are not c's raw numbers).
func (c *Fixed[T]) exact(outer Column) bool {
	o, ok := outer.(*Fixed[T]) // a comparison of type words, cheaper than outer == Column(c)
	return ok && o == c
}

// sqlWindow: the plain numeric columns' values are their memory.
func (c *Fixed[T]) sqlWindow(outer Column) Window {
	if !c.exact(outer) {
		return Window{}
	}
	var z T
	return Window{Kind: WindowFixed, Zero: any(z), Size: uintptr(sizeOf[T]()), Mem: memOf(c.data)}
}

func (c *String) sqlWindow(outer Column) Window {
	if outer != Column(c) {
		return Window{}
	}
	return Window{Kind: WindowString, Text: c.buf, Ends: c.ends}
}

func (c *DateTime) sqlWindow(outer Column) Window {
	if outer != Column(c) {
		return Window{}
	}
	return Window{Kind: WindowTime}
}

func (c *DateTime) sqlTimes(dst []time.Time, lo int) {
	for j := range dst {
		dst[j] = c.Time(lo + j)
	}
}
