package main

import (
	"strings"
	"testing"
)

// The section prints the findings entry of each missed target (Targets' and the 26.7 section's),
// leaves out entries of met targets, says when a missed target has no entry, and lists entries
// that name no target.
func TestReportWhySection(t *testing.T) {
	groups := parsed(t) // misses the block-tier read against ch-go and the Rows tier against clickhouse-go
	modern := map[string]*group{}
	findings := "# Findings\n\nintroduction, not an entry\n\n" +
		"### block-tier read <= 1.0x ch-go (fake, 10M UInt64)\n\nBLOCKS CAUSE\n\n" +
		"### Rows tier <= 1.25x no-op floor (fake, 10M UInt64)\n\nMET CAUSE\n\n" +
		"### a target that was renamed\n\nSTALE\n"
	s := whySection(missedOf(groups, modern), findings, "bench/FINDINGS.md")
	for _, want := range []string{
		"### block-tier read <= 1.0x ch-go (fake, 10M UInt64): 1.50x\n\nBLOCKS CAUSE\n",
		"### Rows tier >= 1.3x faster than clickhouse-go database/sql (fake, 10M UInt64): 1.25x faster\n\nNo cause written yet in `bench/FINDINGS.md`",
		"name no target (renamed or removed targets): a target that was renamed.",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("section lacks %q:\n%s", want, s)
		}
	}
	for _, not := range []string{"MET CAUSE", "introduction", "STALE\n"} {
		if strings.Contains(s, not) {
			t.Errorf("section has %q:\n%s", not, s)
		}
	}
	if got := whySection(nil, findings, "f"); !strings.Contains(got, "Every target was met.") {
		t.Errorf("no missed target: %q", got)
	}
}
