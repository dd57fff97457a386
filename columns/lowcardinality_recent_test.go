package columns

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestLowCardinalityRecentValues appends strings through the recent values' cache and checks
// every row's value and that the dictionary holds each value once: values sharing a slot,
// blocks (Reset) whose values differ from the last one's, a decoded block appended to, and
// enough distinct values to turn the cache off.
func TestLowCardinalityRecentValues(t *testing.T) {
	// a?m?z: one length and the same first, middle and last bytes, so one slot.
	colliding := []string{"a1m2z", "a3m4z", "a5m6z", "a7m8z"}
	if recentSlot(colliding[0]) != recentSlot(colliding[1]) {
		t.Fatal("the colliding values do not share a slot")
	}
	sets := [][]string{colliding, {"click", "view", "purchase", "signup", "logout", "search", "share", "error"}, nil}
	for i := range 5000 {
		sets[2] = append(sets[2], fmt.Sprintf("city-%d", i))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, typ := range []string{"LowCardinality(String)", "LowCardinality(Nullable(String))"} {
		c := mustNew(t, typ).(*LowCardinality)
		for round, set := range append(sets, sets...) {
			c.Reset() // a new block: the last one's indexes mean nothing now
			var want []any
			for range 20_000 {
				v := set[rng.IntN(len(set))]
				if err := c.AppendString(v); err != nil {
					t.Fatal(err)
				}
				want = append(want, v)
				if rng.IntN(50) == 0 { // the map's other users: the default value
					c.AppendDefault()
					if c.nullable {
						want = append(want, nil)
					} else {
						want = append(want, "")
					}
				}
			}
			if i, ok := valuesEqual(values(c), want); !ok {
				t.Fatalf("%s round %d: row %d is %v, want %v", typ, round, i, c.Value(i), want[i])
			}
			seen := map[string]bool{}
			d := c.Dictionary().(*String)
			for j := range d.Rows() {
				if seen[d.String(j)] && !(c.nullable && j == 0) {
					t.Fatalf("%s round %d: %q twice in the dictionary", typ, round, d.String(j))
				}
				seen[d.String(j)] = true
			}
			// On for the kinds; off for the many values and for the ones sharing a slot.
			if off := round%3 != 1; c.recentOff != off {
				t.Errorf("%s round %d: cache off %v, want %v", typ, round, c.recentOff, off)
			}
		}
		// A decoded block appended to: its dictionary is the decoded one.
		data := encode(c)
		rows := c.Rows()
		if err := decodeInto(c, NewBytesReader(data), rows); err != nil {
			t.Fatal(err)
		}
		last := c.Value(rows - 1)
		for _, v := range sets[1] {
			if err := c.AppendString(v); err != nil || c.Value(c.Rows()-1) != v {
				t.Fatalf("%s after a decode: appended %q, got %v (%v)", typ, v, c.Value(c.Rows()-1), err)
			}
		}
		if c.Value(rows-1) != last {
			t.Fatalf("%s after a decode: the decoded rows changed", typ)
		}
	}
}
