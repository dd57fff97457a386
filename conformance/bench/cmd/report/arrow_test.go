package main

import (
	"strings"
	"testing"
)

func TestArrowSection(t *testing.T) {
	out := `revision: abc
BenchmarkArrowQuery/chnarrow-2 	1	100 ns/op	60.0 B/row	0.002 allocs/row	60.0 cpu-ns/row	100.0 ns/row
BenchmarkArrowQuery/chnarrow-2 	1	100 ns/op	60.0 B/row	0.002 allocs/row	50.0 cpu-ns/row	110.0 ns/row
BenchmarkArrowQuery/http-arrowstream-none-2 	1	100 ns/op	46.0 B/row	0.04 allocs/row	160.0 cpu-ns/row	500.0 ns/row
BenchmarkArrowQuery/http-arrowstream-lz4_frame-2 	1	100 ns/op	140.0 B/row	0.03 allocs/row	100.0 cpu-ns/row	400.0 ns/row
BenchmarkArrowInsert/chnarrow-2 	1	100 ns/op	10.0 B/row	0.00005 allocs/row	20.0 cpu-ns/row	50.0 ns/row
BenchmarkArrowInsert/http-arrowstream-2 	1	100 ns/op	10.0 B/row	0.00005 allocs/row	10.0 cpu-ns/row	40.0 ns/row
`
	md := arrowSection(out)
	for _, want := range []string{
		"| Query/chnarrow | 105.0 | 55.0 |",
		"| chnarrow.Query client CPU <= 0.5x Query/http-arrowstream-lz4_frame | 0.55x | **missed** |",
		"| chnarrow.Query wall <= 1.0x Query/http-arrowstream-lz4_frame | 0.26x | met |",
		"| chnarrow.Insert client CPU vs Insert/http-arrowstream (no target) | 2.00x | measured |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("missing %q in:\n%s", want, md)
		}
	}
	if md := arrowSection("nothing"); !strings.Contains(md, "no result") {
		t.Errorf("an empty run: %s", md)
	}
}
