# Benchmarks (see conformance/bench). Targets:
#   make bench                        full suite -> BENCHMARKS.md, benchmarks.svg (BENCH_QUICK=1: short)
#   make bench-compare OLD=rev [NEW=rev]   benchstat of two chnative revisions (NEW: working tree)
#   make bench-modern                 only the ClickHouse 26.7 arms (BENCH_COUNT rounds, default 3) into
#                                     conformance/bench/results/modern.txt; BENCHMARKS.md is rewritten from
#                                     the kept full run (results/latest.txt) with its 26.7 section from this one
.PHONY: bench bench-compare bench-modern

bench:
	conformance/bench/run.sh

bench-modern:
	BENCH_FILTER='^Benchmark(ReadU64|ReadNumbers|ReadUSF|ReadCompression|Insert|InsertCompression)$$/^modern$$' BENCH_COUNT="$${BENCH_COUNT:-3}" \
		BENCH_OUT=conformance/bench/results/modern.txt BENCH_NO_REPORT=1 conformance/bench/run.sh
	BENCH_REPORT_ONLY=1 BENCH_MODERN_IN=conformance/bench/results/modern.txt conformance/bench/run.sh

bench-compare:
	@test -n "$(OLD)" || { echo "usage: make bench-compare OLD=rev [NEW=rev]"; exit 2; }
	conformance/bench/compare.sh "$(OLD)" "$(NEW)"
