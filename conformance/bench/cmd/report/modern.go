package main

import (
	"fmt"
	"math"
	"strings"
)

// The 26.7 server's groups are named <Workload>/modern[/<codec>] (BenchmarkReadU64/modern/ch-go,
// BenchmarkReadU64/modern/lz4/ch-go, BenchmarkReadNumbers/modern/zstd/..., BenchmarkReadUSF/modern/...,
// BenchmarkReadCompression/modern/lz4/..., BenchmarkInsert/modern/..., BenchmarkInsertCompression/modern/lz4/...).
// They are the only real-server groups where ch-go runs (it cannot query 18.16), so they get their
// own section instead of Results' tables: every arm's median ns/row against ch-go's median, and
// each chnative arm's against its clickhouse-go counterpart's (same tier), after the verdicts of
// the targets set on this server (modernTargetList). Medians, not the fastest samples: the section
// may come from a short run on a loaded host (-modern-in), where one lucky sample says less than
// the middle one.

// modernServer is the benchmark name element of the 26.7 server.
const modernServer = "modern"

// modernTargetList are the targets measured on the 26.7 server (issue 18), checked in the 26.7
// section against its own groups, which may come from a separate run (-modern-in): so they are
// not in Targets, and they use medians for time as the rest of the section does. A missed one is
// profiled as Targets' are (missedOutcomes) when its groups are in the run that was profiled, not
// when the section comes from -modern-in.
var modernTargetList = []target{
	{what: "seed workload read client CPU <= 0.85x ch-go's (26.7, 100M UInt64, uncompressed)", group: "ReadNumbers/modern/none", num: "chnative-blocks", den: "ch-go", metric: "cpu-ns/row", limit: 0.85, atMost: true},
	{what: "seed workload read client CPU <= 0.7x ch-go's (26.7, 100M UInt64, LZ4)", group: "ReadNumbers/modern/lz4", num: "chnative-blocks", den: "ch-go", metric: "cpu-ns/row", limit: 0.7, atMost: true},
	// ZSTD against ch-go with the same library (issue 37): both decode with klauspost/compress.
	{what: "seed workload read client CPU <= 1.0x ch-go's, same decoder (26.7, 100M UInt64, ZSTD)", group: "ReadNumbers/modern/zstd", num: "chnative-blocks", den: "ch-go", metric: "cpu-ns/row", limit: 1.0, atMost: true},
	{what: "seed workload read wall <= 1.0x ch-go's (26.7, 100M UInt64, uncompressed)", group: "ReadNumbers/modern/none", num: "chnative-blocks", den: "ch-go", metric: "ns/row", limit: 1.0, atMost: true},
	{what: "seed workload read wall <= 1.0x ch-go's (26.7, 100M UInt64, LZ4)", group: "ReadNumbers/modern/lz4", num: "chnative-blocks", den: "ch-go", metric: "ns/row", limit: 1.0, atMost: true},
	{what: "seed workload read wall <= 1.0x ch-go's, same decoder (26.7, 100M UInt64, ZSTD)", group: "ReadNumbers/modern/zstd", num: "chnative-blocks", den: "ch-go", metric: "ns/row", limit: 1.0, atMost: true},
	{what: "LZ4 read client CPU <= 0.5x ch-go's (26.7, 1M UInt64+String+Float64)", group: "ReadCompression/modern/lz4", num: "chnative-blocks", den: "ch-go", metric: "cpu-ns/row", limit: 0.5, atMost: true},
	{what: "LZ4 columnar insert client CPU <= 0.7x ch-go's (26.7, 10M UInt64+String+Float64, whole-slice appends)", group: "InsertCompression/modern/lz4", num: "chnative-slice", den: "ch-go", metric: "cpu-ns/row", limit: 0.7, atMost: true},
	{what: "LZ4 database/sql prepared batch >= 2x faster than clickhouse-go database/sql batch (26.7, 10M rows)", group: "InsertCompression/modern/lz4", num: "chnative-sql", den: "clickhouse-go-sql", metric: "ns/row", limit: 2, speedup: true},
}

// isModern says whether group name g is one of the 26.7 server's.
func isModern(g string) bool {
	parts := strings.Split(g, "/")
	return len(parts) >= 2 && parts[1] == modernServer
}

// clickhouseGoPeer names the clickhouse-go arm doing what chnative arm does: the native API for
// the block tiers, database/sql for the row tier and the prepared batch, conn.Select / Append /
// AppendStruct for the struct and row-wise append tiers, the columnar batch for columnar inserts.
func clickhouseGoPeer(arm string) string {
	tier, ok := strings.CutPrefix(arm, "chnative-")
	if !ok {
		return ""
	}
	switch tier {
	case "blocks", "value":
		return "clickhouse-go"
	case "rows", "sql":
		return "clickhouse-go-sql"
	case "slice", "columnar":
		return "clickhouse-go-columnar"
	}
	return "clickhouse-go-" + tier
}

