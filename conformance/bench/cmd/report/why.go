package main

import (
	"fmt"
	"sort"
	"strings"
)

// The section "Why the missed targets miss": for every target this run missed (Targets, then
// the 26.7 section's), the cause written by hand in the findings file (conformance/bench/
// FINDINGS.md) under a "### " heading that is the target's text. Entries of targets that were
// met are left out, so the file may hold the causes of targets near their limit; a missed target
// without an entry is printed as such, and entries naming no target are listed at the end, so a
// renamed target cannot keep a stale cause unnoticed.

// parseFindings splits the findings file into its entries, keyed by heading; text before the
// first heading is ignored (the file's own introduction).
func parseFindings(text string) map[string]string {
	entries := map[string]string{}
	var head string
	var body strings.Builder
	flush := func() {
		if head != "" {
			entries[head] = strings.TrimSpace(body.String())
		}
		body.Reset()
	}
	for _, line := range strings.SplitAfter(text, "\n") {
		if h, ok := strings.CutPrefix(line, "### "); ok {
			flush()
			head = strings.TrimSpace(h)
			continue
		}
		body.WriteString(line)
	}
	flush()
	return entries
}

// whySection prints the cause of each missed outcome from findings (the file named file).
func whySection(missed []outcome, findings, file string) string {
	entries := parseFindings(findings)
	var b strings.Builder
	fmt.Fprintf(&b, "## Why the missed targets miss\n\n")
	if len(missed) == 0 {
		b.WriteString("Every target was met.\n\n")
	}
	for _, o := range missed {
		fmt.Fprintf(&b, "### %s: %s\n\n", o.t.what, o.text)
		if e, ok := entries[o.t.what]; ok && e != "" {
			b.WriteString(e)
			b.WriteString("\n\n")
		} else {
			fmt.Fprintf(&b, "No cause written yet in `%s`; see the profiles below.\n\n", file)
		}
	}
	known := map[string]bool{ingestionFindings: true} // inserterSection shows it
	for _, t := range append(append([]target(nil), targetList...), modernTargetList...) {
		known[t.what] = true
	}
	var stale []string
	for h := range entries {
		if !known[h] {
			stale = append(stale, h)
		}
	}
	sort.Strings(stale)
	if len(stale) > 0 {
		fmt.Fprintf(&b, "Entries of `%s` that name no target (renamed or removed targets): %s.\n\n", file, strings.Join(stale, "; "))
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// missedOf returns the missed outcomes of Targets on groups and of the 26.7 targets on
// modernGroups (the groups the 26.7 section was made from), in that order.
func missedOf(groups, modernGroups map[string]*group) []outcome {
	var missed []outcome
	for _, o := range append(evaluate(groups), evaluateList(modernTargetList, modernGroups, median)...) {
		if o.run && !o.met {
			missed = append(missed, o)
		}
	}
	return missed
}
