// Package testenv tells tests where the ClickHouse test server is.
//
// The server is started by scripts/clickhouse.sh (scripts/test.sh does that
// and exports the variables below), so a plain `go test ./...` without a
// server skips the tests that need one, while CI (CI=true) fails them:
//
//	CHNATIVE_DSN       clickhouse://default@127.0.0.1:PORT/default (no password)
//	CHNATIVE_AUTH_DSN  the same server as user "chnative", password "chn_secret"
//	CHNATIVE_CHDB_LIB  path of the chDB shared library (optional; see ChDBLib)
//
// To run tests by hand against a server:
//
//	eval "$(scripts/clickhouse.sh start >/dev/null && scripts/clickhouse.sh env)"
//	go test ./...
//
// The server is Debian's clickhouse-server 18.16.1 (protocol revision 54412)
// with allow_experimental_low_cardinality_type=1 in its default profile. Never
// query system.numbers or numbers() without a LIMIT on it: such a query does
// not end, even after the client has gone.
package testenv