// modernSource says where the section's results come from: this run (file empty) or another
// run's output (file, with that run's header lines in meta).
type modernSource struct {
	file string
	meta map[string]string
}

// modernSection prints the 26.7 groups of order (from groups) as their own section, headed by
// where they come from.
func modernSection(groups map[string]*group, order []string, src modernSource, server string) string {
	var gs []*group
	for _, gname := range order {
		if isModern(gname) {
			gs = append(gs, groups[gname])
		}
	}
	if len(gs) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "## ClickHouse 26.7\n\n")
	fmt.Fprintf(&b, "The real-server workloads where ch-go can run too, on ClickHouse %s (CHNATIVE_MODERN_DSN; scripts/modern.sh starts it: chDB's engine as a TCP server on loopback): "+
		"10M UInt64 (uncompressed and LZ4), ch-bench's 100M-row system.numbers_mt read (ReadNumbers: uncompressed, LZ4 and ZSTD), 1M (UInt64, String, Float64) (ReadUSF; ReadCompression: uncompressed, LZ4 and ZSTD), "+
		"the 1M-row insert into a Null table, and the 10M-row columnar and database/sql batch inserts (InsertCompression: uncompressed, LZ4 and ZSTD). "+
		"clickhouse-go cannot ask the server for ZSTD (v2.51 refuses the string setting network_compression_method), so its ZSTD read arms read LZ4; inserts are compressed by each client with its own codec. "+
		"Every ratio here divides **medians** of ns/row: ÷ ch-go by ch-go's median, ÷ clickhouse-go by the median of the clickhouse-go arm of the same tier (named). "+
		"Below 1 is faster. The server runs on the same two cores as the client, so these times include the server's work.\n\n", orDash(server))
	if src.file == "" {
		b.WriteString("From this run (header above).\n\n")
	} else {
		m := src.meta
		fmt.Fprintf(&b, "**From a separate run of these arms alone, not the run of the rest of this page:** `%s` (results in `%s`)\n\n", orDash(m["command"]), src.file)
		b.WriteString("| | |\n|---|---|\n")
		for _, kv := range [][2]string{{"Revision", m["revision"]}, {"Date", m["date"]}, {"CPU", m["cpu"]}, {"Go", m["go"]},
			{"Samples", m["samples"]}, {"Load average (1, 5, 15 min) before / after", m["load"]}} {
			fmt.Fprintf(&b, "| %s | %s |\n", kv[0], orDash(kv[1]))
		}
		b.WriteString("\nA stopgap (`make bench-modern` takes it and rewrites this page): few samples, on whatever else the host was running then (the load average above; the machine has the CPU shown, which may not be the one of the rest of this page). " +
			"A full `make bench` on a quiet machine measures these arms with the rest of this page and replaces this section.\n\n")
	}
	b.WriteString("### Targets on 26.7\n\nFrom the tables below: medians for time, CPU and allocations.\n\n")
	b.WriteString(targetTable(evaluateList(modernTargetList, groups, median)))
	b.WriteString("\n")
	for _, g := range gs {
		fmt.Fprintf(&b, "### %s\n\n", g.name)
		b.WriteString("| arm | ns/row med | ÷ ch-go | ÷ clickhouse-go | ns/row best | cpu ns/row | allocs/row | B/row | n |\n|---|--:|--:|--:|--:|--:|--:|--:|--:|\n")
		for _, l := range modernLines(g) {
			a := l.a
			peer := "—"
			if l.peer != "" {
				peer = fmt.Sprintf("%s (%s)", ratioText(l.vsPeer), l.peer)
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %d |\n", a.name, num(l.med), ratioText(l.vsChgo), peer,
				num(stat(a, "ns/row", minOf)), num(stat(a, "cpu-ns/row", median)), num(stat(a, "allocs/row", median)), num(stat(a, "B/row", median)), len(a.samples))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// modernLine is one arm's row of a 26.7 table: its median ns/row, the ratio of that to ch-go's
// median, and for chnative arms the clickhouse-go counterpart (empty when not run) and the ratio
// to its median. Ratios are NaN when the other arm did not run.
type modernLine struct {
	a              *arm
	med            float64
	vsChgo, vsPeer float64
	peer           string
}

func modernLines(g *group) []modernLine {
	ratio := func(n float64, other string) float64 {
		d := stat(g.byArm[other], "ns/row", median)
		if math.IsNaN(d) || d <= 0 {
			return math.NaN()
		}
		return n / d
	}
	out := make([]modernLine, 0, len(g.arms))
	for _, a := range g.arms {
		l := modernLine{a: a, med: stat(a, "ns/row", median), vsPeer: math.NaN()}
		l.vsChgo = ratio(l.med, "ch-go")
		if p := clickhouseGoPeer(a.name); p != "" && g.byArm[p] != nil {
			l.peer, l.vsPeer = p, ratio(l.med, p)
		}
		out = append(out, l)
	}
	return out
}
