package main

import (
	"fmt"
	"math"
	"strings"
)

// target is one of the project's performance targets: the ratio of metric between two arms
// (num/den, best-of-N unless the metric is allocs) compared with limit.
type target struct {
	what     string
	group    string
	num, den string
	denGroup string // the den arm's group, when not group (the same arm on another workload)
	metric   string
	limit    float64
	atMost   bool // ratio must be <= limit; else >= limit (den/num speedup)
	speedup  bool // report den/num ("x faster")
	absolute bool // compare the num arm's metric itself with limit
	// explain names further arms whose CPU profiles explain a miss (the floor the target is
	// bounded by); run.sh profiles them with num and den when the target is missed.
	explain []string
}

var targetList = []target{
	{what: "block-tier read <= 1.0x ch-go (fake, 10M UInt64)", group: "ReadU64/fake", num: "chnative-blocks", den: "ch-go", metric: "ns/row", limit: 1.0, atMost: true},
	{what: "block-tier read <= 1.15x raw reader (real, 10M UInt64)", group: "ReadU64/real", num: "chnative-blocks", den: "raw", metric: "ns/row", limit: 1.15, atMost: true},
	{what: "block-tier read 0 allocs/row (fake, 10M UInt64)", group: "ReadU64/fake", num: "chnative-blocks", metric: "allocs/row", limit: 0.001, atMost: true, absolute: true},
	{what: "block-tier read 0 allocs/row (fake, UInt64+String+Float64)", group: "ReadUSF/fake", num: "chnative-blocks", metric: "allocs/row", limit: 0.001, atMost: true, absolute: true},
	{what: "Rows tier <= 1.25x no-op floor (fake, 10M UInt64)", group: "ReadU64/fake", num: "chnative-rows", den: "noop", metric: "ns/row", limit: 1.25, atMost: true},
	// Restated against database/sql's floor (issue 18): keeping values immutable costs
	// 1.19-1.23x of the no-op driver by itself on this shape (noop-fresh; FINDINGS.md).
	{what: "Rows tier <= 1.1x noop-fresh floor (fake, UInt64+String+Float64)", group: "ReadUSF/fake", num: "chnative-rows", den: "noop-fresh", metric: "ns/row", limit: 1.1, atMost: true},
	{what: "Rows tier >= 1.3x faster than clickhouse-go database/sql (fake, 10M UInt64)", group: "ReadU64/fake", num: "chnative-rows", den: "clickhouse-go-sql", metric: "ns/row", limit: 1.3, speedup: true, explain: []string{"noop"}},
	{what: "Rows tier >= 1.3x faster than clickhouse-go database/sql (real, 10M UInt64)", group: "ReadU64/real", num: "chnative-rows", den: "clickhouse-go-sql", metric: "ns/row", limit: 1.3, speedup: true},
	{what: "Rows tier >= 1.3x faster than clickhouse-go database/sql (fake, UInt64+String+Float64)", group: "ReadUSF/fake", num: "chnative-rows", den: "clickhouse-go-sql", metric: "ns/row", limit: 1.3, speedup: true, explain: []string{"noop"}},
	// Restated against database/sql's floor (issue 18): on 10M UInt64 the no-op driver on the
	// same Go 1.27 path is itself about 1.4x faster than clickhouse-go, not 2x.
	{what: "Rows tier on Go 1.27 <= 1.1x no-op driver on the same path (fake, 10M UInt64)", group: "Go127/ReadU64/fake", num: "chnative-rows", den: "noop", metric: "ns/row", limit: 1.1, atMost: true},
	{what: "Rows tier on Go 1.27 >= 2x faster than clickhouse-go database/sql (fake, UInt64+String+Float64)", group: "Go127/ReadUSF/fake", num: "chnative-rows", den: "clickhouse-go-sql", metric: "ns/row", limit: 2, speedup: true, explain: []string{"noop"}},
	{what: "Rows tier on Go 1.27 0 allocations per value (fake, 10M UInt64)", group: "Go127/ReadU64/fake", num: "chnative-rows", metric: "allocs/row", limit: 0.001, atMost: true, absolute: true},
	{what: "struct tier (Select[T]) >= 5x faster than clickhouse-go conn.Select into structs (fake, mixed)", group: "ReadMixed/fake", num: "chnative-struct", den: "clickhouse-go-struct", metric: "ns/row", limit: 5, speedup: true},
	{what: "mixed-shape block read >= 2x faster than ch-go (fake)", group: "ReadMixed/fake", num: "chnative-blocks", den: "ch-go", metric: "ns/row", limit: 2, speedup: true},
	{what: "columnar insert <= 1.0x ch-go (fake, typed appends)", group: "Insert/fake", num: "chnative-columnar", den: "ch-go", metric: "ns/row", limit: 1.0, atMost: true},
	{what: "columnar insert <= 1.0x ch-go (fake, whole-slice appends)", group: "Insert/fake", num: "chnative-slice", den: "ch-go", metric: "ns/row", limit: 1.0, atMost: true},
	{what: "database/sql prepared batch <= 1.25x no-op floor (fake)", group: "Insert/fake", num: "chnative-sql", den: "noop-sql", metric: "ns/row", limit: 1.25, atMost: true},
	{what: "database/sql prepared batch >= 1.3x faster than clickhouse-go database/sql batch (fake)", group: "Insert/fake", num: "chnative-sql", den: "clickhouse-go-sql", metric: "ns/row", limit: 1.3, speedup: true},
	{what: "database/sql prepared batch >= 1.3x faster than clickhouse-go database/sql batch (real)", group: "Insert/real", num: "chnative-sql", den: "clickhouse-go-sql", metric: "ns/row", limit: 1.3, speedup: true},
	// Restated in client CPU only (issue 18): in wall time both drivers wait on the same
	// database/sql-free loop and the fake server's socket, which bounds the ratio near 3x.
	{what: "Batch.Append row-wise >= 5x faster than clickhouse-go batch Append (fake, client CPU)", group: "Insert/fake", num: "chnative-append", den: "clickhouse-go-append", metric: "cpu-ns/row", limit: 5, speedup: true, explain: []string{"chnative-slice"}},
	{what: "struct append (AppendStructs) >= 5x faster than clickhouse-go batch AppendStruct (fake)", group: "Insert/fake", num: "chnative-struct", den: "clickhouse-go-struct", metric: "ns/row", limit: 5, speedup: true},
	{what: "LZ4 read client CPU <= 0.5x ch-go's (fake, UInt64+String+Float64)", group: "ReadCompression/fake/lz4", num: "chnative-blocks", den: "ch-go", metric: "cpu-ns/row", limit: 0.5, atMost: true},
	// Decompress-ahead (issue 18): with a core to spare, a compressed read's wall time close to
	// the uncompressed read's.
	{what: "LZ4 read wall <= 1.3x the same read uncompressed (fake, UInt64+String+Float64, block tier)", group: "ReadCompression/fake/lz4", num: "chnative-blocks", denGroup: "ReadCompression/fake/none", den: "chnative-blocks", metric: "ns/row", limit: 1.3, atMost: true},
	// ZSTD against ch-go with the same library (issue 37): both decode with klauspost/compress,
	// so what is left to compare is what each driver does around it.
	{what: "ZSTD read client CPU <= 1.0x ch-go's, same decoder (fake, UInt64+String+Float64, block tier)", group: "ReadCompression/fake/zstd", num: "chnative-blocks", den: "ch-go", metric: "cpu-ns/row", limit: 1.0, atMost: true},
	{what: "ZSTD read wall <= 1.0x ch-go's, same decoder (fake, UInt64+String+Float64, block tier)", group: "ReadCompression/fake/zstd", num: "chnative-blocks", den: "ch-go", metric: "ns/row", limit: 1.0, atMost: true},
	{what: "SELECT 1 client CPU per query <= ch-go's (fake)", group: "Select1/fake", num: "chnative-sql", den: "ch-go", metric: "cpu-ns/row", limit: 1.0, atMost: true},
	{what: "SELECT 1 client CPU per query <= ch-go's (fake, block tier)", group: "Select1/fake", num: "chnative-blocks", den: "ch-go", metric: "cpu-ns/row", limit: 1.0, atMost: true},
	// QBit: the block-tier read and columnar insert targets applied to QBit(T, 1024) vectors.
	{what: "QBit(Float32, 1024) block-tier read <= 1.0x ch-go (fake)", group: "QBit/read/fake/Float32", num: "chnative-blocks", den: "ch-go", metric: "ns/row", limit: 1.0, atMost: true},
	{what: "QBit(BFloat16, 1024) block-tier read <= 1.0x ch-go (fake)", group: "QBit/read/fake/BFloat16", num: "chnative-blocks", den: "ch-go", metric: "ns/row", limit: 1.0, atMost: true},
	{what: "QBit(Float32, 1024) columnar insert <= 1.0x ch-go (fake)", group: "QBit/insert/fake/Float32", num: "chnative-columnar", den: "ch-go", metric: "ns/row", limit: 1.0, atMost: true},
	{what: "QBit(BFloat16, 1024) columnar insert <= 1.0x ch-go (fake)", group: "QBit/insert/fake/BFloat16", num: "chnative-columnar", den: "ch-go", metric: "ns/row", limit: 1.0, atMost: true},
}

