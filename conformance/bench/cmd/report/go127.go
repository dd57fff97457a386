package main

import (
	"fmt"
	"strings"
)

// go127Prefix starts the names of the groups run.sh measures again on Go 1.27 (the database/sql
// row arms of ReadU64, ReadUSF and ReadMixed on the fake server), where database/sql calls the driver's
// RowsColumnScanner (NextRow, ScanColumn) instead of Next.
const go127Prefix = "Go127/"

// go127Section prints the Go 1.27 groups as their own section, in the Results tables' format.
func go127Section(groups map[string]*group, order []string, meta map[string]string) string {
	var b strings.Builder
	n := 0
	for _, gname := range order {
		if !strings.HasPrefix(gname, go127Prefix) {
			continue
		}
		if n == 0 {
			fmt.Fprintf(&b, "## Go 1.27\n\n%s. The database/sql row arms again: from Go 1.27 database/sql calls a driver's RowsColumnScanner (NextRow, ScanColumn: chnative copies each value straight from its column into the Scan destination) instead of Next (boxing every value as a driver.Value). noop implements them too, so its floor is that path's; clickhouse-go implements only Next. The mixed shape scans into *any, as in Results. Columns as in Results.\n\n", orDash(meta["go127"]))
		}
		n++
		g := groups[gname]
		fmt.Fprintf(&b, "### %s\n\n", g.name)
		b.WriteString("| arm | ns/row best | ns/row med | ratio | cpu ns/row | allocs/row | B/row | n |\n|---|--:|--:|--:|--:|--:|--:|--:|\n")
		for _, l := range armLines(g) {
			a := l.a
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %d |\n", l.name, num(l.best), num(stat(a, "ns/row", median)),
				ratioText(l.ratio), num(stat(a, "cpu-ns/row", median)), num(stat(a, "allocs/row", median)), num(stat(a, "B/row", median)), len(a.samples))
		}
		b.WriteString("\n")
	}
	return b.String()
}
