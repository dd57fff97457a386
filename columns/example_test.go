package columns_test

import (
	"fmt"

	"github.com/chnative/chnative/columns"
)

// Build a column from Go values and encode it as a block would carry it.
func ExampleNew() {
	col, err := columns.New("Array(Nullable(String))")
	if err != nil {
		panic(err)
	}
	s := "b"
	for _, v := range []any{[]any{"a", nil}, []*string{&s}, nil} {
		if err := col.AppendValue(v); err != nil {
			panic(err)
		}
	}
	var w columns.Writer
	col.WritePrefix(&w)
	col.Write(&w)
	fmt.Printf("%d rows, % x\n", col.Rows(), w.Buf)
	// Output:
	// 3 rows, 02 00 00 00 00 00 00 00 03 00 00 00 00 00 00 00 03 00 00 00 00 00 00 00 00 01 00 01 61 00 01 62
}

// Decode a column from its encoding, reusing one column for every block.
func ExampleColumn_Read() {
	data := []byte{
		0x01, 0, 0, 0, 0, 0, 0, 0, // LowCardinality prefix: key serialization version 1
		0x00, 0x06, 0, 0, 0, 0, 0, 0, // UInt8 indexes, dictionary follows
		0x02, 0, 0, 0, 0, 0, 0, 0, 0x02, 'h', 'i', 0x02, 'y', 'o', // dictionary "hi", "yo"
		0x03, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, // three rows
	}
	col, err := columns.New("LowCardinality(String)")
	if err != nil {
		panic(err)
	}
	r := columns.NewBytesReader(data)
	if err := col.ReadPrefix(r); err != nil {
		panic(err)
	}
	if err := col.Read(r, 3); err != nil {
		panic(err)
	}
	for i := range col.Rows() {
		fmt.Println(col.Value(i))
	}
	lc := col.(*columns.LowCardinality)
	fmt.Println(lc.Indexes(), string(lc.Bytes(1)))
	// Output:
	// hi
	// yo
	// hi
	// [0 1 0] yo
}
