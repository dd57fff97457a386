//go:build !purego

package fieldslice

import (
	"reflect"
	"testing"
)

// Of refuses a field that does not lie within the element type (its offset and size are what
// every access adds to the element's address).
func TestOfRefusesFieldOutsideElement(t *testing.T) {
	type wide struct {
		A [64]byte
		C uint64
	}
	f, _ := reflect.TypeFor[wide]().FieldByName("C")
	refused(t, "a field at offset 64 in a 40-byte struct", func() { Of(make([]narrow, 1), f) })
}
