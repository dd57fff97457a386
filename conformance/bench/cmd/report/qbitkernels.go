package main

import (
	"fmt"
	"regexp"
	"strings"
)

// qbitKernelTargets are the per-core times of the QBit transpose kernels on a 1024 x 1024 block
// (qbit/README.md), in ms: encode, decode.
var qbitKernelTargets = map[string][2]float64{
	"Float32": {3.8, 5.5}, "Float64": {11.3, 12.9}, "BFloat16": {1.8, 3.5}, "Int8": {0.84, 1.2},
}

// qbitKernelsSection returns BENCHMARKS.md's QBit kernels section from run.sh's results/qbit.txt
// (go test -bench . ./qbit): per element type, operation and shape the medians of wall and
// process CPU time per op and of MB/s, with the 1024 x 1024 targets judged on the median.
func qbitKernelsSection(out string) string {
	run := parseStep(out, regexp.MustCompile(`^Benchmark((?:Float32|Float64|BFloat16|Int8)/(?:Encode|Decode)/r\d+_d\d+)(?:-\d+)?\s+\d+\s+(.*)$`), false)
	var b strings.Builder
	b.WriteString("## QBit kernels\n\nFrom `go test -run '^$' -bench . ./qbit` (results/qbit.txt): the bit transpose of" +
		" `QBit` vectors into and out of the Native body on one goroutine; medians of the samples; MB/s of the vector data." +
		" Targets: one core, a 1024 x 1024 block.\n\n")
	if len(run.order) == 0 {
		b.WriteString("(no result: the qbit run failed; see results/qbit.txt)\n\n")
		return b.String()
	}
	b.WriteString("| type | op | rows x dim | ms/op | cpu ms/op | MB/s | target |\n|---|---|---|--:|--:|--:|---|\n")
	for _, name := range run.order {
		p := strings.Split(name, "/") // type, op, r<rows>_d<dim>
		p[2] = strings.Replace(strings.TrimPrefix(p[2], "r"), "_d", " x ", 1)
		a := run.arms[name]
		ms := median(a["ns/op"]) / 1e6
		target := "none"
		if tg, ok := qbitKernelTargets[p[0]]; ok && p[2] == "1024 x 1024" {
			lim := tg[0]
			if p[1] == "Decode" {
				lim = tg[1]
			}
			target = fmt.Sprintf("<= %g ms: %s", lim, verdict(ms <= lim))
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %.2f | %.2f | %.0f | %s |\n", p[0], p[1], p[2], ms, median(a["cpu-ns/op"])/1e6, median(a["MB/s"]), target)
	}
	b.WriteString(run.runLine() + "\n")
	return b.String()
}