// outcome is a target evaluated on one run's results.
type outcome struct {
	t        target
	measured float64 // NaN when an arm was not run
	text     string  // the measured value as printed
	run      bool    // both arms (or the num arm of an absolute target) were measured
	met      bool
}

// evaluate checks every target of targetList against groups, in its order.
func evaluate(groups map[string]*group) []outcome { return evaluateList(targetList, groups, minOf) }

// evaluateList checks every target of list against groups, in list's order: time (ns/row) by
// timeAgg over the samples (best-of-N, minOf, for Targets; median for the 26.7 section), every
// other metric by its median.
func evaluateList(list []target, groups map[string]*group, timeAgg agg) []outcome {
	var out []outcome
	for _, t := range list {
		o := outcome{t: t, measured: math.NaN(), text: "not run"}
		if g := groups[t.group]; g != nil {
			f := timeAgg
			if t.metric != "ns/row" {
				f = median
			}
			n := stat(g.byArm[t.num], t.metric, f)
			switch {
			case t.absolute:
				o.measured = n
				o.text = fmt.Sprintf("%s %s", num(n), t.metric)
			default:
				dg := g
				if t.denGroup != "" {
					dg = groups[t.denGroup]
				}
				d := math.NaN()
				if dg != nil {
					d = stat(dg.byArm[t.den], t.metric, f)
				}
				if t.speedup {
					o.measured = d / n
					o.text = fmt.Sprintf("%.2fx faster", o.measured)
				} else {
					o.measured = n / d
					o.text = fmt.Sprintf("%.2fx", o.measured)
				}
			}
			if !math.IsNaN(o.measured) && !math.IsInf(o.measured, 0) {
				o.run = true
				o.met = o.measured >= t.limit
				if t.atMost {
					o.met = o.measured <= t.limit
				}
			} else {
				o.text = "not run"
			}
		}
		out = append(out, o)
	}
	return out
}

func targets(groups map[string]*group, meta map[string]string) string {
	var b strings.Builder
	b.WriteString("Ratios from this run (best-of-N for time, medians for CPU and allocations). Every missed target, here and in the ClickHouse 26.7 section, has a short cause in \"Why the missed targets miss\" below and this run's CPU profiles of its arms in \"Profiles of the missed targets\".\n\n")
	b.WriteString(targetTable(evaluate(groups)))
	if v := meta["peakheap"]; v == "" {
		b.WriteString("| peak heap reading 100M rows (block tier) < 64 MB | not run | — |\n")
	}
	return b.String()
}

// targetTable prints outcomes as the rows of a target table under its header line: what, the
// measured value, and the verdict.
func targetTable(outcomes []outcome) string {
	var b strings.Builder
	b.WriteString("| target | measured | verdict |\n|---|--:|---|\n")
	for _, o := range outcomes {
		verdict := "—"
		if o.run {
			verdict = "met"
			if !o.met {
				verdict = "**missed**"
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", o.t.what, o.text, verdict)
	}
	return b.String()
}
