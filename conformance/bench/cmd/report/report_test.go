package main

import (
	"bufio"
	"math"
	"strings"
	"testing"
)

// A small go test -bench output with known numbers: three samples per arm, the arm's -2 suffix,
// and lines the parser must ignore.
const sampleOutput = `goversion: go1.26.8 linux/amd64
samples: -count 3, -benchtime 200ms per sample, BENCH_QUICK=0
goos: linux
BenchmarkReadU64/fake/chnative-blocks-2   	 1	 1 ns/op	 0 B/row	 0 allocs/row	 2.0 cpu-ns/row	 3.0 ns/row
BenchmarkReadU64/fake/chnative-blocks-2   	 1	 1 ns/op	 0 B/row	 0 allocs/row	 2.0 cpu-ns/row	 3.3 ns/row
BenchmarkReadU64/fake/chnative-blocks-2   	 1	 1 ns/op	 0 B/row	 0 allocs/row	 2.0 cpu-ns/row	 9.0 ns/row
BenchmarkReadU64/fake/ch-go-2             	 1	 1 ns/op	 0 B/row	 0 allocs/row	 2.0 cpu-ns/row	 2.0 ns/row
BenchmarkReadU64/fake/ch-go-2             	 1	 1 ns/op	 0 B/row	 0 allocs/row	 2.0 cpu-ns/row	 2.5 ns/row
BenchmarkReadU64/fake/ch-go-2             	 1	 1 ns/op	 0 B/row	 0 allocs/row	 2.0 cpu-ns/row	 2.2 ns/row
BenchmarkReadU64/fake/chnative-rows-2     	 1	 1 ns/op	 0 B/row	 0 allocs/row	 99 cpu-ns/row	 130 ns/row
BenchmarkReadU64/fake/chnative-rows-2     	 1	 1 ns/op	 0 B/row	 0 allocs/row	 99 cpu-ns/row	 120 ns/row
BenchmarkReadU64/fake/chnative-rows-2     	 1	 1 ns/op	 0 B/row	 0 allocs/row	 99 cpu-ns/row	 125 ns/row
BenchmarkReadU64/fake/noop-2              	 1	 1 ns/op	 0 B/row	 0 allocs/row	 99 cpu-ns/row	 100 ns/row
BenchmarkReadU64/fake/noop-2              	 1	 1 ns/op	 0 B/row	 0 allocs/row	 99 cpu-ns/row	 101 ns/row
BenchmarkReadU64/fake/noop-2              	 1	 1 ns/op	 0 B/row	 0 allocs/row	 99 cpu-ns/row	 102 ns/row
BenchmarkReadU64/fake/clickhouse-go-sql-2 	 1	 1 ns/op	 0 B/row	 2 allocs/row	 99 cpu-ns/row	 150 ns/row
BenchmarkReadU64/fake/clickhouse-go-sql-2 	 1	 1 ns/op	 0 B/row	 2 allocs/row	 99 cpu-ns/row	 190 ns/row
BenchmarkReadU64/fake/clickhouse-go-sql-2 	 1	 1 ns/op	 0 B/row	 2 allocs/row	 99 cpu-ns/row	 170 ns/row
BenchmarkInsert/fake/chnative-append-2    	 1	 1 ns/op	 0 B/row	 0 allocs/row	 10 cpu-ns/row	 20 ns/row
BenchmarkInsert/fake/chnative-append-2    	 1	 1 ns/op	 0 B/row	 0 allocs/row	 30 cpu-ns/row	 21 ns/row
BenchmarkInsert/fake/chnative-append-2    	 1	 1 ns/op	 0 B/row	 0 allocs/row	 20 cpu-ns/row	 22 ns/row
BenchmarkInsert/fake/clickhouse-go-append-2	 1	 1 ns/op	 0 B/row	 0 allocs/row	 100 cpu-ns/row	 110 ns/row
BenchmarkInsert/fake/clickhouse-go-append-2	 1	 1 ns/op	 0 B/row	 0 allocs/row	 110 cpu-ns/row	 100 ns/row
BenchmarkInsert/fake/clickhouse-go-append-2	 1	 1 ns/op	 0 B/row	 0 allocs/row	 90 cpu-ns/row	 105 ns/row
BenchmarkInsert/fake/no-metrics-2          	 1	 1 ns/op
PASS
`

func parsed(t *testing.T) map[string]*group {
	t.Helper()
	groups, order, meta := parse(bufio.NewScanner(strings.NewReader(sampleOutput)))
	if len(order) != 2 || order[0] != "ReadU64/fake" || order[1] != "Insert/fake" {
		t.Fatalf("groups %v", order)
	}
	if meta["go"] != "go1.26.8 linux/amd64" || !strings.HasPrefix(meta["samples"], "-count 3") {
		t.Fatalf("meta %v", meta)
	}
	if g := groups["Insert/fake"]; len(g.arms) != 2 {
		t.Fatalf("Insert/fake has %d arms, want 2 (a line without ns/row is not an arm)", len(g.arms))
	}
	return groups
}

