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
		// CPU uses medians: 100 over 20
		"Batch.Append row-wise >= 5x faster than clickhouse-go batch Append (fake, client CPU)": "| 5.00x faster | met |",
		// absolute: median allocs/row of chnative-blocks is 0
		"block-tier read 0 allocs/row (fake, 10M UInt64)": "| 0 allocs/row | met |",
		// no Select1 group in the input
		"SELECT 1 client CPU per query <= ch-go's (fake)": "| not run | — |",
	}
	checkTargetRows(t, table, want)
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

// A run of the 26.7 arms alone, with run.sh's header lines: medians ns/row are
// ReadU64/modern: chnative-blocks 12, ch-go 15, clickhouse-go 24, chnative-rows 30,
// clickhouse-go-sql 60, raw 5; ReadU64/modern/lz4: chnative-blocks 9, ch-go 18;
// Insert/modern: chnative-slice 10, chnative-sql 50, clickhouse-go-columnar 40, clickhouse-go-sql
// 100 (no ch-go).
const modernOutput = `goversion: go1.26.8 linux/amd64
revision: abc1234 (dirty)
date: 2026-12-02T10:00:00Z
command: BENCH_FILTER='^Benchmark(ReadU64|ReadUSF|Insert)$/^modern$' BENCH_COUNT=3 conformance/bench/run.sh
load: 3.10 2.50 2.00
modernserver: 26.7.2.1
samples: 3 rounds of the suite
goos: linux
cpu: Test CPU 9000
BenchmarkReadU64/modern/chnative-blocks-2 	 1	 1 ns/op	 0 B/row	 0 allocs/row	 4 cpu-ns/row	 10 ns/row
BenchmarkReadU64/modern/chnative-blocks-2 	 1	 1 ns/op	 0 B/row	 0 allocs/row	 4 cpu-ns/row	 12 ns/row
BenchmarkReadU64/modern/chnative-blocks-2 	 1	 1 ns/op	 0 B/row	 0 allocs/row	 4 cpu-ns/row	 30 ns/row
BenchmarkReadU64/modern/chnative-rows-2   	 1	 1 ns/op	 0 B/row	 0 allocs/row	 4 cpu-ns/row	 30 ns/row
BenchmarkReadU64/modern/ch-go-2           	 1	 1 ns/op	 0 B/row	 0 allocs/row	 4 cpu-ns/row	 16 ns/row
BenchmarkReadU64/modern/ch-go-2           	 1	 1 ns/op	 0 B/row	 0 allocs/row	 4 cpu-ns/row	 14 ns/row
BenchmarkReadU64/modern/ch-go-2           	 1	 1 ns/op	 0 B/row	 0 allocs/row	 4 cpu-ns/row	 15 ns/row
BenchmarkReadU64/modern/clickhouse-go-2   	 1	 1 ns/op	 0 B/row	 0 allocs/row	 4 cpu-ns/row	 20 ns/row
BenchmarkReadU64/modern/clickhouse-go-2   	 1	 1 ns/op	 0 B/row	 0 allocs/row	 4 cpu-ns/row	 25 ns/row
BenchmarkReadU64/modern/clickhouse-go-2   	 1	 1 ns/op	 0 B/row	 0 allocs/row	 4 cpu-ns/row	 24 ns/row
BenchmarkReadU64/modern/clickhouse-go-sql-2	 1	 1 ns/op	 0 B/row	 2 allocs/row	 4 cpu-ns/row	 60 ns/row
BenchmarkReadU64/modern/raw-2             	 1	 1 ns/op	 0 B/row	 0 allocs/row	 4 cpu-ns/row	 5 ns/row
PASS
BenchmarkReadU64/modern/lz4/chnative-blocks-2	 1	 1 ns/op	 0 B/row	 0 allocs/row	 4 cpu-ns/row	 9 ns/row
BenchmarkReadU64/modern/lz4/ch-go-2       	 1	 1 ns/op	 0 B/row	 0 allocs/row	 4 cpu-ns/row	 18 ns/row
BenchmarkInsert/modern/chnative-slice-2   	 1	 1 ns/op	 0 B/row	 0 allocs/row	 4 cpu-ns/row	 10 ns/row
BenchmarkInsert/modern/chnative-sql-2     	 1	 1 ns/op	 0 B/row	 0 allocs/row	 4 cpu-ns/row	 50 ns/row
BenchmarkInsert/modern/clickhouse-go-columnar-2	 1	 1 ns/op	 0 B/row	 0 allocs/row	 4 cpu-ns/row	 40 ns/row
BenchmarkInsert/modern/clickhouse-go-sql-2	 1	 1 ns/op	 0 B/row	 0 allocs/row	 4 cpu-ns/row	 100 ns/row
PASS
load: 3.50 2.60 2.10
`

