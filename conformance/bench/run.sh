#!/usr/bin/env bash
# Runs the benchmark suite and writes BENCHMARKS.md and benchmarks.svg at the repository root.
# Self-contained: starts the local ClickHouse 18.16 test server when CHNATIVE_DSN is unset, and a
# ClickHouse 26.7 server of its own (scripts/modern.sh) when CHNATIVE_MODERN_DSN is unset (see
# settings.sh; it is stopped again at the end).
#
#   BENCH_QUICK=1      short run (rows / 10, 2 samples, 50ms per sample)
#   BENCH_COUNT=N      rounds of the suite, i.e. samples per benchmark (default 5)
#   BENCH_TIME=D       -benchtime per sample (default 200ms)
#   BENCH_FILTER=RE    -bench regexp (default .)
#   BENCH_NO_REAL=1    skip the real servers (18.16 and 26.7)
#   BENCH_NO_MODERN=1  skip the 26.7 server
#   BENCH_MODERN_STATE_DIR=D  state dir of the 26.7 server started here (default /tmp/chnative-modern-bench)
#   BENCH_MODFILE=F    build with -modfile F (bench-compare uses it)
#   BENCH_CHNATIVE_DSN=K  DSN keys added to every chnative arm's DSN (block_keep_bytes=1073741824, say:
#                      bench-compare then measures a revision as if it kept its blocks, as one before
#                      that key did)
#   BENCH_OUT=F        raw go test output (default conformance/bench/results/latest.txt); it starts
#                      with header lines (revision, date, command, load, server versions) that the
#                      report shows
#   BENCH_NO_REPORT=1  do not write BENCHMARKS.md
#   BENCH_REPORT_ONLY=1  measure and profile nothing: rewrite BENCHMARKS.md from BENCH_OUT's results
#                      and the profiles kept in results/profiles/
#   BENCH_MODERN_IN=F  take BENCHMARKS.md's ClickHouse 26.7 section from F, a separate run of the 26.7
#                      arms alone (make bench-modern), labelled there with F's own header lines
#   BENCH_PROFILE=0    do not profile the arms of missed targets (by default each is run again alone
#                      with -cpuprofile for BENCH_PROFILE_TIME, default 3s, and `go tool pprof -top`
#                      of it is kept in results/profiles/ and embedded in BENCHMARKS.md)
#   (note)             results/note.md, when present, is shown under BENCHMARKS.md's header: what a reader
#                      must know about the kept results (a measured arm's code changed since); a run
#                      that measures with the default BENCH_OUT removes it
#   BENCH_PROFILE_ONLY=1  measure nothing: profile the missed targets of BENCH_OUT's existing results
#                      again and rewrite BENCHMARKS.md (the code must be the one that was measured)
#   (memory)           with a 26.7 server and no BENCH_FILTER, conformance/memory's idle and peak heap
#                      tables go to results/memory.txt and BENCHMARKS.md's Memory section
#   BENCH_CODECS=0     skip the codec candidates (conformance/codecs: every LZ4 and ZSTD decoder and
#                      encoder measured on ClickHouse 26.7's own frames, BENCH_COUNT samples of
#                      BENCH_TIME each, into results/codecs.txt; also skipped when BENCH_FILTER is set)
#   BENCH_INSERTER=0   skip the inserter step (with a 26.7 server and no BENCH_FILTER, BenchmarkInserter and
#                      BenchmarkInserterAsyncLatency run once per round, -benchtime 1x, 16 goroutines x 1M events
#                      an op (BENCH_INSERTER_ROWS per goroutine), into results/inserter.txt: the Ingestion section)
#   BENCH_ARROW=0      skip the Arrow step (with a 26.7 server and no BENCH_FILTER, chnarrow's BenchmarkArrowQuery
#                      and BenchmarkArrowInsert, -benchtime 1x -count BENCH_COUNT, BENCH_ARROW_ROWS rows (default
#                      10M), into results/arrow.txt: the Arrow section)
#   BENCH_QBIT=0       skip the QBit kernels step (no BENCH_FILTER: go test -bench . -count BENCH_COUNT ./qbit
#                      into results/qbit.txt: the QBit kernels section)
#   GO127=0            skip the Go 1.27 pass (the database/sql row arms of ReadU64, ReadUSF and ReadMixed on the
#                      fake server, run again with GOTOOLCHAIN=$GO127_TOOLCHAIN, default go1.27.3, where
#                      database/sql uses RowsColumnScanner); also skipped when BENCH_FILTER is set
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
# The command line, as the results' header records it (the settings that shape a run).
command=""
for v in BENCH_QUICK BENCH_SCALE BENCH_COUNT BENCH_TIME BENCH_FILTER BENCH_NO_REAL BENCH_NO_MODERN BENCH_MODFILE GO127; do
	if [[ -n "${!v:-}" ]]; then
		val="${!v}"
		if [[ ! "$val" =~ ^[A-Za-z0-9_./:=,-]*$ ]]; then
			val="'${val//\'/\'\\\'\'}'"
		fi
		command+="$v=$val "
	fi
