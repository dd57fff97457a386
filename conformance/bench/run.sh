#!/usr/bin/env bash
# Runs the benchmark suite and writes BENCHMARKS.md and benchmarks.svg at the repository root.
# Self-contained: starts the local ClickHouse test server when CHNATIVE_DSN is unset.
#
#   BENCH_QUICK=1      short run (rows / 10, 2 samples, 50ms per sample)
#   BENCH_COUNT=N      samples per benchmark (default 5)
#   BENCH_TIME=D       -benchtime per sample (default 200ms)
#   BENCH_FILTER=RE    -bench regexp (default .)
#   BENCH_NO_REAL=1    skip the real server
#   BENCH_MODFILE=F    build with -modfile F (bench-compare uses it)
#   BENCH_OUT=F        raw go test output (default conformance/bench/results/latest.txt)
#   BENCH_NO_REPORT=1  do not write BENCHMARKS.md
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root/conformance"

count="${BENCH_COUNT:-5}"
btime="${BENCH_TIME:-200ms}"
if [[ "${BENCH_QUICK:-}" == "1" ]]; then
	count="${BENCH_COUNT:-2}"
	btime="${BENCH_TIME:-50ms}"
fi
out="${BENCH_OUT:-$here/results/latest.txt}"
mkdir -p "$(dirname "$out")"

if [[ -z "${CHNATIVE_DSN:-}" && "${BENCH_NO_REAL:-}" != "1" ]]; then
	"$root/scripts/clickhouse.sh" start >/dev/null
	eval "$("$root/scripts/clickhouse.sh" env)"
fi
server="—"
if [[ -n "${CHNATIVE_DSN:-}" && "${BENCH_NO_REAL:-}" != "1" ]]; then
	server="$(clickhouse-client --port "${CHNATIVE_TCP_PORT:-9000}" -q 'SELECT version()' 2>/dev/null || echo unknown)"
fi

modflag=()
if [[ -n "${BENCH_MODFILE:-}" ]]; then
	modflag=(-modfile="$BENCH_MODFILE")
fi

cmd="go test ${modflag[*]} -run '^TestPeakHeap\$' -bench '${BENCH_FILTER:-.}' -benchtime $btime -count $count -timeout 60m ./bench/"
echo "$cmd" >&2
{
	echo "goversion: $(go version | awk '{print $3, $4}')"
	echo "samples: -count $count, -benchtime $btime per sample, BENCH_QUICK=${BENCH_QUICK:-0}"
	BENCH_HEAP=1 go test "${modflag[@]}" -run '^TestPeakHeap$' -v -bench "${BENCH_FILTER:-.}" \
		-benchtime "$btime" -count "$count" -timeout 60m ./bench/ 2>&1
} | tee "$out"

if [[ "${BENCH_NO_REPORT:-}" != "1" ]]; then
	quick=""
	[[ "${BENCH_QUICK:-}" == "1" ]] && quick="BENCH_QUICK=1 "
	go run ./bench/cmd/report -in "$out" -out "$root/BENCHMARKS.md" -svg "$root/benchmarks.svg" \
		-server "$server" -cmd "${quick}make bench"
	echo "wrote $root/BENCHMARKS.md and $root/benchmarks.svg" >&2
fi
