# Benchmarks (see conformance/bench). Targets:
#   make bench                        full suite -> BENCHMARKS.md, benchmarks.svg (BENCH_QUICK=1: short)
#   make bench-compare OLD=rev [NEW=rev]   benchstat of two chnative revisions (NEW: working tree)
.PHONY: bench bench-compare

bench:
	conformance/bench/run.sh

bench-compare:
	@test -n "$(OLD)" || { echo "usage: make bench-compare OLD=rev [NEW=rev]"; exit 2; }
	conformance/bench/compare.sh "$(OLD)" "$(NEW)"
