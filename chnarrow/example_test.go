package chnarrow_test

import (
	"fmt"

	"github.com/chnative/chnative/chnarrow"
)

// The Arrow types of some ClickHouse types, as Query gives them.
func ExampleArrowType() {
	for _, typ := range []string{
		"UInt64",
		"Nullable(String)",
		"DateTime64(3, 'Asia/Kolkata')",
		"LowCardinality(String)",
		"Map(String, Array(Nullable(UInt8)))",
		"Tuple(id UInt32, tags Array(String))",
		"Variant(String, UInt64)",
		"QBit(BFloat16, 16)",
		"Dynamic",
	} {
		t, err := chnarrow.ArrowType(typ)
		if err != nil {
			fmt.Printf("%s: %v\n", typ, err)
			continue
		}
		fmt.Printf("%s: %s\n", typ, t)
	}
	// Output:
	// UInt64: uint64
	// Nullable(String): utf8
	// DateTime64(3, 'Asia/Kolkata'): timestamp[ms, tz=Asia/Kolkata]
	// LowCardinality(String): dictionary<values=utf8, indices=uint32, ordered=false>
	// Map(String, Array(Nullable(UInt8))): map<utf8, list<item: uint8, nullable>, items_non_nullable>
	// Tuple(id UInt32, tags Array(String)): struct<id: uint32, tags: list<item: utf8>>
	// Variant(String, UInt64): dense_union<String: type=utf8=0, UInt64: type=uint64=1, NULL: type=null, nullable=2>
	// QBit(BFloat16, 16): fixed_size_list<item: float32>[16]
	// Dynamic: chnarrow: type Dynamic: no Arrow equivalent is mapped; select dynamicElement(v, 'T') per type, or toString(v)
}
