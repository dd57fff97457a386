#!/usr/bin/env bash
# Compares two revisions of chnative on the benchmark suite with benchstat.
#   compare.sh OLD [NEW]   NEW defaults to the working tree.
# Each revision is exported with `git archive` (read-only: no worktree, branch or index change)
# and the suite (always the working tree's conformance/bench) is built against it through a
# -modfile whose replace directive points there. Both test binaries are built first, then run in
# interleaved rounds (one sample of every benchmark per round, the two revisions alternating which
# goes first), so that load on this shared host falls on both alike. Env as run.sh (BENCH_FILTER,
# BENCH_COUNT = rounds, BENCH_TIME, BENCH_QUICK, BENCH_NO_REAL, BENCH_NO_MODERN, GO127); the
# default count here is 8, enough for benchstat's test (results/compare/ keeps the benchstat outputs
# an issue asked for, each headed by its command). Both binaries are built with the tag
# benchcompare, which leaves out the benchmarks of APIs an older revision may lack (the Inserter's,
# run by run.sh's own step, never by the rounds).
set -euo pipefail
old="${1:?usage: compare.sh OLD [NEW]}"
new="${2:-}"
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
work="$(mktemp -d /tmp/chnative-bench-compare.XXXXXX)"
count="${BENCH_COUNT:-8}"
# shellcheck source=settings.sh
source "$here/settings.sh"
trap bench_stop_modern EXIT

if ! command -v benchstat >/dev/null && [[ ! -x "$(go env GOPATH)/bin/benchstat" ]]; then
	go install golang.org/x/perf/cmd/benchstat@latest
fi
benchstat="$(command -v benchstat || echo "$(go env GOPATH)/bin/benchstat")"

prep() { # rev name -> modfile
	local rev="$1" name="$2" src
	if [[ -z "$rev" ]]; then
		src="$root"
	else
		src="$work/$name-src"
		mkdir -p "$src"
		git -C "$root" archive "$rev" | tar -x -C "$src"
	fi
	sed "s#=> \.\./\?\$#=> $src#" "$root/conformance/go.mod" >"$work/$name.mod"
	cp "$root/conformance/go.sum" "$work/$name.sum"
	echo "$work/$name.mod"
}

for side in old new; do
	rev="$old"
	[[ "$side" == new ]] && rev="$new"
	mod="$(prep "$rev" "$side")"
	echo "== $side: ${rev:-working tree}" >&2
	(cd "$root/conformance" && go test -tags benchcompare -modfile="$mod" -c -o "$work/$side.test" ./bench/)
	if [[ "$go127" == 1 ]]; then
		(cd "$root/conformance" && GOTOOLCHAIN="${GO127_TOOLCHAIN:-go1.27.3}" go test -tags benchcompare -modfile="$mod" -c -o "$work/$side.127.test" ./bench/)
	fi
	: >"$work/$side.txt"
done

# sample side: one round of side's binary, appended to its output.
sample() {
	local side="$1"
	(cd "$here" && "$work/$side.test" -test.run '^$' -test.bench "$filter" -test.benchtime "$btime" \
		-test.count 1 -test.timeout 60m) >>"$work/$side.txt" 2>&1
	if [[ "$go127" == 1 ]]; then
		(cd "$here" && "$work/$side.127.test" -test.run '^$' -test.bench "$filter127" -test.benchtime "$btime" \
			-test.count 1 -test.timeout 60m 2>&1) | sed -E 's#^Benchmark#BenchmarkGo127/#' >>"$work/$side.txt"
	fi
}

for ((round = 1; round <= count; round++)); do
	echo "round $round of $count" >&2
	if ((round % 2)); then
		sample old
		sample new
	else
		sample new
		sample old
	fi
done

"$benchstat" -filter '.unit:(ns/row OR cpu-ns/row OR allocs/row)' "$work/old.txt" "$work/new.txt" | tee "$work/benchstat.txt"
echo
echo "Rows that moved beyond their noise (p < 0.05; '~' rows omitted):"
awk '/^[A-Za-z]/ && !/^geomean/ && $0 !~ /~/ && $0 ~ /[+-][0-9.]+%/' "$work/benchstat.txt" || true
echo "(raw outputs in $work)"
