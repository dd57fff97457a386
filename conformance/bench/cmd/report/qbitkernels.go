package main

import (
	"fmt"
	"regexp"
	"strconv"
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
	type arm struct{ ns, cpu, mbs []float64 }
	arms := map[string]*arm{}
	var order, head []string
	re := regexp.MustCompile(`^Benchmark(Float32|Float64|BFloat16|Int8)/(Encode|Decode)/r(\d+)_d(\d+)(-\d+)?\s+\d+\s+(.*)$`)
	for _, line := range strings.Split(out, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "revision: ") || strings.HasPrefix(t, "date: ") || strings.HasPrefix(t, "load: ") {
			head = append(head, t)
		}
		m := re.FindStringSubmatch(t)
		if m == nil {
			continue
		}
		name := m[1] + "|" + m[2] + "|" + m[3] + " x " + m[4]
		a := arms[name]
		if a == nil {
			a = &arm{}
			arms[name] = a
			order = append(order, name)
		}
		f := strings.Fields(m[6])
		for k := 0; k+1 < len(f); k += 2 {
			v, err := strconv.ParseFloat(strings.ReplaceAll(f[k], ",", ""), 64)
			if err != nil {
				continue
			}
			switch f[k+1] {
			case "ns/op":
				a.ns = append(a.ns, v)
			case "cpu-ns/op":
				a.cpu = append(a.cpu, v)
			case "MB/s":
				a.mbs = append(a.mbs, v)
			}
		}
	}
	var b strings.Builder
	b.WriteString("## QBit kernels\n\nFrom `go test -run '^$' -bench . ./qbit` (results/qbit.txt): the bit transpose of" +
		" `QBit` vectors into and out of the Native body on one goroutine; medians of the samples; MB/s of the vector data." +
		" Targets: one core, a 1024 x 1024 block.\n\n")
	if len(order) == 0 {
		b.WriteString("(no result: the qbit run failed; see results/qbit.txt)\n\n")
		return b.String()
	}
	b.WriteString("| type | op | rows x dim | ms/op | cpu ms/op | MB/s | target |\n|---|---|---|--:|--:|--:|---|\n")
	for _, name := range order {
		p := strings.Split(name, "|")
		a := arms[name]
		ms := median(a.ns) / 1e6
		target := "none"
		if tg, ok := qbitKernelTargets[p[0]]; ok && p[2] == "1024 x 1024" {
			lim := tg[0]
			if p[1] == "Decode" {
				lim = tg[1]
			}
			target = fmt.Sprintf("<= %g ms: %s", lim, verdict(ms <= lim))
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %.2f | %.2f | %.0f | %s |\n", p[0], p[1], p[2], ms, median(a.cpu)/1e6, median(a.mbs), target)
	}
	if len(head) > 0 {
		b.WriteString("\nRun: " + strings.Join(head, "; ") + ".\n")
	}
	b.WriteString("\n")
	return b.String()
}
