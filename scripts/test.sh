#!/usr/bin/env bash
# scripts/test.sh — the one command that runs all checks and tests.
#
#   scripts/test.sh            (GO127=0 skips the Go 1.27 pass)
#
# 1. fetches chDB when scripts/chdb.sh exists and exports CHNATIVE_CHDB_LIB;
# 2. starts both test servers: ClickHouse 18.16 (scripts/clickhouse.sh start) and
#    ClickHouse 26.7 (scripts/modern.sh start), and exports CHNATIVE_MODERN_* (the 26.7
#    server's DSNs, HTTP URL and TLS files) for every pass; then the test cluster
#    (scripts/cluster.sh start: ZooKeeper, 4 replicas of 18.16, 2 shards of 26.7) and its
#    CHNATIVE_CLUSTER_*; a server that cannot be started fails the run;
# 3. installs liblz4-dev when it is missing (conformance/codecs' cgo candidate needs it);
#    gofmt -l (fails on any output), go vet ./... in the root module and in conformance/;
#    the go:generate drift check (scripts/gencheck.sh: qbit/kernels_gen.go is what its
#    generator writes); then the hostile-server suite (./hostile/) in the default, purego and
#    race builds;
# 4. the server-independent packages of the root module (SERVERLESS below: columns, dsn,
#    nativeproto, qbit, internal/wire, ...) once under -race, with no server variable set (a
#    test there that wants a server fails the step);
# 5. the real-server passes, once per server, with CHNATIVE_DSN, CHNATIVE_AUTH_DSN,
#    CHNATIVE_HTTP_URL, CHNATIVE_SECURE_PORT and CHNATIVE_TLS_CA naming that server (26.7 has
#    no TLS port: its tests put a TLS front before it, internal/testenv.SecureAddr):
#    go test -race -count=1 of the root module's other packages (examples/ included) and of
#    conformance/ (on 26.7 without conformance/types and conformance/bench, which compare the
#    two servers themselves through CHNATIVE_DSN=18.16 and CHNATIVE_MODERN_DSN in the 18.16
#    pass), and TestRoundTrip1M without -race; then conformance/cluster, the cluster's fault
#    tests;
# 6. the purego pass: go vet and go test of the whole root module with -tags purego (the safe
#    twins of every *_unsafe.go file), against 18.16;
# 7. the benchmark smoke run, bench-compare, and the codec candidates (conformance/codecs) once;
# 8. unless GO127=0: vet the root module again with GOTOOLCHAIN=go1.27.3, test its
#    server-independent packages once and its other packages against each server,
#    conformance/chgo (the comparison with clickhouse-go) once, and the Go 1.27 benchmark arms.
# So every package runs once per build flavour (default -race, purego, Go 1.27), and the
# packages that need a server once per server in the -race and Go 1.27 flavours.
#
# It stops on exit each server it started, unless CHNATIVE_KEEP_SERVER=1. A server that was
# already running is left alone (scripts/modern.sh's state dir is CHNATIVE_MODERN_STATE_DIR,
# default /tmp/chnative-modern). Extra `go test` flags can be given in GOTEST_FLAGS (e.g.
# GOTEST_FLAGS=-v). Server start, gofmt and vet stop the run at once; a failing test step is
# recorded and the run goes on with the next, so one run shows every failing pass. At the end
# it prints each step's time and the failed steps, and exits non-zero on any failure.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

GO127="${GO127:-1}"
for arg in "$@"; do
	case "$arg" in
	--go127) GO127=1 ;;
	-h | --help)
		sed -n '2,36p' "$0"
		exit 0
		;;
	*)
		echo "test.sh: unknown argument: $arg" >&2
		exit 2
		;;
	esac
done

# step prints a header; the previous step's duration goes before it (and at the end, see timing).
step_name="" step_start=$SECONDS run_start=$SECONDS
timings=()
end_step() {
	if [[ -n "$step_name" ]]; then
		timings+=("$(printf '%5ds  %s' $((SECONDS - step_start)) "$step_name")")
	fi
}
step() {
	end_step
	step_name="$*" step_start=$SECONDS
	printf '\n==> %s\n' "$*"
}

if ! command -v go >/dev/null 2>&1 && [[ -x /usr/local/go/bin/go ]]; then
	export PATH="/usr/local/go/bin:$PATH"
fi
command -v go >/dev/null 2>&1 || {
	echo "test.sh: go not found" >&2
	exit 1
}

