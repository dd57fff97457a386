package columns

import (
	"reflect"
	"time"
)

// Retained returns about how many bytes of memory v keeps reachable: the capacity of every
// buffer it holds at every depth (inner columns, dictionaries, offsets, scratch and
// serialization state), plus the structs they hang from. v is a Column, a *Serialization or
// anything built of them. Counting stops once the sum passes limit (the result is then above
// limit, not exact), so asking whether a big block is above a small limit costs little.
//
// It answers "is this column worth keeping for reuse" (internal/chconn keeps a block between
// queries only below a byte size), so it walks the values with reflection instead of a method
// per column type: every column type, present and future, is measured the same way. Slices of
// plain values count by capacity without looking at their elements; shared time zones are not
// counted; maps count by length. It allocates nothing.
func Retained(v any, limit int64) int64 {
	if v == nil {
		return 0
	}
	w := retainedWalk{limit: limit}
	w.walk(reflect.ValueOf(v), 0)
	return w.n
}

// DataSize is Retained counting what v holds rather than what it keeps: the length of every
// buffer instead of its capacity (the bytes of the values an insert block has taken so far,
// whatever capacity its columns kept from earlier blocks). It stops once the sum passes limit.
func DataSize(v any, limit int64) int64 {
	if v == nil {
		return 0
	}
	w := retainedWalk{limit: limit, lengths: true}
	w.walk(reflect.ValueOf(v), 0)
	return w.n
}

// retainedWalk is one walk of Retained or DataSize.
type retainedWalk struct {
	n       int64 // the sum so far
	limit   int64
	lengths bool // count slices by length (DataSize), not capacity
}

// maxRetainedDepth bounds the walk: a column nests a few values (pointer, struct, interface)
// per level of its type, at most MaxTypeDepth levels. A walk that goes deeper (it cannot, short
// of a cycle) stops and reports more than its limit, so that a block it cannot measure is not
// kept.
const maxRetainedDepth = 8*MaxTypeDepth + 64

var locationType = reflect.TypeFor[time.Location]()

func (w *retainedWalk) walk(v reflect.Value, depth int) {
	if w.n > w.limit {
		return
	}
	if depth > maxRetainedDepth {
		w.n = max(w.n, w.limit+1)
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || v.Type().Elem() == locationType {
			return
		}
		w.n += int64(v.Type().Elem().Size())
		w.walk(v.Elem(), depth+1)
	case reflect.Interface:
		if !v.IsNil() {
			e := v.Elem()
			if e.Kind() != reflect.Pointer {
				w.n += int64(e.Type().Size()) // boxed by value
			}
			w.walk(e, depth+1)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if holdsMemory(v.Type().Field(i).Type, 0) {
				w.walk(v.Field(i), depth+1)
			}
		}
	case reflect.Slice:
		if v.IsNil() {
			return
		}
		et := v.Type().Elem()
		size := v.Cap()
		if w.lengths {
			size = v.Len()
		}
		w.n += int64(size) * int64(et.Size())
		if holdsMemory(et, 0) {
			for i := range v.Len() {
				if w.n > w.limit {
					return
				}
				w.walk(v.Index(i), depth+1)
			}
		}
	case reflect.Array:
		if holdsMemory(v.Type().Elem(), 0) {
			for i := range v.Len() {
				w.walk(v.Index(i), depth+1)
			}
		}
	case reflect.String:
		w.n += int64(v.Len())
	case reflect.Map:
		if !v.IsNil() {
			t := v.Type()
			w.n += int64(v.Len()) * int64(t.Key().Size()+t.Elem().Size()+8) // buckets, about
		}
	}
}

// holdsMemory reports whether a value of type t can refer to memory of its own (a slice, a
// string, a pointer, ...), that is, whether the walk must look inside it.
func holdsMemory(t reflect.Type, depth int) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.Slice, reflect.String, reflect.Map:
		return true
	case reflect.Array:
		return t.Len() > 0 && holdsMemory(t.Elem(), depth+1)
	case reflect.Struct:
		if depth > maxRetainedDepth {
			return true
		}
		for i := range t.NumField() {
			if holdsMemory(t.Field(i).Type, depth+1) {
				return true
			}
		}
	}
	return false
}