// tableRow returns the row of arm in the table under heading "### group" of md.
func tableRow(t *testing.T, md, group, arm string) string {
	t.Helper()
	_, rest, ok := strings.Cut(md, "### "+group+"\n")
	if !ok {
		t.Fatalf("no table %s in:\n%s", group, md)
	}
	rest, _, _ = strings.Cut(rest, "\n### ")
	for _, l := range strings.Split(rest, "\n") {
		if strings.HasPrefix(l, "| "+arm+" |") {
			return l
		}
	}
	t.Fatalf("table %s has no arm %s:\n%s", group, arm, rest)
	return ""
}

// The 26.7 section divides medians: every arm by ch-go's, each chnative arm by its clickhouse-go
// counterpart's (named in the cell); a missing ch-go gives "—". It is labelled with the separate
// run's own header lines.
func TestReportModernSection(t *testing.T) {
	groups, order, meta := parse(bufio.NewScanner(strings.NewReader(modernOutput)))
	for k, want := range map[string]string{"revision": "abc1234 (dirty)", "date": "2026-12-02T10:00:00Z", "modernserver": "26.7.2.1",
		"load": "3.10 2.50 2.00 / 3.50 2.60 2.10", "cpu": "Test CPU 9000", "procs": "2",
		"command": "BENCH_FILTER='^Benchmark(ReadU64|ReadUSF|Insert)$/^modern$' BENCH_COUNT=3 conformance/bench/run.sh"} {
		if meta[k] != want {
			t.Errorf("meta %s = %q, want %q", k, meta[k], want)
		}
	}
	md := modernSection(groups, order, modernSource{file: "results/modern.txt", meta: meta}, meta["modernserver"])
	want := map[[2]string]string{
		// median 12 over ch-go's 15 and clickhouse-go's 24; best 10
		{"ReadU64/modern", "chnative-blocks"}: "| chnative-blocks | 12.0 | 0.80x | 0.50x (clickhouse-go) | 10.0 |",
		// the row tier against clickhouse-go's database/sql: 30 over 60
		{"ReadU64/modern", "chnative-rows"}: "| chnative-rows | 30.0 | 2.00x | 0.50x (clickhouse-go-sql) | 30.0 |",
		{"ReadU64/modern", "ch-go"}:         "| ch-go | 15.0 | 1.00x | — |",
		{"ReadU64/modern", "raw"}:           "| raw | 5.00 | 0.33x | — |",
		// no clickhouse-go arm in the group
		{"ReadU64/modern/lz4", "chnative-blocks"}: "| chnative-blocks | 9.00 | 0.50x | — |",
		// whole-slice appends against clickhouse-go's columnar batch; no ch-go in the group
		{"Insert/modern", "chnative-slice"}: "| chnative-slice | 10.0 | — | 0.25x (clickhouse-go-columnar) |",
		{"Insert/modern", "chnative-sql"}:   "| chnative-sql | 50.0 | — | 0.50x (clickhouse-go-sql) |",
	}
	for k, prefix := range want {
		if row := tableRow(t, md, k[0], k[1]); !strings.HasPrefix(row, prefix) {
			t.Errorf("%s %s:\n got %q\nwant prefix %q", k[0], k[1], row, prefix)
		}
	}
	for _, s := range []string{"## ClickHouse 26.7\n", "ClickHouse 26.7.2.1", "From a separate run", "`" + meta["command"] + "`", "results/modern.txt",
		"| Revision | abc1234 (dirty) |", "| Date | 2026-12-02T10:00:00Z |", "| CPU | Test CPU 9000 |", "| Load average (1, 5, 15 min) before / after | 3.10 2.50 2.00 / 3.50 2.60 2.10 |", "make bench"} {
		if !strings.Contains(md, s) {
			t.Errorf("section lacks %q:\n%s", s, md)
		}
	}
	// From the run of the whole page, it says so and repeats no header.
	if md := modernSection(groups, order, modernSource{meta: meta}, ""); !strings.Contains(md, "From this run") || strings.Contains(md, "separate run") {
		t.Errorf("section of this run:\n%s", md)
	}
	// No 26.7 group, no section.
	if md := modernSection(parsed(t), []string{"ReadU64/fake", "Insert/fake"}, modernSource{}, ""); md != "" {
		t.Errorf("section without 26.7 groups: %q", md)
	}
}

