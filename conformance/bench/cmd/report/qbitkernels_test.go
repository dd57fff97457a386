package main

import (
	"strings"
	"testing"
)

func TestQBitKernelsSection(t *testing.T) {
	out := `revision: abc
BenchmarkFloat32/Encode/r1024_d1024-2 	 700	 1700000 ns/op	 2400.00 MB/s	 1710000 cpu-ns/op
BenchmarkFloat32/Encode/r1024_d1024-2 	 700	 1800000 ns/op	 2300.00 MB/s	 1800000 cpu-ns/op
BenchmarkFloat32/Decode/r1024_d1024-2 	 700	 6000000 ns/op	 700.00 MB/s	 6000000 cpu-ns/op
BenchmarkInt8/Encode/r100000_d4-2 	 700	 600000 ns/op	 650.00 MB/s	 610000 cpu-ns/op
`
	md := qbitKernelsSection(out)
	for _, want := range []string{
		"| Float32 | Encode | 1024 x 1024 | 1.75 | 1.75 | 2350 | <= 3.8 ms: met |",
		"| Float32 | Decode | 1024 x 1024 | 6.00 | 6.00 | 700 | <= 5.5 ms: **missed** |",
		"| Int8 | Encode | 100000 x 4 | 0.60 | 0.61 | 650 | none |",
		"Run: revision: abc.",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("missing %q in:\n%s", want, md)
		}
	}
}
