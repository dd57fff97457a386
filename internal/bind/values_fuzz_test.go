package bind

import (
	"database/sql/driver"
	"strings"
	"testing"
)

// FuzzValuesTuples: the VALUES splitter and the argument mapping never panic, every value they
// return is text of the tail, tuples have one width, and a tail valuesMappingError accepts maps
// (or names the arguments that do not fit).
func FuzzValuesTuples(f *testing.F) {
	for _, s := range []string{
		"(?, ?), (?, ?)", "($2, $1)", "({a:Nullable(String)}, {b:Array(UInt8)})", "(@a, 'x,)')",
		"({e:Enum8('a}' = 1)}, [1, (2)])", "(?, -- c\n ?)", "((", "(?))", "('", "({a:", "(?),(?);",
	} {
		f.Add(s, uint8(2))
	}
	f.Fuzz(func(t *testing.T, tail string, nargs uint8) {
		ts, ok := valuesTuples(tail)
		if ok {
			for _, tu := range ts {
				if len(tu) != len(ts[0]) {
					t.Fatalf("tuples of widths %d and %d", len(ts[0]), len(tu))
				}
				for _, v := range tu {
					if !strings.Contains(tail, v) {
						t.Fatalf("value %q is not in %q", v, tail)
					}
				}
			}
		}
		args := make([]driver.NamedValue, int(nargs%8))
		for i := range args {
			args[i] = driver.NamedValue{Ordinal: i + 1, Value: i}
			if i%2 == 1 {
				args[i].Name = string(rune('a' + i))
			}
		}
		rows, err := mapInsertArgs(tail, args)
		if err == nil {
			if valuesMappingError(tail) != nil {
				t.Fatalf("%q mapped, yet valuesMappingError refuses it", tail)
			}
			for _, r := range rows {
				if len(r) != len(ts[0]) {
					t.Fatalf("row of %d values for tuples of %d", len(r), len(ts[0]))
				}
			}
		}
	})
}
