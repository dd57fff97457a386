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
#   BENCH_PROFILE=0    do not profile the arms of missed targets (by default each is run again alone
#                      with -cpuprofile for BENCH_PROFILE_TIME, default 3s, and `go tool pprof -top`
#                      of it is kept in results/profiles/ and embedded in BENCHMARKS.md)
#   GO127=0            skip the Go 1.27 pass (the database/sql row arms of ReadU64, ReadUSF and ReadMixed on the
#                      fake server, run again with GOTOOLCHAIN=$GO127_TOOLCHAIN, default go1.27.3, where
#                      database/sql uses RowsColumnScanner); also skipped when BENCH_FILTER is set
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

if [[ "${GO127:-1}" != "0" && -z "${BENCH_FILTER:-}" ]]; then
	tc="${GO127_TOOLCHAIN:-go1.27.3}"
	filter127='^BenchmarkRead(U64|USF|Mixed)$/^fake$/^(chnative-rows|clickhouse-go-sql|noop)$'
	echo "GOTOOLCHAIN=$tc go test ${modflag[*]} -run '^\$' -bench '$filter127' -benchtime $btime -count $count ./bench/ (names prefixed Go127/)" >&2
	{
		echo "goversion127: $(GOTOOLCHAIN="$tc" go version | awk '{print $3, $4}')"
		# Benchmark names get the prefix Go127/: the report shows them as their own section.
		GOTOOLCHAIN="$tc" go test "${modflag[@]}" -run '^$' -bench "$filter127" \
			-benchtime "$btime" -count "$count" -timeout 60m ./bench/ 2>&1 | sed -E 's#^Benchmark#BenchmarkGo127/#'
	} | tee -a "$out"
fi

profargs=()
if [[ "${BENCH_NO_REPORT:-}" != "1" && "${BENCH_PROFILE:-1}" != "0" ]]; then
	# Profile the arms of this run's missed targets (and the floors bounding them), on this build.
	profdir="$here/results/profiles"
	rm -rf "$profdir"
	mkdir -p "$profdir"
	go run ./bench/cmd/report -in "$out" -missed >"$profdir/jobs"
	if [[ -s "$profdir/jobs" ]]; then
		tc127="${GO127_TOOLCHAIN:-go1.27.3}"
		bin="$(mktemp -d)"
		trap 'rm -rf "$bin"' EXIT
		go test "${modflag[@]}" -c -o "$bin/go.test" ./bench/
		if grep -q '^go127 ' "$profdir/jobs"; then
			GOTOOLCHAIN="$tc127" go test "${modflag[@]}" -c -o "$bin/go127.test" ./bench/
		fi
		while read -r tc filter name; do
			echo "profiling $name ($tc)" >&2
			(cd "$here" && "$bin/$tc.test" -test.run '^$' -test.bench "$filter" -test.count 1 \
				-test.benchtime "${BENCH_PROFILE_TIME:-3s}" -test.cpuprofile "$bin/$name.prof") >"$bin/$name.bench" 2>&1 ||
				{ cat "$bin/$name.bench" >&2; exit 1; }
			{
				grep -E '^Benchmark' "$bin/$name.bench" || true
				go tool pprof -top "$bin/$tc.test" "$bin/$name.prof" 2>/dev/null
			} >"$profdir/$name.txt"
		done <"$profdir/jobs"
	fi
	profargs=(-profiles "$profdir")
fi

if [[ "${BENCH_NO_REPORT:-}" != "1" ]]; then
	quick=""
	[[ "${BENCH_QUICK:-}" == "1" ]] && quick="BENCH_QUICK=1 "
	go run ./bench/cmd/report -in "$out" -out "$root/BENCHMARKS.md" -svg "$root/benchmarks.svg" \
		-server "$server" -cmd "${quick}make bench" -findings bench/FINDINGS.md "${profargs[@]}"
	echo "wrote $root/BENCHMARKS.md and $root/benchmarks.svg" >&2
fi
