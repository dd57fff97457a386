package sqlblocks

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/chnative/chnative/internal/chconn"
	"github.com/chnative/chnative/nativeproto"
)

// source is a driver's rows: next scans row i of rows into dest, as sql.Rows.Scan does, then
// fails with err (nil: reports the end).
func source(rows [][]any, err error) (next func(dest []any) (bool, error), calls *int) {
	calls = new(int)
	return func(dest []any) (bool, error) {
		i := *calls
		*calls++
		if i == len(rows) {
			return false, err
		}
		for j, v := range rows[i] {
			*(dest[j].(*any)) = v
		}
		return true, nil
	}, calls
}

func TestGatherBlocks(t *testing.T) {
	var rows [][]any
	for i := range 5 {
		rows = append(rows, []any{int64(i), fmt.Sprint("s", i)})
	}
	next, _ := source(rows, nil)
	var sizes []int
	var got []string
	err := Gather([]string{"n", "s"}, []string{"Int64", "String"}, 2, next, func(b *nativeproto.Block) error {
		sizes = append(sizes, b.Rows())
		for i := range b.Rows() {
			got = append(got, fmt.Sprintf("%v %v", b.Column(0).Value(i), b.Column(1).Value(i)))
		}
		if b.Name(1) != "s" || b.Type(1) != "String" {
			t.Errorf("column 1 is %s %s", b.Name(1), b.Type(1))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sizes, []int{2, 2, 1}) {
		t.Errorf("blocks of %v rows, want [2 2 1]", sizes)
	}
	if want := []string{"0 s0", "1 s1", "2 s2", "3 s3", "4 s4"}; !slices.Equal(got, want) {
		t.Errorf("rows %v, want %v", got, want)
	}
}

func TestGatherErrors(t *testing.T) {
	none := func(*nativeproto.Block) error { return nil }
	// An unknown type fails before a row is read.
	next, calls := source([][]any{{int64(1)}}, nil)
	if err := Gather([]string{"n"}, []string{"NoSuchType"}, 10, next, none); err == nil || *calls != 0 {
		t.Errorf("unknown type: %v after %d rows read", err, *calls)
	}
	// A value the column refuses names its column and row.
	next, _ = source([][]any{{int64(1)}, {"x"}}, nil)
	err := Gather([]string{"n"}, []string{"Int64"}, 10, next, none)
	var ce *chconn.ColumnError
	if !errors.As(err, &ce) || ce.Column != "n" || ce.Row != 1 {
		t.Errorf("refused value: %v, want a *ColumnError on n, row 1", err)
	}
	// The source's error and fn's come back as they are; fn's stops the read.
	broken := errors.New("broken")
	next, _ = source([][]any{{int64(1)}}, broken)
	if err := Gather([]string{"n"}, []string{"Int64"}, 10, next, none); !errors.Is(err, broken) {
		t.Errorf("source error: %v", err)
	}
	next, calls = source([][]any{{int64(1)}, {int64(2)}, {int64(3)}}, nil)
	err = Gather([]string{"n"}, []string{"Int64"}, 1, next, func(*nativeproto.Block) error { return broken })
	if !errors.Is(err, broken) || *calls != 1 {
		t.Errorf("fn error: %v after %d rows read, want it after 1", err, *calls)
	}
}

func TestRows(t *testing.T) {
	next, _ := source([][]any{{int64(1), "a"}, {int64(2), "b"}}, nil)
	var got []string
	if err := Rows(2, next, func(row []any) error { got = append(got, fmt.Sprintf("%v %v", row...)); return nil }); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, []string{"1 a", "2 b"}) {
		t.Errorf("rows %v", got)
	}
	broken := errors.New("broken")
	next, _ = source([][]any{{int64(1)}}, broken)
	if err := Rows(1, next, func([]any) error { return nil }); !errors.Is(err, broken) {
		t.Errorf("source error: %v", err)
	}
	next, calls := source([][]any{{int64(1)}, {int64(2)}}, nil)
	if err := Rows(1, next, func([]any) error { return broken }); !errors.Is(err, broken) || *calls != 1 {
		t.Errorf("fn error: %v after %d rows", err, *calls)
	}
}