# ---------------------------------------------------------------- chDB
# >>> chDB fetch (scripts/chdb.sh, written separately) >>>
# scripts/chdb.sh prints the path of the chDB shared library as the last line
# of its stdout (logs on stderr) and exits non-zero on failure, which fails
# this script. Tests get it through internal/testenv.ChDBLib; scripts/modern.sh
# runs it as the 26.7 server.
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

# ---------------------------------------------------------------- servers
started_legacy=0 started_modern=0 started_cluster=0
cleanup() {
	rm -f "${fail_digest:-}"
	if [[ "${CHNATIVE_KEEP_SERVER:-0}" != 1 ]]; then
		if [[ "$started_cluster" == 1 ]]; then scripts/cluster.sh stop || true; fi
		if [[ "$started_modern" == 1 ]]; then scripts/modern.sh stop || true; fi
		if [[ "$started_legacy" == 1 ]]; then scripts/clickhouse.sh stop || true; fi
	fi
}
trap cleanup EXIT

step "ClickHouse 18.16 test server (scripts/clickhouse.sh)"
running=1
scripts/clickhouse.sh status 2>/dev/null || running=0
scripts/clickhouse.sh start >/dev/null || {
	echo "test.sh: could not start the ClickHouse 18.16 test server (scripts/clickhouse.sh start)" >&2
	exit 1
}
[[ "$running" == 1 ]] || started_legacy=1
eval "$(scripts/clickhouse.sh env)"
export CHNATIVE_RO_DSN # 18.16's read-only user, in every pass (as CHNATIVE_MODERN_RO_DSN is 26.7's)
legacy_env=(
	"CHNATIVE_DSN=$CHNATIVE_DSN" "CHNATIVE_AUTH_DSN=$CHNATIVE_AUTH_DSN" "CHNATIVE_HTTP_URL=$CHNATIVE_HTTP_URL"
	"CHNATIVE_TCP_PORT=$CHNATIVE_TCP_PORT" "CHNATIVE_HTTP_PORT=$CHNATIVE_HTTP_PORT"
	"CHNATIVE_SECURE_PORT=${CHNATIVE_SECURE_PORT:-}" "CHNATIVE_TLS_CA=${CHNATIVE_TLS_CA:-}"
)
echo "18.16: $CHNATIVE_DSN"

step "ClickHouse 26.7 test server (scripts/modern.sh)"
running=1
scripts/modern.sh status 2>/dev/null || running=0
scripts/modern.sh start >/dev/null || {
	echo "test.sh: could not start the ClickHouse 26.7 test server (scripts/modern.sh start)" >&2
	exit 1
}
[[ "$running" == 1 ]] || started_modern=1
eval "$(scripts/modern.sh env)"
export CHNATIVE_MODERN_DSN CHNATIVE_MODERN_AUTH_DSN CHNATIVE_MODERN_HTTP_URL CHNATIVE_MODERN_TCP_PORT \
	CHNATIVE_MODERN_HTTP_PORT CHNATIVE_MODERN_TLS_CA CHNATIVE_MODERN_TLS_CERT CHNATIVE_MODERN_TLS_KEY \
	CHNATIVE_MODERN_RO_DSN
modern_env=(
	"CHNATIVE_DSN=$CHNATIVE_MODERN_DSN" "CHNATIVE_AUTH_DSN=$CHNATIVE_MODERN_AUTH_DSN"
	"CHNATIVE_HTTP_URL=$CHNATIVE_MODERN_HTTP_URL"
	"CHNATIVE_TCP_PORT=$CHNATIVE_MODERN_TCP_PORT" "CHNATIVE_HTTP_PORT=$CHNATIVE_MODERN_HTTP_PORT"
	"CHNATIVE_SECURE_PORT=" "CHNATIVE_TLS_CA=$CHNATIVE_MODERN_TLS_CA"
)
echo "26.7: $CHNATIVE_MODERN_DSN"

step "ClickHouse cluster: ZooKeeper, 2 shards x 2 replicas of 18.16, 2 shards of 26.7 (scripts/cluster.sh)"
running=1
scripts/cluster.sh status 2>/dev/null || running=0
scripts/cluster.sh start || {
	echo "test.sh: could not start the test cluster (scripts/cluster.sh start)" >&2
	exit 1
}
[[ "$running" == 1 ]] || started_cluster=1
# Exported for every pass (internal/testenv checks it); the fault tests that kill and stall its
# nodes run in their own step, conformance/cluster, below.
eval "$(scripts/cluster.sh env)"
echo "cluster: $CHNATIVE_CLUSTER_HOSTS"

