#!/usr/bin/env bash
# scripts/test.sh — the one command that runs all checks and tests.
#
#   scripts/test.sh            (GO127=0 skips the Go 1.27 pass)
#
# 1. starts the ClickHouse test server (scripts/clickhouse.sh start) and
#    exports CHNATIVE_DSN, CHNATIVE_AUTH_DSN, CHNATIVE_HTTP_URL;
# 2. fetches chDB when scripts/chdb.sh exists and exports CHNATIVE_CHDB_LIB;
# 3. gofmt -l (fails on any output), go vet ./..., go test -race -count=1 ./...
#    in the root module, then the same in conformance/ if conformance/go.mod
#    exists;
# 4. unless GO127=0: vet and test the root module again with GOTOOLCHAIN=go1.27.3.
#
# If this script started the server, it stops it on exit, unless
# CHNATIVE_KEEP_SERVER=1. A server that was already running is left alone.
# Extra `go test` flags can be given in GOTEST_FLAGS (e.g. GOTEST_FLAGS=-v).
# Exits non-zero on any failure.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

GO127="${GO127:-1}"
for arg in "$@"; do
	case "$arg" in
	--go127) GO127=1 ;;
	-h | --help)
		sed -n '2,17p' "$0"
		exit 0
		;;
	*)
		echo "test.sh: unknown argument: $arg" >&2
		exit 2
		;;
	esac
done

step() { printf '\n==> %s\n' "$*"; }

if ! command -v go >/dev/null 2>&1 && [[ -x /usr/local/go/bin/go ]]; then
	export PATH="/usr/local/go/bin:$PATH"
fi
command -v go >/dev/null 2>&1 || {
	echo "test.sh: go not found" >&2
	exit 1
}

# ---------------------------------------------------------------- server
step "ClickHouse test server"
started_server=0
if ! scripts/clickhouse.sh status 2>/dev/null; then
	started_server=1
fi
cleanup() {
	if [[ "$started_server" == 1 && "${CHNATIVE_KEEP_SERVER:-0}" != 1 ]]; then
		scripts/clickhouse.sh stop || true
	fi
}
trap cleanup EXIT
CHNATIVE_DSN="$(scripts/clickhouse.sh start)"
eval "$(scripts/clickhouse.sh env)"
export CHNATIVE_DSN CHNATIVE_AUTH_DSN CHNATIVE_HTTP_URL
echo "CHNATIVE_DSN=$CHNATIVE_DSN"

# ---------------------------------------------------------------- chDB
# >>> chDB fetch (scripts/chdb.sh, written separately) >>>
# scripts/chdb.sh prints the path of the chDB shared library as the last line
# of its stdout (logs on stderr) and exits non-zero on failure, which fails
# this script. Tests get it through internal/testenv.ChDBLib.
if [[ -f scripts/chdb.sh ]]; then
	step "chDB"
	chdb_out="$(bash scripts/chdb.sh)"
	CHNATIVE_CHDB_LIB="$(printf '%s\n' "$chdb_out" | tail -n 1)"
	if [[ -z "$CHNATIVE_CHDB_LIB" || ! -e "$CHNATIVE_CHDB_LIB" ]]; then
		echo "test.sh: scripts/chdb.sh printed '$CHNATIVE_CHDB_LIB', which does not exist" >&2
		exit 1
	fi
	export CHNATIVE_CHDB_LIB
	echo "CHNATIVE_CHDB_LIB=$CHNATIVE_CHDB_LIB"
fi
# <<< chDB fetch <<<

# ---------------------------------------------------------------- checks
step "gofmt -l"
unformatted="$(find . -name '*.go' -not -path './.git/*' -not -path '*/testdata/*' -not -path '*/vendor/*' -print0 |
	xargs -0 -r gofmt -l)"
if [[ -n "$unformatted" ]]; then
	echo "gofmt: these files need formatting (run gofmt -w):" >&2
	echo "$unformatted" >&2
	exit 1
fi

# Modules to check: the root one, and conformance/ if it is a module.
modules=(.)
[[ -f conformance/go.mod ]] && modules+=(conformance)