// The 26.7 groups are not in Results (nor in its chart), which keeps the other groups.
func TestReportResultsLeaveOutModern(t *testing.T) {
	groups, order, _ := parse(bufio.NewScanner(strings.NewReader(sampleOutput + modernOutput)))
	md, bars := resultsSection(groups, order)
	if strings.Contains(md, "modern") {
		t.Errorf("Results shows 26.7 groups:\n%s", md)
	}
	if !strings.Contains(md, "### ReadU64/fake\n") || !strings.Contains(md, "### Insert/fake\n") {
		t.Errorf("Results lost the fake groups:\n%s", md)
	}
	for _, b := range bars {
		if strings.Contains(b.label, "modern") {
			t.Errorf("chart bar %q of a 26.7 group", b.label)
		}
	}
	if len(bars) == 0 {
		t.Error("no chart bars")
	}
}

// Each chnative tier is set against the clickhouse-go arm doing the same.
func TestReportClickhouseGoPeer(t *testing.T) {
	for arm, want := range map[string]string{
		"chnative-blocks": "clickhouse-go", "chnative-value": "clickhouse-go", "chnative-rows": "clickhouse-go-sql",
		"chnative-struct": "clickhouse-go-struct", "chnative-columnar": "clickhouse-go-columnar", "chnative-slice": "clickhouse-go-columnar",
		"chnative-append": "clickhouse-go-append", "chnative-append-boxing": "clickhouse-go-append-boxing", "chnative-sql": "clickhouse-go-sql",
		"ch-go": "", "clickhouse-go": "", "raw": "",
	} {
		if got := clickhouseGoPeer(arm); got != want {
			t.Errorf("clickhouseGoPeer(%q) = %q, want %q", arm, got, want)
		}
	}
}

