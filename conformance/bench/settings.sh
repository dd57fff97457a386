# Settings shared by run.sh and compare.sh, which source this file with $root set to the
# repository. From the environment (see run.sh) it sets btime (-benchtime per sample), filter
# (-bench), filter127 (the arms the Go 1.27 pass runs) and go127 (1 when that pass runs), and
# starts the test servers whose DSNs are unset, unless BENCH_NO_REAL=1:
#   - ClickHouse 18.16 (CHNATIVE_DSN) with scripts/clickhouse.sh, shared with the tests and left
#     running;
#   - ClickHouse 26.7 (CHNATIVE_MODERN_DSN), unless BENCH_NO_MODERN=1 or BENCH_REPORT_ONLY=1, with
#     scripts/modern.sh in the benchmarks' own state dir (BENCH_MODERN_STATE_DIR, default
#     /tmp/chnative-modern-bench), so that no other user of a 26.7 server shares its cores or its
#     tables. An instance already running there is used and left running; one started here is
#     stopped by bench_stop_modern, which the scripts call on exit.
btime="${BENCH_TIME:-200ms}"
if [[ "${BENCH_QUICK:-}" == "1" ]]; then
	btime="${BENCH_TIME:-50ms}"
fi
filter="${BENCH_FILTER:-.}"
filter127='^BenchmarkRead(U64|USF|Mixed)$/^fake$/^(chnative-rows|clickhouse-go-sql|noop)$'
go127=0
if [[ "${GO127:-1}" != "0" && -z "${BENCH_FILTER:-}" ]]; then
	go127=1
fi
if [[ -z "${CHNATIVE_DSN:-}" && "${BENCH_NO_REAL:-}" != "1" ]]; then
	"$root/scripts/clickhouse.sh" start >/dev/null
	eval "$("$root/scripts/clickhouse.sh" env)"
fi
modern_state="${BENCH_MODERN_STATE_DIR:-/tmp/chnative-modern-bench}"
modern_started=0
if [[ -z "${CHNATIVE_MODERN_DSN:-}" && "${BENCH_NO_REAL:-}" != "1" && "${BENCH_NO_MODERN:-}" != "1" &&
	"${BENCH_REPORT_ONLY:-}" != "1" ]]; then
	if ! CHNATIVE_MODERN_STATE_DIR="$modern_state" "$root/scripts/modern.sh" status 2>/dev/null; then
		CHNATIVE_MODERN_STATE_DIR="$modern_state" "$root/scripts/modern.sh" start >/dev/null
		modern_started=1
	fi
	eval "$(CHNATIVE_MODERN_STATE_DIR="$modern_state" "$root/scripts/modern.sh" env)"
fi

# bench_stop_modern stops the 26.7 server if this script started it.
bench_stop_modern() {
	if [[ "$modern_started" == 1 ]]; then
		CHNATIVE_MODERN_STATE_DIR="$modern_state" "$root/scripts/modern.sh" stop >/dev/null 2>&1 || true
		modern_started=0
	fi
}

# bench_versions sets real_version and modern_version to the running servers' versions ("—" for
# a server not measured, "unknown" when it does not answer).
bench_versions() {
	real_version="—"
	modern_version="—"
	if [[ -n "${CHNATIVE_DSN:-}" && "${BENCH_NO_REAL:-}" != "1" ]]; then
		real_version="$(clickhouse-client --port "${CHNATIVE_TCP_PORT:-9000}" -q 'SELECT version()' 2>/dev/null || echo unknown)"
	fi
	if [[ -n "${CHNATIVE_MODERN_DSN:-}" && "${BENCH_NO_REAL:-}" != "1" && "${BENCH_NO_MODERN:-}" != "1" ]]; then
		modern_version="unknown"
		if [[ -n "${CHNATIVE_MODERN_HTTP_URL:-}" ]]; then
			modern_version="$(curl -fsS --max-time 5 --data-binary 'SELECT version()' "$CHNATIVE_MODERN_HTTP_URL" 2>/dev/null || echo unknown)"
		fi
	fi
}