done
command+="conformance/bench/run.sh"
out="$(realpath -m "${BENCH_OUT:-$here/results/latest.txt}")"
modern_in=""
if [[ -n "${BENCH_MODERN_IN:-}" ]]; then
	modern_in="$(realpath -e "$BENCH_MODERN_IN")"
fi
cd "$root/conformance"

count="${BENCH_COUNT:-5}"
if [[ "${BENCH_QUICK:-}" == "1" ]]; then
	count="${BENCH_COUNT:-2}"
fi
# shellcheck source=settings.sh
source "$here/settings.sh"
bin="$(mktemp -d)"
trap 'bench_stop_modern; rm -rf "$bin"' EXIT
mkdir -p "$(dirname "$out")"
bench_versions
measure=1 profile=1
if [[ "${BENCH_PROFILE_ONLY:-}" == "1" ]]; then
	measure=0
fi
if [[ "${BENCH_REPORT_ONLY:-}" == "1" || "${BENCH_NO_REPORT:-}" == "1" || "${BENCH_PROFILE:-1}" == "0" ]]; then
	profile=0
fi
if [[ "${BENCH_REPORT_ONLY:-}" == "1" ]]; then
	measure=0
fi

modflag=()
if [[ -n "${BENCH_MODFILE:-}" ]]; then
	modflag=(-modfile="$BENCH_MODFILE")
fi

# The suite runs in rounds: each round runs every benchmark once (-count 1), then the Go 1.27
# pass once, so the samples of an arm are spread over the whole run. A burst of load on this shared
# host then spoils one sample of an arm, not all of them, and the fastest sample (which the report
# uses) stays the arm's own cost. Both test binaries are built once, before the first round; the
# profiles below use the same binaries.
tc127="${GO127_TOOLCHAIN:-go1.27.3}"
if [[ "$measure" == 1 || "$profile" == 1 ]]; then
	go test "${modflag[@]}" -c -o "$bin/go.test" ./bench/
	if [[ "$go127" == 1 ]]; then
		GOTOOLCHAIN="$tc127" go test "${modflag[@]}" -c -o "$bin/go127.test" ./bench/
	fi
fi
# revision: the commit measured, and the Go files of the working tree that differ from it.
revision() {
	local rev dirty
	rev="$(git -C "$root" rev-parse --short HEAD)"
	dirty="$(git -C "$root" status --porcelain --untracked-files=no -- '*.go' 'go.mod' 'go.sum' | awk '{print $NF}' | paste -sd, - | sed 's/,/, /g')"
	if [[ -n "$dirty" ]]; then
		rev+=" with uncommitted changes to $dirty"
	fi
	echo "$rev"
}
load() { cut -d' ' -f1-3 /proc/loadavg; }
note="$here/results/note.md"
if [[ "$measure" == 1 && "$out" == "$(realpath -m "$here/results/latest.txt")" ]]; then
	rm -f "$note" # these results replace those the note was about
