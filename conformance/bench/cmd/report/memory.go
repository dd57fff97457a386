package main

import (
	"fmt"
	"strings"
)

// memorySection returns BENCHMARKS.md's Memory section from the output of conformance/memory's
// tests (run.sh's results/memory.txt): its header lines (revision, date, load), then each table
// the tests log, with the line that names it, as they wrote them.
func memorySection(out string) string {
	var b strings.Builder
	b.WriteString("## Memory\n\nFrom `conformance/memory` (`CHNATIVE_DSN=<26.7> go test -run 'TestIdleMemory|TestPeakHeap' -v ./memory/`," +
		" results/memory.txt): the heap each client keeps per idle connection after the workloads of issue 36, after two GCs," +
		" and the peak heap of 1M-row reads and inserts on a new connection (sampled every millisecond).\n\n")
	var head []string
	tables := 0
	inTable := false
	for _, line := range strings.Split(out, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(t, "revision: "), strings.HasPrefix(t, "date: "), strings.HasPrefix(t, "load: ") && len(head) < 3:
			head = append(head, t)
		case strings.HasPrefix(t, "heap kept per idle connection"), strings.HasPrefix(t, "peak heap of"):
			fmt.Fprintf(&b, "%s:\n\n", t)
			inTable = true
		case inTable && strings.HasPrefix(t, "|"):
			b.WriteString(t + "\n")
		case inTable:
			b.WriteString("\n")
			inTable = false
			tables++
		}
	}
	if inTable {
		b.WriteString("\n")
		tables++
	}
	if tables == 0 {
		b.WriteString("(no table: the memory run failed; see results/memory.txt)\n\n")
	}
	if len(head) > 0 {
		fmt.Fprintf(&b, "Run: %s.\n\n", strings.Join(head, "; "))
	}
	return b.String()
}
