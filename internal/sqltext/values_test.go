package sqltext

import (
	"fmt"
	"testing"
)

// TestValuesTuplesNested moved from the root's stmt_values_test.go.
func TestValuesTuplesNested(t *testing.T) {
	for tail, want := range map[string]string{
		" ({a:Nullable(String)}, {b:Array(UInt8)})": "[[{a:Nullable(String)} {b:Array(UInt8)}]]",
		"({m:Map(String, UInt8)}, ?), (?, [1, 2]);": "[[{m:Map(String, UInt8)} ?] [? [1, 2]]]",
		"({e:Enum8('a)' = 1, 'b,' = 2)}, 'x,)(')":   "[[{e:Enum8('a)' = 1, 'b,' = 2)} 'x,)(']]",
		"(tuple(1, 2), (3, 4))":                     "[[tuple(1, 2) (3, 4)]]",
		"(@a,@b),(@c,@d)":                           "[[@a @b] [@c @d]]",
		"(?, ?), (?)":                               "<nil>",
		"(?, -- comment\n ?)":                       "<nil>",
		"(?, ?) x":                                  "<nil>",
		"(?, (?)":                                   "<nil>",
		"(?, ?]":                                    "<nil>",
		"(?, 'unterminated)":                        "<nil>",
		"":                                          "<nil>",
		"(?),":                                      "<nil>",
		"({a:String}, {b:Map(String, Array(Tuple(UInt8, String)))})": "[[{a:String} {b:Map(String, Array(Tuple(UInt8, String)))}]]",
	} {
		got, ok := ValuesTuples(tail)
		s := fmt.Sprint(got)
		if !ok {
			s = "<nil>"
		}
		if s != want {
			t.Errorf("ValuesTuples(%q) = %s, want %s", tail, s, want)
		}
	}
}

// TestValuesAsSelect: INSERT ... VALUES rewritten as INSERT ... SELECT, and $N tuples.
func TestValuesAsSelect(t *testing.T) {
	for in, want := range map[string]string{
		"INSERT INTO t VALUES (1)":                             "INSERT INTO t SELECT 1",
		"INSERT INTO t (a, b) VALUES (1, 'x,)'), (f(2), [3]);": "INSERT INTO t (a, b) SELECT 1, 'x,)' UNION ALL SELECT f(2), [3]",
		"INSERT INTO t VALUES (1) junk":                        "",
		"INSERT INTO t VALUES (1 -- c\n)":                      "",
		"INSERT INTO t VALUES (1":                              "",
	} {
		got, ok := ValuesAsSelect(in)
		if got != want || ok != (want != "") {
			t.Errorf("%q: got %q %v, want %q", in, got, ok, want)
		}
	}
	if idx, ok := DollarRows(" ($2, $1), ($3, $1)", 3); !ok || fmt.Sprint(idx) != "[[2 1] [3 1]]" {
		t.Errorf("dollarRows: %v %v", idx, ok)
	}
	if _, ok := DollarRows(" ($1, $2)", 3); ok {
		t.Error("dollarRows accepted an unused argument")
	}
}

// TestInsertWantsData: the unit cases of the root's TestInsertSelectKeepsConnectionInStep, moved here.
func TestInsertWantsData(t *testing.T) {
	for q, want := range map[string]bool{
		"INSERT INTO t VALUES":                 true,
		"INSERT INTO t (a) VALUES (?)":         true,
		"INSERT INTO t FORMAT Native":          true,
		"INSERT INTO t":                        true,
		"INSERT INTO t SELECT 1":               false,
		"insert into t (a) select 'VALUES'":    false,
		"INSERT INTO t /* SELECT */ VALUES":    true,
		"SELECT 1":                             false,
		"INSERT INTO t WITH 1 AS x SELECT x":   false,
		"INSERT INTO `select` (a) VALUES (1)":  true,
		"INSERT INTO t (a) -- select\n VALUES": true,
	} {
		if got := InsertWantsData(q); got != want {
			t.Errorf("InsertWantsData(%q) = %v, want %v", q, got, want)
		}
	}
}