fi
if [[ "$measure" == 1 ]]; then
	echo "$count rounds of: go test ${modflag[*]} -bench '$filter' -benchtime $btime -count 1 ./bench/ (TestPeakHeap in the first)" >&2
	if [[ "$go127" == 1 ]]; then
		echo "  then GOTOOLCHAIN=$tc127 go test -bench '$filter127' -benchtime $btime -count 1 ./bench/ (names prefixed Go127/)" >&2
	fi
	{
		echo "revision: $(revision)"
		echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
		echo "command: $command"
		echo "realserver: $real_version"
		echo "modernserver: $modern_version"
		echo "load: $(load)"
		echo "goversion: $(go version | awk '{print $3, $4}')"
		if [[ "$go127" == 1 ]]; then
			echo "goversion127: $(GOTOOLCHAIN="$tc127" go version | awk '{print $3, $4}')"
		fi
		echo "samples: $count rounds of the suite (-count 1 each: an arm's samples are spread over the run), -benchtime $btime per sample, BENCH_QUICK=${BENCH_QUICK:-0}"
		for ((round = 1; round <= count; round++)); do
			echo "round $round of $count" >&2
			heap=(-test.run '^$')
			if [[ "$round" == 1 ]]; then
				heap=(-test.run '^TestPeakHeap$' -test.v)
			fi
			(cd "$here" && BENCH_HEAP=1 "$bin/go.test" "${heap[@]}" -test.bench "$filter" \
				-test.benchtime "$btime" -test.count 1 -test.timeout 60m 2>&1)
			if [[ "$go127" == 1 ]]; then
				# Benchmark names get the prefix Go127/: the report shows them as their own section.
				(cd "$here" && "$bin/go127.test" -test.run '^$' -test.bench "$filter127" \
					-test.benchtime "$btime" -test.count 1 -test.timeout 60m 2>&1) | sed -E 's#^Benchmark#BenchmarkGo127/#'
			fi
		done
		echo "load: $(load)"
	} | tee "$out"
	if [[ "${BENCH_CODECS:-1}" != 0 && -z "${BENCH_FILTER:-}" ]]; then
		echo "codec candidates: go test -bench . -benchtime $btime -count $count ./codecs/ > results/codecs.txt" >&2
		{
			echo "revision: $(revision)"
			echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
			echo "load: $(load)"
			go test "${modflag[@]}" -run '^$' -bench . -benchtime "$btime" -count "$count" ./codecs/
			echo "load: $(load)"
		} >"$here/results/codecs.txt"
	fi
	if [[ "${BENCH_INSERTER:-1}" != 0 && -n "${CHNATIVE_MODERN_DSN:-}" && "${BENCH_NO_REAL:-}" != "1" &&
		"${BENCH_NO_MODERN:-}" != "1" && -z "${BENCH_FILTER:-}" ]]; then
		echo "inserter: BENCH_INSERTER=1 go test -bench '^BenchmarkInserter' -benchtime 1x -count $count ./bench/ > results/inserter.txt" >&2
		{
			echo "revision: $(revision)"
			echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
			echo "load: $(load)"
			(cd "$here" && BENCH_INSERTER=1 "$bin/go.test" -test.run '^$' -test.bench '^BenchmarkInserter' \
				-test.benchtime 1x -test.count "$count" -test.timeout 60m 2>&1)
			echo "load: $(load)"
		} >"$here/results/inserter.txt" || echo "inserter: failed, see results/inserter.txt" >&2
	fi
	if [[ "${BENCH_QBIT:-1}" != 0 && -z "${BENCH_FILTER:-}" ]]; then
		echo "qbit kernels: go test -bench . -count $count ./qbit > results/qbit.txt" >&2
		{
			echo "revision: $(revision)"
			echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
			echo "load: $(load)"
			(cd "$root" && go test -run '^$' -bench . -count "$count" ./qbit 2>&1)
			echo "load: $(load)"
		} >"$here/results/qbit.txt" || echo "qbit kernels: failed, see results/qbit.txt" >&2
	fi
	if [[ "${BENCH_ARROW:-1}" != 0 && -n "${CHNATIVE_MODERN_DSN:-}" && "${BENCH_NO_REAL:-}" != "1" &&
		"${BENCH_NO_MODERN:-}" != "1" && -z "${BENCH_FILTER:-}" && -f "$root/chnarrow/go.mod" ]]; then
		echo "arrow: (cd chnarrow && BENCH_ROWS=${BENCH_ARROW_ROWS:-10000000} go test -bench '^BenchmarkArrow' -benchtime 1x -count $count) > results/arrow.txt" >&2
		{
			echo "revision: $(revision)"
			echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
			echo "load: $(load)"
			(cd "$root/chnarrow" && BENCH_ROWS="${BENCH_ARROW_ROWS:-10000000}" go test -run '^$' -bench '^BenchmarkArrow' \
				-benchtime 1x -count "$count" -timeout 60m . 2>&1)
			echo "load: $(load)"
		} >"$here/results/arrow.txt" || echo "arrow: failed, see results/arrow.txt" >&2
	fi
	if [[ -n "${CHNATIVE_MODERN_DSN:-}" && "${BENCH_NO_REAL:-}" != "1" && "${BENCH_NO_MODERN:-}" != "1" && -z "${BENCH_FILTER:-}" ]]; then
		# Memory beside time: the heap an idle connection keeps and the peak heap per tier, for
		# the three clients on the 26.7 server (conformance/memory).
		echo "memory: CHNATIVE_DSN=\$CHNATIVE_MODERN_DSN go test -run 'TestIdleMemory|TestPeakHeap' -v ./memory/ > results/memory.txt" >&2
		{
			echo "revision: $(revision)"
			echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
			echo "load: $(load)"
			CHNATIVE_DSN="$CHNATIVE_MODERN_DSN" go test "${modflag[@]}" -count 1 -run 'TestIdleMemory|TestPeakHeap' -v ./memory/ 2>&1
		} >"$here/results/memory.txt" || echo "memory: failed, see results/memory.txt" >&2
	fi
