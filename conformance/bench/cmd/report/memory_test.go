package main

import (
	"strings"
	"testing"
)

// The Memory section carries memory.txt's tables and header lines, and says so when there is none.
func TestMemorySection(t *testing.T) {
	out := `revision: abc123
date: 2026-12-06T21:00:00Z
load: 1.0 1.0 1.0
=== RUN   TestIdleMemory
    memory_test.go:438: 
        heap kept per idle connection (MiB, after two GCs), server 127.0.0.1:1
        | client | a |
        |---|---|
        | chnative | 0.16 |
        
--- PASS: TestIdleMemory (6.71s)
=== RUN   TestPeakHeap
    peak_test.go:231: 
        peak heap of 1M (UInt64, String) rows, one new connection (MiB above the heap before), server 127.0.0.1:1
        | client | workload | peak heap |
        |---|---|---|
        | chnative | read: Rows | 13.97 |
--- PASS: TestPeakHeap (0.90s)
`
	md := memorySection(out)
	for _, want := range []string{"## Memory", "heap kept per idle connection", "| chnative | 0.16 |",
		"peak heap of 1M", "| chnative | read: Rows | 13.97 |", "revision: abc123"} {
		if !strings.Contains(md, want) {
			t.Errorf("the section lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "PASS") || strings.Contains(md, "no table") {
		t.Errorf("the section has test noise or says it has no table:\n%s", md)
	}
	if md := memorySection("revision: x\n--- FAIL: TestIdleMemory\n"); !strings.Contains(md, "no table") {
		t.Errorf("a failed run's section does not say so:\n%s", md)
	}
}