// The 26.7 section opens with the verdicts of the targets set on 26.7, from its own groups and
// with medians for time too: CPU of chnative-blocks (medians 4 and 10) against ch-go's; the
// database/sql batch's speedup by medians (clickhouse-go-sql 100 over chnative-sql 60: missed,
// though the fastest samples, 100 over 40, would meet it); a target whose group is absent says so.
func TestReportModernTargets(t *testing.T) {
	const out = `BenchmarkReadCompression/modern/lz4/chnative-blocks-2	 1	 1 ns/op	 0 B/row	 0 allocs/row	 4 cpu-ns/row	 10 ns/row
BenchmarkReadCompression/modern/lz4/chnative-blocks-2	 1	 1 ns/op	 0 B/row	 0 allocs/row	 3 cpu-ns/row	 10 ns/row
BenchmarkReadCompression/modern/lz4/chnative-blocks-2	 1	 1 ns/op	 0 B/row	 0 allocs/row	 9 cpu-ns/row	 10 ns/row
BenchmarkReadCompression/modern/lz4/ch-go-2	 1	 1 ns/op	 0 B/row	 0 allocs/row	 10 cpu-ns/row	 10 ns/row
BenchmarkInsertCompression/modern/lz4/chnative-sql-2	 1	 1 ns/op	 0 B/row	 0 allocs/row	 4 cpu-ns/row	 40 ns/row
BenchmarkInsertCompression/modern/lz4/chnative-sql-2	 1	 1 ns/op	 0 B/row	 0 allocs/row	 4 cpu-ns/row	 60 ns/row
BenchmarkInsertCompression/modern/lz4/chnative-sql-2	 1	 1 ns/op	 0 B/row	 0 allocs/row	 4 cpu-ns/row	 70 ns/row
BenchmarkInsertCompression/modern/lz4/clickhouse-go-sql-2	 1	 1 ns/op	 0 B/row	 0 allocs/row	 4 cpu-ns/row	 100 ns/row
BenchmarkReadNumbers/modern/lz4/chnative-blocks-2	 1	 1 ns/op	 0 B/row	 0 allocs/row	 6 cpu-ns/row	 11 ns/row
BenchmarkReadNumbers/modern/lz4/ch-go-2	 1	 1 ns/op	 0 B/row	 0 allocs/row	 10 cpu-ns/row	 10 ns/row
`
	groups, order, meta := parse(bufio.NewScanner(strings.NewReader(out)))
	md := modernSection(groups, order, modernSource{meta: meta}, "")
	want := map[string]string{
		"LZ4 read client CPU <= 0.5x ch-go's (26.7, 1M UInt64+String+Float64)":                                  "| 0.40x | met |",
		"LZ4 database/sql prepared batch >= 2x faster than clickhouse-go database/sql batch (26.7, 10M rows)":   "| 1.67x faster | **missed** |",
		"LZ4 columnar insert client CPU <= 0.7x ch-go's (26.7, 10M UInt64+String+Float64, whole-slice appends)": "| not run | — |",
		"seed workload read client CPU <= 0.85x ch-go's (26.7, 100M UInt64, uncompressed)":                      "| not run | — |",
		"seed workload read client CPU <= 0.7x ch-go's (26.7, 100M UInt64, LZ4)":                                "| 0.60x | met |",
		"seed workload read client CPU <= 1.0x ch-go's, same decoder (26.7, 100M UInt64, ZSTD)":                 "| not run | — |",
		"seed workload read wall <= 1.0x ch-go's (26.7, 100M UInt64, uncompressed)":                             "| not run | — |",
		"seed workload read wall <= 1.0x ch-go's (26.7, 100M UInt64, LZ4)":                                      "| 1.10x | **missed** |",
		"seed workload read wall <= 1.0x ch-go's, same decoder (26.7, 100M UInt64, ZSTD)":                       "| not run | — |",
	}
	if len(want) != len(modernTargetList) {
		t.Fatalf("%d targets checked, %d in modernTargetList", len(want), len(modernTargetList))
	}
	checkTargetRows(t, md, want)
	// Not in Targets: that table is the run of the rest of the page.
	if tb := targets(groups, meta); strings.Contains(tb, "(26.7") {
		t.Errorf("Targets shows a 26.7 target:\n%s", tb)
	}
}

// A target may divide an arm by the same arm of another group (denGroup): the fake server's
// compressed read against the same read uncompressed, best-of-N.
func TestReportCrossGroupTarget(t *testing.T) {
	const out = `BenchmarkReadCompression/fake/lz4/chnative-blocks-2	 1	 1 ns/op	 0 B/row	 0 allocs/row	 20 cpu-ns/row	 15 ns/row
BenchmarkReadCompression/fake/lz4/chnative-blocks-2	 1	 1 ns/op	 0 B/row	 0 allocs/row	 20 cpu-ns/row	 13 ns/row
BenchmarkReadCompression/fake/none/chnative-blocks-2	 1	 1 ns/op	 0 B/row	 0 allocs/row	 9 cpu-ns/row	 10 ns/row
BenchmarkReadCompression/fake/zstd/chnative-blocks-2	 1	 1 ns/op	 0 B/row	 0 allocs/row	 30 cpu-ns/row	 20 ns/row
BenchmarkReadCompression/fake/zstd/ch-go-2	 1	 1 ns/op	 0 B/row	 0 allocs/row	 25 cpu-ns/row	 25 ns/row
`
	groups, _, meta := parse(bufio.NewScanner(strings.NewReader(out)))
	tb := targets(groups, meta)
	checkTargetRows(t, tb, map[string]string{
		"LZ4 read wall <= 1.3x the same read uncompressed (fake, UInt64+String+Float64, block tier)":   "| 1.30x | met |",
		"ZSTD read client CPU <= 1.0x ch-go's, same decoder (fake, UInt64+String+Float64, block tier)": "| 1.20x | **missed** |",
		"ZSTD read wall <= 1.0x ch-go's, same decoder (fake, UInt64+String+Float64, block tier)":       "| 0.80x | met |",
	})
}

// checkTargetRows checks that the row of each target in want (by its text) ends with the cells
// given: the measured value and the verdict.
func checkTargetRows(t *testing.T, table string, want map[string]string) {
	t.Helper()
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
}