fi

profargs=()
profdir="$here/results/profiles"
if [[ "$profile" == 1 ]]; then
	# Profile the arms of this run's missed targets (and the floors bounding them), on this build.
	rm -rf "$profdir"
	mkdir -p "$profdir"
	go run ./bench/cmd/report -in "$out" -missed >"$profdir/jobs"
	if [[ -s "$profdir/jobs" ]]; then
		while read -r tc jobfilter name; do
			echo "profiling $name ($tc)" >&2
			(cd "$here" && "$bin/$tc.test" -test.run '^$' -test.bench "$jobfilter" -test.count 1 \
				-test.benchtime "${BENCH_PROFILE_TIME:-3s}" -test.cpuprofile "$bin/$name.prof") >"$bin/$name.bench" 2>&1 ||
				{ cat "$bin/$name.bench" >&2; exit 1; }
			{
				grep -E '^Benchmark' "$bin/$name.bench" || true
				echo "pprof -tagignore=bench=warmup: the arm's warm-up op (measure's first, labelled bench=warmup) is left out"
				go tool pprof -top -nodecount=30 -tagignore=bench=warmup "$bin/$tc.test" "$bin/$name.prof" 2>/dev/null
				echo
				echo "By cumulative time:"
				go tool pprof -top -cum -nodecount=30 -tagignore=bench=warmup "$bin/$tc.test" "$bin/$name.prof" 2>/dev/null | sed -n '/flat%/,$p'
			} >"$profdir/$name.txt"
		done <"$profdir/jobs"
	fi
	profargs=(-profiles "$profdir")
elif [[ "${BENCH_REPORT_ONLY:-}" == "1" && -d "$profdir" ]]; then
	profargs=(-profiles "$profdir")
fi

if [[ "${BENCH_NO_REPORT:-}" != "1" ]]; then
	quick=""
	[[ "${BENCH_QUICK:-}" == "1" ]] && quick="BENCH_QUICK=1 "
	modernargs=()
	if [[ -s "$here/results/memory.txt" ]]; then
		modernargs+=(-memory "$here/results/memory.txt")
	fi
	if [[ -s "$here/results/inserter.txt" ]]; then
		modernargs+=(-inserter "$here/results/inserter.txt")
	fi
	if [[ -s "$here/results/qbit.txt" ]]; then
		modernargs+=(-qbit "$here/results/qbit.txt")
	fi
	if [[ -s "$here/results/arrow.txt" ]]; then
		modernargs+=(-arrow "$here/results/arrow.txt")
	fi
	if [[ -n "$modern_in" ]]; then
		modernargs+=(-modern-in "$modern_in" -modern-name "${modern_in#"$root"/}")
	fi
	if [[ -s "$note" ]]; then
		modernargs+=(-note "$note")
	fi
	go run ./bench/cmd/report -in "$out" -out "$root/BENCHMARKS.md" -svg "$root/benchmarks.svg" \
		-server "$real_version" -modern-server "$modern_version" -cmd "${quick}make bench" -findings bench/FINDINGS.md \
		"${profargs[@]}" "${modernargs[@]}"
	echo "wrote $root/BENCHMARKS.md and $root/benchmarks.svg" >&2
fi
