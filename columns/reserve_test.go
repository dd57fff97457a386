package columns

import (
	"strings"
	"testing"
)

// Reserve makes room for the rows asked (strings of the average length held), so that appending
// them reallocates nothing; a column holding more is left as it is.
func TestReserve(t *testing.T) {
	s, u, lc := NewString(), &UInt64{}, mustNew(t, "LowCardinality(String)").(*LowCardinality)
	v := strings.Repeat("x", 100)
	for range 10 {
		s.Append(v)
		u.Append(1)
		if err := lc.AppendString("k"); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []Column{s, u, lc} {
		Reserve(c, 1000)
	}
	buf, ends, data, idx := cap(s.buf), cap(s.ends), cap(u.data), cap(lc.idx)
	if buf < 100*1000 || ends < 1000 || data < 1000 || idx < 1000 {
		t.Fatalf("capacities after Reserve(1000): buf %d, ends %d, UInt64 %d, LowCardinality %d", buf, ends, data, idx)
	}
	for range 990 {
		s.Append(v)
		u.Append(2)
		if err := lc.AppendString("k"); err != nil {
			t.Fatal(err)
		}
	}
	if cap(s.buf) != buf || cap(s.ends) != ends || cap(u.data) != data || cap(lc.idx) != idx {
		t.Errorf("appending the reserved rows reallocated")
	}
	Reserve(u, 10) // fewer than it holds: nothing
	if cap(u.data) != data || u.Rows() != 1000 {
		t.Errorf("Reserve of fewer rows changed the column")
	}
}