# use_server 18.16|26.7 points CHNATIVE_DSN and the variables beside it at that server.
use_server() {
	local kv
	case "$1" in
	18.16) for kv in "${legacy_env[@]}"; do export "${kv?}"; done ;;
	26.7) for kv in "${modern_env[@]}"; do export "${kv?}"; done ;;
	*)
		echo "test.sh: unknown server $1" >&2
		exit 2
		;;
	esac
	[[ -n "$CHNATIVE_SECURE_PORT" ]] || unset CHNATIVE_SECURE_PORT
	[[ -n "$CHNATIVE_TLS_CA" ]] || unset CHNATIVE_TLS_CA
}
use_server 18.16

# conformance/codecs calls the reference LZ4 library through cgo (its liblz4-cgo candidate).
step "liblz4-dev for conformance/codecs"
if [[ ! -f /usr/include/lz4.h ]]; then
	[[ "$(id -u)" == 0 ]] || {
		echo "test.sh: conformance/codecs needs liblz4-dev, and installing it needs root" >&2
		exit 1
	}
	DEBIAN_FRONTEND=noninteractive apt-get update >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends liblz4-dev >&2
	[[ -f /usr/include/lz4.h ]] || {
		echo "test.sh: no /usr/include/lz4.h after installing liblz4-dev" >&2
		exit 1
	}
fi

# ---------------------------------------------------------------- checks
step "gofmt -l"
unformatted="$(find . -name '*.go' -not -path './.git/*' -not -path '*/testdata/*' -not -path '*/vendor/*' -print0 |
	xargs -0 -r gofmt -l)"
if [[ -n "$unformatted" ]]; then
	echo "gofmt: these files need formatting (run gofmt -w):" >&2
	echo "$unformatted" >&2
	exit 1
fi

# Modules to check: the root one, and conformance/, otelchnative/ and chnarrow/ if they are modules.
modules=(.)
[[ -f conformance/go.mod ]] && modules+=(conformance)
[[ -f otelchnative/go.mod ]] && modules+=(otelchnative)
# chnarrow (Arrow records over chnative; its own module, for its arrow-go dependency): its tests
# use the 26.7 server alone (CHNATIVE_MODERN_*), so they run in the 26.7 pass only.
[[ -f chnarrow/go.mod ]] && modules+=(chnarrow)

# gotest runs `go test "$@"`. In CI it adds -v and fails when any test was skipped: a test
# that needs the server or chDB must run there (skips list the test and its reason). A failed
# run's digest (scripts/lib/fail-digest.awk: each failed test and its last lines) is printed
# again at the end, since a long run's middle is what a truncated log loses.
fail_digest="$(mktemp)"
gotest() {
	if [[ "${CI:-}" != "true" && "${CI:-}" != "1" ]]; then
		go test "$@"
		return
	fi
	local log rc=0
	log="$(mktemp)"
	go test -v "$@" >"$log" 2>&1 || rc=$?
	grep -v -E '^(=== (RUN|PAUSE|CONT|NAME)|--- PASS|    --- PASS)' "$log" || true
	if ((rc != 0)); then
		{
			printf '%s\n' "$step_name:"
			awk -v keep=4 -f "$ROOT/scripts/lib/fail-digest.awk" "$log" | head -n 30
		} >>"$fail_digest"
	fi
	if grep -E -- '--- SKIP' "$log" >/dev/null; then
		echo "test.sh: tests were skipped in CI:" >&2
		grep -E -A2 -- '--- SKIP' "$log" >&2
		rc=1
	fi
	rm -f "$log"
	return "$rc"
}

# SERVERLESS: the root module's packages whose tests need no server (no internal/testenv DSN,
# cluster or chDB; fake servers and in-memory readers only), as paths below the module. They
# run once per build flavour (serverless_test), not once per server; every other package,
# a new one included, runs in the server passes (server_packages). hostile/ is here too: its
# suite has its own steps above, and these passes find CHNATIVE_HOSTILE_STEP=done.
SERVERLESS='columns|dsn|hostile|nativeproto|qbit|internal/(bind|boxing|fieldslice|sqltext|structmap|wire)'

# serverless_packages and server_packages list the root module's packages of each kind.
serverless_packages() {
	local mp
	mp="$(go list -m)"
	go list ./... | grep -E "^${mp}/(${SERVERLESS})\$"
}
server_packages() {
	local mp
	mp="$(go list -m)"
	go list ./... | grep -v -E "^${mp}/(${SERVERLESS})\$"
}

