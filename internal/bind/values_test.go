package bind

import (
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// Unit tests of how the arguments of an INSERT's VALUES list map to rows of columns (moved
// from the root's stmt_values_test.go).

func TestValuesMappingError(t *testing.T) {
	for tail, want := range map[string]string{
		"(?, ?), (?, ?)":                         "",
		"($2, $1)":                               "",
		"({b:Nullable(String)}, @a)":             "",
		"(?, 'lit')":                             `value 2 ("'lit'") is not a placeholder`,
		"(?, now())":                             `value 2 ("now()") is not a placeholder`,
		"(?, $1)":                                "mixes placeholder styles (? with $N)",
		"(@a, ?)":                                "mixes placeholder styles (named with ?)",
		"(?, ?), (?)":                            "is not a list of tuples",
		"({a:String}, {b:Array(UInt8)}), (1, ?)": `tuple 2, value 1 ("1")`,
	} {
		err := valuesMappingError(tail)
		var be *BindError
		switch {
		case want == "" && err != nil:
			t.Errorf("%q: %v", tail, err)
		case want != "" && (!errors.As(err, &be) || !strings.Contains(err.Error(), want)):
			t.Errorf("%q: %v, want a *BindError with %q", tail, err, want)
		}
	}
}

// TestSplitInsertArgsByName maps named arguments given in any order to the columns of their
// placeholders, whatever the placeholder types hold.
func TestSplitInsertArgsByName(t *testing.T) {
	args := []driver.NamedValue{{Name: "b", Ordinal: 1, Value: "B"}, {Name: "c", Ordinal: 2, Value: 3}, {Name: "a", Ordinal: 3, Value: "A"}}
	rows, ok, err := splitInsertArgs(" ({a:Nullable(String)}, {b:Nullable(String)}, {c:Array(UInt8)})", args)
	if err != nil || !ok || len(rows) != 1 {
		t.Fatalf("%v %v %v", rows, ok, err)
	}
	var got []string
	for _, a := range rows[0] {
		got = append(got, fmt.Sprint(a.Value))
	}
	if strings.Join(got, ",") != "A,B,3" {
		t.Fatalf("row %v, want A,B,3", got)
	}
	if _, err := mapInsertArgs(" (?, ?)", args); err == nil || !strings.Contains(err.Error(), "2 ? placeholders") {
		t.Fatalf("3 arguments for 2 ?: %v", err)
	}
	if _, err := mapInsertArgs(" ($1, $1)", args); err == nil || !strings.Contains(err.Error(), "each of the 3 arguments") {
		t.Fatalf("$1 twice for 3 arguments: %v", err)
	}
}
