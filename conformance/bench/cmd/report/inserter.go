package main

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// inserterSection returns BENCHMARKS.md's Ingestion section from run.sh's results/inserter.txt
// (BenchmarkInserter and BenchmarkInserterAsyncLatency on the 26.7 server): per table engine,
// each client's median over the samples of rows/s, client CPU per row and peak heap, the
// Inserter arms' ratios to clickhouse-go's batch pattern against the targets of issue 38, and
// the latency of one insert synchronously and with the server's async buffering.
func inserterSection(out string) string {
	type arm struct{ nsRow, cpuRow, heap, rowsS, msInsert, queued []float64 }
	arms := map[string]*arm{}
	var order, head []string
	re := regexp.MustCompile(`^Benchmark(InserterAsyncLatency|Inserter)/(\S+?)(-\d+)?\s+\d+\s+(.*)$`)
	for _, line := range strings.Split(out, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "revision: ") || strings.HasPrefix(t, "date: ") || strings.HasPrefix(t, "load: ") {
			head = append(head, t) // the load before and after
		}
		m := re.FindStringSubmatch(t)
		if m == nil {
			continue
		}
		name := m[1] + "/" + m[2]
		a := arms[name]
		if a == nil {
			a = &arm{}
			arms[name] = a
			order = append(order, name)
		}
		f := strings.Fields(m[4])
		for k := 0; k+1 < len(f); k += 2 {
			v, err := strconv.ParseFloat(f[k], 64)
			if err != nil {
				continue
			}
			switch f[k+1] {
			case "ms/insert":
				a.msInsert = append(a.msInsert, v)
			case "queued/insert":
				a.queued = append(a.queued, v)
			case "ns/row":
				a.nsRow = append(a.nsRow, v)
			case "cpu-ns/row":
				a.cpuRow = append(a.cpuRow, v)
			case "peak-heap-MiB":
				a.heap = append(a.heap, v)
			case "rows/s":
				a.rowsS = append(a.rowsS, v)
			}
		}
	}
	var b strings.Builder
	b.WriteString("## Ingestion (Inserter)\n\nFrom `conformance/bench` (`BENCH_INSERTER=1 go test -bench 'BenchmarkInserter' -benchtime 1x`, results/inserter.txt)" +
		" on the 26.7 server: 16 goroutines each write events (UInt64, DateTime64(3), LowCardinality(String), String of 100 bytes, Float64)" +
		" through one `chnative.Inserter` or each through PrepareBatch/Append/Send every 10,000 rows; medians of the samples." +
		" Targets (issue 38), each a ratio to clickhouse-go's batch pattern on the same table: throughput >= 2x, client CPU per row <= 0.5x, peak heap <= 0.5x.\n\n")
	if len(order) == 0 {
		b.WriteString("(no result: the inserter run failed; see results/inserter.txt)\n\n")
		return b.String()
	}
	b.WriteString("| table / client | rows/s | client CPU ns/row | peak heap MiB | throughput vs clickhouse-go | CPU/row vs | peak heap vs |\n|---|---|---|---|---|---|---|\n")
	for _, name := range order {
		engineArm, ok := strings.CutPrefix(name, "Inserter/")
		if !ok {
			continue
		}
		a := arms[name]
		row := fmt.Sprintf("| %s | %.0f | %.0f | %.1f |", engineArm, median(a.rowsS), median(a.cpuRow), median(a.heap))
		engine, client, _ := strings.Cut(engineArm, "/")
		cg := arms["Inserter/"+engine+"/clickhouse-go-batch"]
		if cg == nil || client == "clickhouse-go-batch" || len(cg.nsRow) == 0 {
			b.WriteString(row + " | | |\n")
			continue
		}
		tp, cpu, heap := median(cg.nsRow)/median(a.nsRow), median(a.cpuRow)/median(cg.cpuRow), median(a.heap)/median(cg.heap)
		mark := func(ok bool) string {
			if ok {
				return "met"
			}
			return "missed"
		}
		fmt.Fprintf(&b, "%s %.2fx (%s) | %.2fx (%s) | %.2fx (%s) |\n", row, tp, mark(tp >= 2), cpu, mark(cpu <= 0.5), heap, mark(heap <= 0.5))
	}
	var lat []string
	for _, name := range order {
		if mode, ok := strings.CutPrefix(name, "InserterAsyncLatency/"); ok {
			a := arms[name]
			lat = append(lat, fmt.Sprintf("| %s | %.2f | %.2f |", mode, median(a.msInsert), median(a.queued)))
		}
	}
	if len(lat) > 0 {
		b.WriteString("\nOne insert of 100 events into a MergeTree table, one goroutine (`BenchmarkInserterAsyncLatency`): sync, `async_insert=1` with `wait_for_async_insert=1`" +
			" (answered once the server's buffer is written) and with `wait_for_async_insert=0` (answered on receipt; not confirmed);" +
			" queued: the inserts the server's async insert queue took, per insert (its AsyncInsertQuery event; 0 where it runs none):\n\n| mode | ms per insert | queued |\n|---|---|---|\n")
		b.WriteString(strings.Join(lat, "\n") + "\n")
	}
	if len(head) > 0 {
		fmt.Fprintf(&b, "\nRun: %s.\n", strings.Join(head, "; "))
	}
	return b.String() + "\n"
}