# serverless_test FLAGS...: go test FLAGS of the server-independent packages, with every
# CHNATIVE_* variable that names a server unset: in CI internal/testenv fails a test that asks
# for one, so a package that starts to need a server is caught here, not skipped.
serverless_test() {
	local pkgs
	mapfile -t pkgs < <(serverless_packages)
	((${#pkgs[@]} > 0)) || {
		echo "test.sh: no server-independent package found" >&2
		return 1
	}
	(
		for v in $(compgen -e); do
			if [[ "$v" == CHNATIVE_* && "$v" != CHNATIVE_HOSTILE_STEP ]]; then unset "$v"; fi
		done
		gotest "$@" "${pkgs[@]}"
	)
}

# packages MOD SERVER lists what the real-server pass tests in MOD against SERVER: everything,
# except conformance/cluster (the cluster's fault tests: their own step) and, against 26.7,
# conformance/types and conformance/bench: they compare the two servers themselves (CHNATIVE_DSN
# as 18.16, CHNATIVE_MODERN_DSN as 26.7) and run in the 18.16 pass.
packages() {
	local mod="$1" server="$2"
	if [[ "$mod" == chnarrow ]]; then
		[[ "$server" != 26.7 ]] || (cd "$mod" && go list ./...)
	elif [[ "$mod" == . ]]; then
		server_packages
	elif [[ "$mod" != conformance ]]; then
		(cd "$mod" && go list ./...)
	elif [[ "$server" == 26.7 ]]; then
		(cd "$mod" && go list ./... | grep -v -E '/conformance/(types|bench|cluster)(/|$)')
	else
		(cd "$mod" && go list ./... | grep -v -E '/conformance/cluster(/|$)')
	fi
}

go version
for mod in "${modules[@]}"; do
	step "go vet ./... ($mod)"
	(cd "$mod" && go vet ./...)
done

# Generated files match their generators (qbit/kernels_gen.go): go generate into a copy, diffed.
step "go generate drift check (scripts/gencheck.sh)"
bash scripts/gencheck.sh

# check runs a test step's command, "$@". A failure is recorded under the step's name and the
# run goes on, so that one failing pass does not hide the others; the run then fails at the end,
# listing the failed steps. (Inside check a command's failure does not stop the function, so the
# functions it runs return their failures explicitly.)
failed_steps=()
check() {
	if ! "$@"; then
		failed_steps+=("$step_name")
		echo "test.sh: FAILED: $step_name" >&2
	fi
}

# >>> hostile-server suite (hostile/) >>>
# Every case in its own process under a memory limit (see hostile/doc.go), in the three builds:
# default, purego and race. It needs no server. The later ./... passes find
# CHNATIVE_HOSTILE_STEP=done and do not run the suite again (it would add minutes per pass).
for tags in "" purego race; do
	flags=()
	case "$tags" in
	purego) flags=(-tags purego) ;;
	race) flags=(-race) ;;
	esac
	step "go test ${flags[*]} -count=1 ./hostile/ (hostile-server suite, each case in its own process)"
	check gotest "${flags[@]}" -count=1 -timeout 15m -run '^TestHostile$' ./hostile/
done
export CHNATIVE_HOSTILE_STEP=done
# <<< hostile-server suite <<<

# The server-independent packages, once in the default flavour (-race); the purego and Go 1.27
# flavours below run them once each as well.
step "go test -race -count=1 (server-independent packages: no server variable set)"
# shellcheck disable=SC2086
check serverless_test -race -count=1 -timeout "${GOTEST_TIMEOUT:-30m}" ${GOTEST_FLAGS:-}

