package main

import (
	"strings"
	"testing"
)

// The Ingestion section computes each Inserter arm's ratios to clickhouse-go's on the same table
// from the medians, marks the targets, and lists the async latencies.
func TestInserterSection(t *testing.T) {
	out := `revision: abc123
date: 2026-12-07T00:00:00Z
BenchmarkInserter/MergeTree/inserter-2 	1	100 ns/op	100.0 cpu-ns/row	400.0 ns/row	40.00 peak-heap-MiB	2500000 rows/s	300.0 server-cpu-ns/row
BenchmarkInserter/MergeTree/inserter-2 	1	100 ns/op	120.0 cpu-ns/row	500.0 ns/row	50.00 peak-heap-MiB	2000000 rows/s	320.0 server-cpu-ns/row
BenchmarkInserter/MergeTree/inserter-2 	1	100 ns/op	110.0 cpu-ns/row	450.0 ns/row	45.00 peak-heap-MiB	2222222 rows/s	310.0 server-cpu-ns/row
BenchmarkInserter/MergeTree/clickhouse-go-batch-2 	1	100 ns/op	300.0 cpu-ns/row	1000 ns/row	80.00 peak-heap-MiB	1000000 rows/s
BenchmarkInserterAsyncLatency/sync-2 	1	80000000 ns/op	4.000 ms/insert	0 queued/insert
BenchmarkInserterAsyncLatency/async-wait-2 	1	1080000000 ns/op	54.00 ms/insert	1.000 queued/insert
`
	md := inserterSection(out, "### "+ingestionFindings+"\nThe cause.\n### other\nNot this.\n")
	for _, want := range []string{
		"| MergeTree/inserter | 2222222 | 110 | 310 | 45.0 | 2.22x (met) | 0.37x (met) | 0.56x (missed) |",
		"| MergeTree/clickhouse-go-batch | 1000000 | 300 |  | 80.0 | | | |\n",
		"| sync | 4.00 | 0.00 |", "| async-wait | 54.00 | 1.00 |", "revision: abc123", "\n\nThe cause.\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("missing %q in:\n%s", want, md)
		}
	}
	if strings.Contains(md, "Not this") {
		t.Errorf("another entry shown:\n%s", md)
	}
	if md := inserterSection("nothing", ""); !strings.Contains(md, "no result") {
		t.Errorf("an empty run: %s", md)
	}
}