# gotest runs `go test "$@"`. In CI it adds -v and fails when any test was skipped: a test
# that needs the server or chDB must run there (skips list the test and its reason).
gotest() {
	if [[ "${CI:-}" != "true" && "${CI:-}" != "1" ]]; then
		go test "$@"
		return
	fi
	local log rc=0
	log="$(mktemp)"
	go test -v "$@" >"$log" 2>&1 || rc=$?
	grep -v -E '^(=== (RUN|PAUSE|CONT|NAME)|--- PASS|    --- PASS)' "$log" || true
	if grep -E -- '--- SKIP' "$log" >/dev/null; then
		echo "test.sh: tests were skipped in CI:" >&2
		grep -E -A2 -- '--- SKIP' "$log" >&2
		rc=1
	fi
	rm -f "$log"
	return "$rc"
}

run_go() {
	# $1: a label for the step headers.
	local label="$1" mod
	for mod in "${modules[@]}"; do
		step "go vet ./... ($mod$label)"
		(cd "$mod" && go vet ./...)
		step "go test -race -count=1 ./... ($mod$label)"
		# shellcheck disable=SC2086
		(cd "$mod" && gotest -race -count=1 -timeout "${GOTEST_TIMEOUT:-30m}" ${GOTEST_FLAGS:-} ./...)
	done
}

go version
run_go ""

# The race detector makes the 1M-row round trip ten times slower, so under -race it runs 100k
# rows; here it runs at full size once more without it.
step "go test -count=1 -run TestRoundTrip1M . (1M rows, no -race)"
go test -count=1 -timeout 20m -run 'TestRoundTrip1M' .

# Every benchmark arm once, on workloads 1000 times smaller (BENCH_SCALE): an arm that errors,
# reads the wrong number of rows or skips fails here, not only under `make bench`. The report
# generator and bench-compare run too, on that output.
bench_smoke() {
	local label="$1" filter="$2" out
	out="$(mktemp)"
	step "benchmark arms once (conformance/bench$label)"
	(cd conformance && BENCH_SCALE=1000 gotest -count=1 -run '^$' -bench "$filter" -benchtime 1x \
		-timeout 20m ./bench/ | tee "$out")
	grep -q '^Benchmark.*ns/row' "$out" || { echo "test.sh: no benchmark results" >&2; exit 1; }
	(cd conformance && go run ./bench/cmd/report -in "$out" -out "$out.md" -svg "$out.svg" -findings bench/FINDINGS.md)
	grep -q '^## Targets' "$out.md" && grep -q '^### ' "$out.md" && grep -q '<svg' "$out.svg" ||
		{ echo "test.sh: the report generator wrote no report from the results" >&2; exit 1; }
	rm -f "$out" "$out.md" "$out.svg"
}
if [[ -f conformance/bench/run.sh ]]; then
	bench_smoke "" .
	step "bench-compare of HEAD and the working tree (one arm, two samples each)"
	cmp_out="$(BENCH_SCALE=1000 BENCH_FILTER='^BenchmarkSelect1$/^fake$/^chnative-sql$' BENCH_COUNT=2 BENCH_TIME=1x BENCH_NO_REAL=1 \
		conformance/bench/compare.sh HEAD)"
	printf '%s\n' "$cmp_out"
	grep -q 'Select1/fake/chnative-sql' <<<"$cmp_out" || { echo "test.sh: bench-compare printed no comparison" >&2; exit 1; }
fi

if [[ "$GO127" == 1 ]]; then
	# Go 1.27's database/sql calls RowsColumnScanner (rows_go127.go) instead of Next: the root
	# module's tests run again on that toolchain (fetched through the Go module proxy).
	export GOTOOLCHAIN=go1.27.3
	go version
	step "go vet ./... (., GOTOOLCHAIN=$GOTOOLCHAIN)"
	go vet ./...
	step "go test -count=1 ./... (., GOTOOLCHAIN=$GOTOOLCHAIN)"
	# shellcheck disable=SC2086
	gotest -count=1 -timeout "${GOTEST_TIMEOUT:-30m}" ${GOTEST_FLAGS:-} ./...
	# The Go 1.27 pass of make bench (read arms; noop's RowsColumnScanner exists only on 1.27).
	[[ -f conformance/bench/run.sh ]] && bench_smoke ", GOTOOLCHAIN=$GOTOOLCHAIN" '^BenchmarkRead'
	unset GOTOOLCHAIN
fi

step "all checks passed"
