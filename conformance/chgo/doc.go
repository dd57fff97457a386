// Package chgo compares chnative with clickhouse-go (github.com/ClickHouse/clickhouse-go/v2)
// through database/sql, on the same queries against the same server: code written for
// clickhouse-go's database/sql driver should run on chnative with a new import and driver name.
//
// The tests scan every type of the type suite (conformance/types, TYPES.md) with both drivers
// into clickhouse-go's destination types and compare the results; each difference that remains
// is listed with the reason it is kept (a clickhouse-go bug, a type chnative hands over without a
// dependency clickhouse-go has, ...), and a listed difference that is gone fails the test, so
// the list stays true. They also check that a variable of every column's ColumnTypeScanType can
// be scanned into, on both test servers. values_test.go compares the cases switchers reported
// (issue 39): big integer arguments, arrays of Nullable wide integers, arrays of Decimal and UUID
// into shopspring's and google's types, JSON into json.RawMessage, shopspring Decimals inserted,
// and clickhouse-go's context options, which chnative does not read.
package chgo
