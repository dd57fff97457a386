# Settings shared by run.sh and compare.sh, which source this file with $root set to the
# repository. From the environment (see run.sh) it sets btime (-benchtime per sample), filter
# (-bench), filter127 (the arms the Go 1.27 pass runs) and go127 (1 when that pass runs), and
# starts the local test server when CHNATIVE_DSN is unset, unless BENCH_NO_REAL=1.
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