# run_go SERVER: the go test -race passes of every module against SERVER, and the 1M-row round
# trip without -race.
run_go() {
	local server="$1" mod pkgs
	use_server "$server"
	for mod in "${modules[@]}"; do
		mapfile -t pkgs < <(packages "$mod" "$server")
		((${#pkgs[@]} > 0)) || continue
		step "go test -race -count=1 ($mod, the packages that need a server, ClickHouse $server: $CHNATIVE_DSN)"
		# shellcheck disable=SC2086
		check in_dir "$mod" gotest -race -count=1 -timeout "${GOTEST_TIMEOUT:-30m}" ${GOTEST_FLAGS:-} "${pkgs[@]}"
	done
	# The race detector makes the 1M-row round trip ten times slower, so under -race it runs
	# 100k rows; here it runs at full size once more without it.
	step "go test -count=1 -run TestRoundTrip1M . (1M rows, no -race, ClickHouse $server)"
	check go test -count=1 -timeout 20m -run 'TestRoundTrip1M' .
}

# in_dir DIR CMD...: runs CMD in DIR.
# arrow_bench_smoke runs chnarrow's benchmarks once on a small result (CI checks they still run;
# make bench measures them at full size).
arrow_bench_smoke() {
	(cd chnarrow && BENCH_ROWS=1000 gotest -count=1 -run '^$' -bench . -benchtime 1x .)
}

in_dir() {
	local dir="$1"
	shift
	(cd "$dir" && "$@")
}

run_go 18.16
run_go 26.7
if [[ " ${modules[*]} " == *" chnarrow "* ]]; then
	# Under -race chload's Parquet load runs 100k rows; here the full 1M once without it.
	step "go test -count=1 -run TestLoadParquet1M ./cmd/chload/ (chnarrow, 1M rows, no -race, ClickHouse 26.7)"
	check in_dir chnarrow go test -count=1 -timeout 20m -run 'TestLoadParquet1M' ./cmd/chload/
fi

# cluster_logs prints the end of each cluster node's error log (18.16) or output (26.7, ZooKeeper).
cluster_logs() {
	local dir="${CHNATIVE_CLUSTER_STATE_DIR:-/tmp/chnative-cluster}" f
	for f in "$dir"/*/log/{clickhouse-server.err,launcher,zookeeper}.log; do
		[[ -s "$f" ]] || continue
		echo "==> the end of $f"
		if [[ "$f" == *.err.log ]]; then # 18.16's: its last errors, without their stack traces
			grep -a -E '<(Fatal|Error)>|Application' "$f" | tail -n 6 | cut -c1-300
		else
			tail -n 10 "$f" | cut -c1-300
		fi
	done
}

# The cluster's fault tests: they kill, stall and restart its nodes under load (bounded in time).
if [[ -d conformance/cluster ]]; then
	step "go test -race -count=1 ./cluster/ (conformance, the test cluster: $CHNATIVE_CLUSTER_HOSTS)"
	failed_before=${#failed_steps[@]}
	# shellcheck disable=SC2086
	check in_dir conformance gotest -race -count=1 -timeout "${GOTEST_TIMEOUT:-30m}" ${GOTEST_FLAGS:-} ./cluster/
	# What each node is left in, and on a failure the end of every node's error log: the cause
	# of a node that died or would not come back is only there.
	# A node left down is brought back, so that the later steps (whose testenv checks the
	# cluster's nodes) do not fail for what this step already reported.
	cluster_status="$(scripts/cluster.sh status 2>&1)" && healthy=1 || healthy=0
	echo "$cluster_status"
	if [[ "$healthy" == 0 || ${#failed_steps[@]} -gt $failed_before ]]; then
		cluster_logs
	fi
	# status prints "cluster.sh: NODE: STATE (...)" for every node.
	for n in $(sed -n '/: healthy (/d; s/^cluster\.sh: \([^:]*\): .*/\1/p' <<<"$cluster_status"); do
		scripts/cluster.sh resume "$n" 2>/dev/null || true
		scripts/cluster.sh restart "$n" || echo "test.sh: could not bring $n back" >&2
	done
fi
use_server 18.16 # the benchmarks' "real" server is CHNATIVE_DSN, 18.16

# The purego build: every file that uses unsafe (*_unsafe.go) has a safe twin under this tag; the
# root module's tests run once more on the twins, against 18.16 (its vet too).
step "go vet -tags purego ./... and go test -tags purego -count=1 ./... (., ClickHouse 18.16)"
check go vet -tags purego ./...
# shellcheck disable=SC2086
check gotest -tags purego -count=1 -timeout "${GOTEST_TIMEOUT:-30m}" ${GOTEST_FLAGS:-} ./...

# Every benchmark arm once, on workloads 1000 times smaller (BENCH_SCALE): an arm that errors,
# reads the wrong number of rows or skips fails here, not only under `make bench`. The report
# generator and bench-compare run too, on that output.
bench_smoke() {
	local filter="$1" out rc=0
	out="$(mktemp)"
	(cd conformance && BENCH_SCALE=1000 BENCH_INSERTER=1 gotest -count=1 -run '^$' -bench "$filter" -benchtime 1x \
		-timeout 20m ./bench/ | tee "$out") || rc=1
	if ! grep -q '^Benchmark.*ns/row' "$out"; then
		echo "test.sh: no benchmark results" >&2
		rc=1
	elif ! (cd conformance && go run ./bench/cmd/report -in "$out" -out "$out.md" -svg "$out.svg" -findings bench/FINDINGS.md) ||
		! grep -q '^## Targets' "$out.md" || ! grep -q '^### ' "$out.md" || ! grep -q '<svg' "$out.svg"; then
		echo "test.sh: the report generator wrote no report from the results" >&2
		rc=1
	fi
	rm -f "$out" "$out.md" "$out.svg"
	return "$rc"
}
bench_compare() {
	local cmp_out
	cmp_out="$(BENCH_SCALE=1000 BENCH_FILTER='^BenchmarkSelect1$/^fake$/^chnative-sql$' BENCH_COUNT=2 BENCH_TIME=1x BENCH_NO_REAL=1 \
		conformance/bench/compare.sh HEAD)" || return 1
	printf '%s\n' "$cmp_out"
	grep -q 'Select1/fake/chnative-sql' <<<"$cmp_out" || {
		echo "test.sh: bench-compare printed no comparison" >&2
		return 1
	}
}
if [[ -f conformance/bench/run.sh ]]; then
	step "benchmark arms once (conformance/bench)"
	check bench_smoke .
	step "bench-compare of HEAD and the working tree (one arm, two samples each)"
	check bench_compare
fi
if [[ -f chnarrow/go.mod ]]; then
	step "Arrow benchmarks once (chnarrow, ClickHouse 26.7, 1000 rows)"
	check arrow_bench_smoke
fi
if [[ -d conformance/codecs ]]; then
	step "codec candidates once (conformance/codecs)"
	check in_dir conformance gotest -count=1 -run '^$' -bench . -benchtime 1x ./codecs/
fi

if [[ "$GO127" == 1 ]]; then
	# Go 1.27's database/sql calls RowsColumnScanner (rows_go127.go) instead of Next: the root
	# module's tests run again on that toolchain (fetched through the Go module proxy), against
	# each server.
	export GOTOOLCHAIN=go1.27.3
	go version
	step "go vet ./... (., GOTOOLCHAIN=$GOTOOLCHAIN)"
	go vet ./...
	step "go test -count=1 (server-independent packages, GOTOOLCHAIN=$GOTOOLCHAIN)"
	# shellcheck disable=SC2086
	check serverless_test -count=1 -timeout "${GOTEST_TIMEOUT:-30m}" ${GOTEST_FLAGS:-}
	for server in 18.16 26.7; do
		use_server "$server"
		mapfile -t pkgs < <(server_packages)
		step "go test -count=1 (., the packages that need a server, GOTOOLCHAIN=$GOTOOLCHAIN, ClickHouse $server: $CHNATIVE_DSN)"
		# shellcheck disable=SC2086
		check gotest -count=1 -timeout "${GOTEST_TIMEOUT:-30m}" ${GOTEST_FLAGS:-} "${pkgs[@]}"
	done
	# conformance/chgo compares with clickhouse-go on 26.7 (CHNATIVE_MODERN_DSN), where Go 1.27's
	# ScanColumn fills more destinations than Next.
	step "go test -count=1 ./chgo/ (conformance, GOTOOLCHAIN=$GOTOOLCHAIN)"
	check in_dir conformance gotest -count=1 ./chgo/
	use_server 18.16
	# The Go 1.27 pass of make bench (read arms; noop's RowsColumnScanner exists only on 1.27).
	if [[ -f conformance/bench/run.sh ]]; then
		step "benchmark arms once (conformance/bench, GOTOOLCHAIN=$GOTOOLCHAIN)"
		check bench_smoke '^BenchmarkRead'
	fi
	unset GOTOOLCHAIN
fi

end_step
printf '\n==> step times\n'
printf '%s\n' "${timings[@]}"
printf '%5ds  total\n' $((SECONDS - run_start))
if ((${#failed_steps[@]} > 0)); then
	if [[ -s "$fail_digest" ]]; then
		printf '\n==> failed tests, with the last lines each logged:\n' >&2
		head -n 60 "$fail_digest" >&2
	fi
	printf '\n==> FAILED steps:\n' >&2
	printf '  %s\n' "${failed_steps[@]}" >&2
	exit 1
fi
printf '\n==> all checks passed\n'
