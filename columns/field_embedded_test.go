package columns

import (
	"reflect"
	"testing"
)

// The column types that embed Fixed[T] do not inherit its fast paths into and from fields of
// their storage's Go kind (see field_embedded.go); the plain numbers keep theirs.
func TestFieldFastPathsOfEmbedders(t *testing.T) {
	kinds := []reflect.Type{
		reflect.TypeFor[int8](), reflect.TypeFor[int16](), reflect.TypeFor[int32](), reflect.TypeFor[int64](),
		reflect.TypeFor[uint8](), reflect.TypeFor[uint16](), reflect.TypeFor[uint32](), reflect.TypeFor[uint64](),
		reflect.TypeFor[float32](), reflect.TypeFor[float64](),
	}
	for _, typ := range []string{
		"Bool", "BFloat16", "Date32", "Date", "DateTime", "DateTime64(3)", "Decimal(9, 2)", "Decimal(18, 2)",
		"Enum8('a' = 1)", "Enum16('a' = 1)", "IntervalDay", "Time64(3)", "IPv4",
	} {
		col, err := New(typ)
		if err != nil {
			t.Fatalf("%s: %v", typ, err)
		}
		for _, k := range kinds {
			if fc, ok := col.(FieldCopier); ok && fc.FieldCopyFunc(k) != nil {
				t.Errorf("%s copies into %v fields", typ, k)
			}
			if fa, ok := col.(FieldAppender); ok && fa.FieldAppendFunc(k) != nil {
				t.Errorf("%s appends %v fields", typ, k)
			}
		}
	}
	for i, typ := range []string{"Int8", "Int16", "Int32", "Int64", "UInt8", "UInt16", "UInt32", "UInt64", "Float32", "Float64"} {
		col, err := New(typ)
		if err != nil {
			t.Fatal(err)
		}
		if col.(FieldCopier).FieldCopyFunc(kinds[i]) == nil || col.(FieldAppender).FieldAppendFunc(kinds[i]) == nil {
			t.Errorf("%s has no fast path for %v fields", typ, kinds[i])
		}
		if col.(FieldCopier).FieldCopyFunc(kinds[(i+1)%len(kinds)]) != nil {
			t.Errorf("%s copies into %v fields", typ, kinds[(i+1)%len(kinds)])
		}
	}
}
