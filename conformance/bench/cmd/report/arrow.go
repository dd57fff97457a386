package main

import (
	"fmt"
	"regexp"
	"strings"
)

// arrowSection returns BENCHMARKS.md's Arrow section from run.sh's results/arrow.txt (chnarrow's
// BenchmarkArrowQuery and BenchmarkArrowInsert on the 26.7 server): each arm's medians of wall
// and client CPU per row and allocations per row, and chnarrow's ratios to the HTTP
// FORMAT ArrowStream arms, with the Query targets of issue 40 judged against the fastest of them.
func arrowSection(out string) string {
	run := parseStep(out, regexp.MustCompile(`^BenchmarkArrow((?:Query|Insert)/\S+?)(?:-\d+)?\s+\d+\s+(.*)$`), true)
	arms, order := run.arms, run.order
	var b strings.Builder
	b.WriteString("## Arrow (chnarrow)\n\nFrom `chnarrow` (`BENCH_ROWS=10000000 go test -bench '^BenchmarkArrow' -benchtime 1x`, results/arrow.txt)" +
		" on the 26.7 server: 10M rows of (UInt64, String, Float64, DateTime64(3), Nullable(Int32)) read as Arrow records by `chnarrow.Query`" +
		" and by HTTP `FORMAT ArrowStream` read with arrow-go's IPC reader (uncompressed and LZ4-framed), and inserted from the same records" +
		" by `chnarrow.Insert` and by HTTP `INSERT ... FORMAT ArrowStream`; medians of the samples. Targets (issue 40), against the" +
		" fastest HTTP arm: Query client CPU <= 0.5x, Query wall <= 1.0x.\n\n")
	if len(order) == 0 {
		b.WriteString("(no result: the Arrow run failed; see results/arrow.txt)\n\n")
		return b.String()
	}
	b.WriteString("| arm | ns/row | client CPU ns/row | allocs/row | B/row |\n|---|--:|--:|--:|--:|\n")
	for _, name := range order {
		a := arms[name]
		fmt.Fprintf(&b, "| %s | %.1f | %.1f | %.2g | %.3g |\n", name, median(a["ns/row"]), median(a["cpu-ns/row"]), median(a["allocs/row"]), median(a["B/row"]))
	}
	b.WriteString("\n| target | measured | verdict |\n|---|--:|---|\n")
	for _, op := range []string{"Query", "Insert"} {
		own := arms[op+"/chnarrow"]
		var http map[string][]float64
		var httpName string
		for _, name := range order {
			if a := arms[name]; strings.HasPrefix(name, op+"/http-") && (http == nil || median(a["cpu-ns/row"]) < median(http["cpu-ns/row"])) {
				http, httpName = a, name
			}
		}
		if own == nil || http == nil {
			continue
		}
		cpu, wall := median(own["cpu-ns/row"])/median(http["cpu-ns/row"]), median(own["ns/row"])/median(http["ns/row"])
		if op == "Query" {
			fmt.Fprintf(&b, "| chnarrow.Query client CPU <= 0.5x %s | %.2fx | %s |\n", httpName, cpu, verdict(cpu <= 0.5))
			fmt.Fprintf(&b, "| chnarrow.Query wall <= 1.0x %s | %.2fx | %s |\n", httpName, wall, verdict(wall <= 1.0))
			continue
		}
		fmt.Fprintf(&b, "| chnarrow.Insert client CPU vs %s (no target) | %.2fx | measured |\n", httpName, cpu)
		fmt.Fprintf(&b, "| chnarrow.Insert wall vs %s (no target) | %.2fx | measured |\n", httpName, wall)
	}
	b.WriteString(run.runLine() + "\n")
	return b.String()
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "**missed**"
}
