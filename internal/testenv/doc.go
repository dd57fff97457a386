// Package testenv tells tests where the ClickHouse test servers are.
//
// There are two: ClickHouse 18.16, started by scripts/clickhouse.sh, and ClickHouse 26.7,
// started by scripts/modern.sh. scripts/test.sh starts both and runs the real-server tests twice,
// once with CHNATIVE_DSN (and the variables beside it) naming each server, so a test that uses
// DSN runs against both. A plain `go test ./...` without a server skips the tests that need one,
// while CI (CI=true) fails them:
//
//	CHNATIVE_DSN           clickhouse://default@127.0.0.1:PORT/default (no password)
//	CHNATIVE_AUTH_DSN      the same server as user "chnative", password "chn_secret"
//	CHNATIVE_SECURE_PORT   18.16's TLS port, CHNATIVE_TLS_CA its CA (see SecureAddr)
//	CHNATIVE_MODERN_DSN    the 26.7 server, whichever server CHNATIVE_DSN names (ModernDSN);
//	                       CHNATIVE_MODERN_AUTH_DSN, _HTTP_URL and _TLS_{CA,CERT,KEY} beside it
//	CHNATIVE_RO_DSN        18.16 as user "chn_ro" (readonly=1), whichever server CHNATIVE_DSN
//	                       names (RODSN); CHNATIVE_MODERN_RO_DSN the same on 26.7 (ModernRODSN)
//	CHNATIVE_CHDB_LIB      path of the chDB shared library (optional; see ChDBLib)
//
// Server tells a test which of the two CHNATIVE_DSN names, from the server's own Hello, for
// the tests whose expectations differ: such a test asserts each server's behaviour, keyed on
// the kind, and says why they differ.
//
// To run tests by hand against 18.16, then 26.7:
//
//	eval "$(scripts/clickhouse.sh start >/dev/null && scripts/clickhouse.sh env)"
//	eval "$(scripts/modern.sh start >/dev/null && scripts/modern.sh env)"
//	go test ./...
//	CHNATIVE_DSN=$CHNATIVE_MODERN_DSN CHNATIVE_AUTH_DSN=$CHNATIVE_MODERN_AUTH_DSN go test ./...
//
// The 18.16 server is Debian's clickhouse-server 18.16.1 (protocol revision 54412) with
// allow_experimental_low_cardinality_type=1 in its default profile. Never query system.numbers
// or numbers() without a LIMIT on it: such a query does not end, even after the client has gone.
//
// A third environment is a cluster, started by scripts/cluster.sh: ZooKeeper, four 18.16
// replicas in two shards and two 26.7 shards. Cluster reads its CHNATIVE_CLUSTER_* variables and
// its ClusterEnv injects faults (Kill, Restart, Stall, Resume) through the script.
package testenv