// Best is the minimum, med the median, and an arm's ratio is its best over the baseline's best.
func TestReportStatsAndRatios(t *testing.T) {
	g := parsed(t)["ReadU64/fake"]
	rows := g.byArm["chnative-rows"]
	if len(rows.samples) != 3 || stat(rows, "ns/row", minOf) != 120 || stat(rows, "ns/row", median) != 125 {
		t.Fatalf("chnative-rows: %d samples, best %v, median %v", len(rows.samples),
			stat(rows, "ns/row", minOf), stat(rows, "ns/row", median))
	}
	if b := baselineOf(g); b == nil || b.name != "ch-go" {
		t.Fatalf("baseline %v, want ch-go", b)
	}
	for _, l := range armLines(g) {
		want := map[string]float64{"chnative-blocks": 1.5, "ch-go *": 1, "chnative-rows": 60, "noop": 50, "clickhouse-go-sql": 75}[l.name]
		if math.Abs(l.ratio-want) > 1e-9 {
			t.Errorf("%s: ratio %v, want %v", l.name, l.ratio, want)
		}
	}
	if !math.IsNaN(stat(nil, "ns/row", minOf)) || !math.IsNaN(median(nil)) {
		t.Error("a missing arm or no samples must give NaN")
	}
}

// Each kind of target is computed the right way round: at-most ratios (num/den), speedups
// (den/num), medians for CPU, absolute values; and a target whose group did not run says so.
func TestReportTargetVerdicts(t *testing.T) {
	table := targets(parsed(t), map[string]string{})
	want := map[string]string{
		// chnative-blocks best 3.0 over ch-go best 2.0
		"block-tier read <= 1.0x ch-go (fake, 10M UInt64)": "| 1.50x | **missed** |",
		// chnative-rows best 120 over noop best 100
		"Rows tier <= 1.25x no-op floor (fake, 10M UInt64)": "| 1.20x | met |",
		// clickhouse-go-sql best 150 over chnative-rows best 120
		"Rows tier >= 1.3x faster than clickhouse-go database/sql (fake, 10M UInt64)": "| 1.25x faster | **missed** |",
		// clickhouse-go-append best 100 over chnative-append best 20
		"Batch.Append row-wise >= 5x faster than clickhouse-go batch Append (fake)": "| 5.00x faster | met |",
		// CPU uses medians: 100 over 20
		"Batch.Append row-wise >= 5x faster than clickhouse-go batch Append (fake, client CPU)": "| 5.00x faster | met |",
		// absolute: median allocs/row of chnative-blocks is 0
		"block-tier read 0 allocs/row (fake, 10M UInt64)": "| 0 allocs/row | met |",
		// no Select1 group in the input
		"SELECT 1 client CPU per query <= ch-go's (fake)": "| not run | — |",
	}
	for what, cells := range want {
		line := ""
		for _, l := range strings.Split(table, "\n") {
			if strings.HasPrefix(l, "| "+what+" |") {
				line = l
			}
		}
		if !strings.HasSuffix(line, cells) {
			t.Errorf("target %q:\n got %q\nwant suffix %q", what, line, cells)
		}
	}
	if !strings.Contains(table, "| peak heap reading 100M rows (block tier) < 64 MB | not run | — |") {
		t.Error("the peak heap target must say it did not run when there is no PEAKHEAP line")
	}
}

// make bench runs the suite in rounds: an arm's samples are interleaved with other arms' and
// separated by each round's own header, -v and PASS lines. They still make one arm each.
func TestReportRounds(t *testing.T) {
	const rounds = `goversion: go1.26.8 linux/amd64
samples: 2 rounds of the suite
=== RUN   TestPeakHeap
    heap_test.go:1: PEAKHEAP reading 10 rows: peak HeapInuse 1.0 MB (0.5 MB before the query)
--- PASS: TestPeakHeap (0.10s)
goos: linux
BenchmarkReadU64/fake/noop
BenchmarkReadU64/fake/noop-2          	 1	 1 ns/op	 0 B/row	 0 allocs/row	 9 cpu-ns/row	 101 ns/row
BenchmarkReadU64/fake/chnative-rows-2 	 1	 1 ns/op	 0 B/row	 0 allocs/row	 9 cpu-ns/row	 125 ns/row
PASS
goos: linux
BenchmarkReadU64/fake/noop-2          	 1	 1 ns/op	 0 B/row	 0 allocs/row	 9 cpu-ns/row	 100 ns/row
BenchmarkReadU64/fake/chnative-rows-2 	 1	 1 ns/op	 0 B/row	 0 allocs/row	 9 cpu-ns/row	 120 ns/row
PASS
BenchmarkGo127/ReadU64/fake/noop-2    	 1	 1 ns/op	 0 B/row	 0 allocs/row	 9 cpu-ns/row	 90 ns/row
`
	groups, order, meta := parse(bufio.NewScanner(strings.NewReader(rounds)))
	if len(order) != 2 || order[0] != "ReadU64/fake" || order[1] != "Go127/ReadU64/fake" {
		t.Fatalf("groups %v", order)
	}
	g := groups["ReadU64/fake"]
	if len(g.arms) != 2 || len(g.byArm["noop"].samples) != 2 || len(g.byArm["chnative-rows"].samples) != 2 {
		t.Fatalf("arms %d, noop %d samples, chnative-rows %d", len(g.arms), len(g.byArm["noop"].samples), len(g.byArm["chnative-rows"].samples))
	}
	if best := stat(g.byArm["chnative-rows"], "ns/row", minOf); best != 120 {
		t.Errorf("chnative-rows best %v, want 120", best)
	}
	if meta["peakheap"] == "" {
		t.Error("the first round's PEAKHEAP line was lost")
	}
}
