package main

import (
	"fmt"
	"regexp"
	"strings"
)

// inserterSection returns BENCHMARKS.md's Ingestion section from run.sh's results/inserter.txt
// (BenchmarkInserter and BenchmarkInserterAsyncLatency on the 26.7 server): per table engine,
// each client's median over the samples of rows/s, client and server CPU per row and peak heap, the
// Inserter arms' ratios to clickhouse-go's batch pattern against the targets of issue 38, and
// the latency of one insert synchronously and with the server's async buffering. When a target
// is missed, findings' (FINDINGS.md's) ingestionFindings entry follows the table.
// ingestionFindings is the heading of FINDINGS.md's entry on the Ingestion section's targets
// (which the Targets section does not list).
const ingestionFindings = "Ingestion (Inserter) targets"

func inserterSection(out, findings string) string {
	run := parseStep(out, regexp.MustCompile(`^Benchmark((?:InserterAsyncLatency|Inserter)/\S+?)(?:-\d+)?\s+\d+\s+(.*)$`), false)
	arms, order := run.arms, run.order
	var b strings.Builder
	b.WriteString("## Ingestion (Inserter)\n\nFrom `conformance/bench` (`BENCH_INSERTER=1 go test -bench 'BenchmarkInserter' -benchtime 1x`, results/inserter.txt)" +
		" on the 26.7 server: 16 goroutines each write events (UInt64, DateTime64(3), LowCardinality(String), String of 100 bytes, Float64)" +
		" through one `chnative.Inserter` (Append per event; the -struct arms AppendStruct of a struct each goroutine reuses; the -4MiB arms with MaxBytes 4 MiB)" +
		" or each through PrepareBatch/Append/Send every 10,000 rows; medians of the samples." +
		" Server CPU: the server's user and system time over the op (its system.events), merges included; it runs on the same cores as the clients." +
		" Targets (issue 38), each a ratio to clickhouse-go's batch pattern on the same table: throughput >= 2x, client CPU per row <= 0.5x, peak heap <= 0.5x.\n\n")
	if len(order) == 0 {
		b.WriteString("(no result: the inserter run failed; see results/inserter.txt)\n\n")
		return b.String()
	}
	missed := false
	b.WriteString("| table / client | rows/s | client CPU ns/row | server CPU ns/row | peak heap MiB | throughput vs clickhouse-go | CPU/row vs | peak heap vs |\n|---|---|---|---|---|---|---|---|\n")
	for _, name := range order {
		engineArm, ok := strings.CutPrefix(name, "Inserter/")
		if !ok {
			continue
		}
		a := arms[name]
		server := "" // results from before the benchmark measured it have none
		if v := a["server-cpu-ns/row"]; len(v) > 0 {
			server = fmt.Sprintf("%.0f", median(v))
		}
		row := fmt.Sprintf("| %s | %.0f | %.0f | %s | %.1f |", engineArm, median(a["rows/s"]), median(a["cpu-ns/row"]), server, median(a["peak-heap-MiB"]))
		engine, client, _ := strings.Cut(engineArm, "/")
		cg := arms["Inserter/"+engine+"/clickhouse-go-batch"]
		if cg == nil || client == "clickhouse-go-batch" || len(cg["ns/row"]) == 0 {
			b.WriteString(row + " | | |\n")
			continue
		}
		tp, cpu, heap := median(cg["ns/row"])/median(a["ns/row"]), median(a["cpu-ns/row"])/median(cg["cpu-ns/row"]), median(a["peak-heap-MiB"])/median(cg["peak-heap-MiB"])
		mark := func(ok bool) string {
			if ok {
				return "met"
			}
			return "missed"
		}
		fmt.Fprintf(&b, "%s %.2fx (%s) | %.2fx (%s) | %.2fx (%s) |\n", row, tp, mark(tp >= 2), cpu, mark(cpu <= 0.5), heap, mark(heap <= 0.5))
		missed = missed || tp < 2 || cpu > 0.5 || heap > 0.5
	}
	if e := parseFindings(findings)[ingestionFindings]; missed && e != "" {
		b.WriteString("\nWhy targets miss (FINDINGS.md, " + ingestionFindings + "):\n\n" + e + "\n")
	}
	var lat []string
	for _, name := range order {
		if mode, ok := strings.CutPrefix(name, "InserterAsyncLatency/"); ok {
			a := arms[name]
			lat = append(lat, fmt.Sprintf("| %s | %.2f | %.2f |", mode, median(a["ms/insert"]), median(a["queued/insert"])))
		}
	}
	if len(lat) > 0 {
		b.WriteString("\nOne insert of 100 events into a MergeTree table, one goroutine (`BenchmarkInserterAsyncLatency`): sync, `async_insert=1` with `wait_for_async_insert=1`" +
			" (answered once the server's buffer is written) and with `wait_for_async_insert=0` (answered on receipt; not confirmed);" +
			" queued: the inserts the server's async insert queue took, per insert (its AsyncInsertQuery event; 0 where it runs none):\n\n| mode | ms per insert | queued |\n|---|---|---|\n")
		b.WriteString(strings.Join(lat, "\n") + "\n")
	}
	b.WriteString(run.runLine())
	return b.String() + "\n"
}
