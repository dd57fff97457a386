package chnative

import (
	"context"
	"reflect"
	"strings"
	"testing"
)

// Array columns go into slices of another element type element by element, each element
// checked as a single value is.
func TestSelectStructsArrayConversion(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	type row struct {
		Wide   []uint64 `ch:"a"`
		Signed []int16  `ch:"b"`
		Ptrs   []*int64 `ch:"n"`
	}
	type tooSmall struct {
		Small []int8 `ch:"big"`
	}
	err = c.Raw(func(dc any) error {
		got, err := Select[row](ctx, dc.(Conn), "SELECT [toUInt8(1), 2, 255] AS a, [toUInt8(1), 2, 255] AS b, [toNullable(toUInt8(7)), NULL] AS n")
		if err != nil {
			return err
		}
		seven := int64(7)
		want := []row{{Wide: []uint64{1, 2, 255}, Signed: []int16{1, 2, 255}, Ptrs: []*int64{&seven, nil}}}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("got %+v, want %+v", got, want)
		}
		_, err = Select[tooSmall](ctx, dc.(Conn), "SELECT [toUInt16(1), 300] AS big")
		if err == nil || !strings.Contains(err.Error(), "element 1") {
			t.Errorf("300 into []int8: %v, want an error naming element 1", err)
		}
		type twice struct {
			A uint8 `ch:"x"`
			B uint8 `db:"X"`
		}
		_, err = Select[twice](ctx, dc.(Conn), "SELECT toUInt8(1) AS x")
		if err == nil || !strings.Contains(err.Error(), "both name column") {
			t.Errorf("two fields for one column: %v, want an error", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
