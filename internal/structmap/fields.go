package structmap

import (
	"fmt"
	"reflect"
	"strings"
)

// fieldKey returns the column name field f maps to: its `ch` tag, else its `db` tag (each up to a
// comma), else its name; "-" means the field is skipped.
func fieldKey(f reflect.StructField) string {
	for _, tag := range []string{"ch", "db"} {
		if v, ok := f.Tag.Lookup(tag); ok {
			name, _, _ := strings.Cut(v, ",")
			if name == "-" {
				return "-"
			}
			if name != "" {
				return name
			}
		}
	}
	return f.Name
}

// columnFields maps the lower-cased column name of each exported field of the struct type t (see
// fieldKey) to the field, its Offset counted from the start of t (for fields promoted from
// embedded structs too). Two fields naming one column are an error: one of them would silently
// stay empty. Fields promoted through an embedded pointer are left out: the rows do not hold
// them.
func columnFields(t reflect.Type) (map[string]reflect.StructField, error) {
	fields := map[string]reflect.StructField{}
	for _, f := range reflect.VisibleFields(t) {
		if !f.IsExported() || f.Anonymous {
			continue
		}
		k := fieldKey(f)
		if k == "-" {
			continue
		}
		lk := strings.ToLower(k)
		if g, dup := fields[lk]; dup {
			return nil, fmt.Errorf("chnative: fields %s and %s of %v both name column %s", g.Name, f.Name, t, k)
		}
		off, ok := offsetOf(t, f.Index)
		if !ok {
			continue
		}
		f.Offset = off
		fields[lk] = f
	}
	return fields, nil
}

// offsetOf returns the offset from the start of t of the field at index, or false when the path
// goes through a pointer.
func offsetOf(t reflect.Type, index []int) (uintptr, bool) {
	var off uintptr
	for _, i := range index {
		if t.Kind() != reflect.Struct {
			return 0, false
		}
		f := t.Field(i)
		off += f.Offset
		t = f.Type
	}
	return off, true
}
