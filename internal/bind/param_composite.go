package bind

import (
	"fmt"
	"math/big"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/internal/sqltext"
)

// writeListParam appends a slice or array as [e1,e2]; a string is the list's text.
func writeListParam(b *strings.Builder, n *columns.TypeNode, v any, depth int) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.String {
		b.WriteString(sqltext.EscapeText(rv.String()))
		return nil
	}
	if rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array {
		return fmt.Errorf("cannot write %T as %s", v, n.Name)
	}
	elem := elemOf(n)
	b.WriteByte('[')
	for i := range rv.Len() {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := writeParam(b, elem, rv.Index(i).Interface(), true, depth+1); err != nil {
			return err
		}
	}
	b.WriteByte(']')
	return nil
}

// writeTupleParam appends a tuple as (e1,e2) (see tupleItems); a string is the tuple's text.
func writeTupleParam(b *strings.Builder, n *columns.TypeNode, v any, depth int) error {
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.String {
		b.WriteString(sqltext.EscapeText(rv.String()))
		return nil
	}
	items, elems, err := tupleItems(n, v)
	if err != nil {
		return err
	}
	b.WriteByte('(')
	for i, it := range items {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := writeParam(b, elems[i].Type, it, true, depth+1); err != nil {
			return err
		}
	}
	b.WriteByte(')')
	return nil
}

// tupleItems returns the elements of a tuple value of type n (Tuple or Point) and the element
// types: a slice or array, a struct (exported fields in order), or for a named tuple a
// map[string]any (by element name).
func tupleItems(n *columns.TypeNode, v any) ([]any, []columns.TypeArg, error) {
	elems := n.Args
	if n.Name == "Point" {
		f := columns.TypeArg{Kind: columns.ArgType, Type: &columns.TypeNode{Name: "Float64"}}
		elems = []columns.TypeArg{f, f}
	}
	var items []any
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Slice, reflect.Array:
		for i := range rv.Len() {
			items = append(items, rv.Index(i).Interface())
		}
	case reflect.Struct:
		for i := range rv.NumField() {
			if rv.Type().Field(i).IsExported() {
				items = append(items, rv.Field(i).Interface())
			}
		}
	case reflect.Map:
		if rv.Type().Key().Kind() != reflect.String {
			return nil, nil, fmt.Errorf("cannot write %T as a tuple", v)
		}
		for _, e := range elems {
			if e.Field == "" {
				return nil, nil, fmt.Errorf("a map (%T) needs a tuple with named elements", v)
			}
			x := rv.MapIndex(reflect.ValueOf(e.Field).Convert(rv.Type().Key()))
			if !x.IsValid() {
				return nil, nil, fmt.Errorf("map %T has no element %q of the tuple", v, e.Field)
			}
			items = append(items, x.Interface())
		}
		if rv.Len() != len(elems) {
			return nil, nil, fmt.Errorf("map %T has %d keys for a tuple of %d elements", v, rv.Len(), len(elems))
		}
	default:
		return nil, nil, fmt.Errorf("cannot write %T as a tuple", v)
	}
	if len(items) != len(elems) {
		return nil, nil, fmt.Errorf("%d values for a tuple of %d elements", len(items), len(elems))
	}
	return items, elems, nil
}

// writeMapParam appends a Go map as {k:v,...}, entries sorted by key text; a string is the map's
// text.
func writeMapParam(b *strings.Builder, kt, vt *columns.TypeNode, v any, depth int) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.String {
		b.WriteString(sqltext.EscapeText(rv.String()))
		return nil
	}
	if rv.Kind() != reflect.Map {
		return fmt.Errorf("cannot write %T as a map", v)
	}
	entries := make([][2]string, 0, rv.Len())
	for it := rv.MapRange(); it.Next(); {
		var kb, vb strings.Builder
		if err := writeParam(&kb, kt, it.Key().Interface(), true, depth+1); err != nil {
			return err
		}
		if err := writeParam(&vb, vt, it.Value().Interface(), true, depth+1); err != nil {
			return err
		}
		entries = append(entries, [2]string{kb.String(), vb.String()})
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i][0] < entries[j][0] })
	b.WriteByte('{')
	for i, e := range entries {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(e[0])
		b.WriteByte(':')
		b.WriteString(e[1])
	}
	b.WriteByte('}')
	return nil
}

// writeKindParam appends v by its Go kind, for types without a rule of their own (Variant,
// Dynamic, a type name that does not parse): strings and times as text (quoted inside
// composites), numbers, bools as true/false, slices as arrays, maps as maps.
func writeKindParam(b *strings.Builder, v any, quoted bool, depth int) error {
	switch x := v.(type) {
	case string, []byte:
		return writeTextParam(b, v, quoted)
	case time.Time:
		writeQuotable(b, x.UTC().Format("2006-01-02 15:04:05.999999999"), quoted)
		return nil
	case columns.Decimal, *big.Int, big.Int:
		return writeNumber(b, v)
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Bool:
		b.WriteString(strconv.FormatBool(rv.Bool()))
		return nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8,
		reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return writeNumber(b, v)
	case reflect.String:
		return writeTextParam(b, v, quoted)
	case reflect.Slice, reflect.Array:
		if rv.Type().Elem().Kind() == reflect.Uint8 {
			return writeTextParam(b, v, quoted)
		}
		b.WriteByte('[')
		for i := range rv.Len() {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeParam(b, nil, rv.Index(i).Interface(), true, depth+1); err != nil {
				return err
			}
		}
		b.WriteByte(']')
		return nil
	case reflect.Map:
		return writeMapParam(b, nil, nil, v, depth)
	}
	return fmt.Errorf("cannot write %T as a query parameter", v)
}
