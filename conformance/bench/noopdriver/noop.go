// Package noopdriver is a database/sql driver that does nothing: it measures database/sql's own
// floor. Queries return the rows the DSN names with values boxed once, up front (a cycle of 65536
// pre-boxed rows), so Rows.Next costs only the copy into dest; Execs (also on prepared statements
// inside a transaction) accept their arguments and do nothing. Like chnative's connection it
// implements driver.NamedValueChecker accepting every argument unconverted, and on Go 1.27
// driver.RowsColumnScanner (scan_go127.go).
//
// DSN: "shape:rows", shape as in fakeserver ("u64", "u64sf64", "mixed", "one"), or
// "shape:rows:fresh" for rows whose values are copied into fresh memory every row (fresh.go).
package noopdriver

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"io"
	"math/big"
	"strconv"
	"strings"
	"sync"

	"github.com/chnative/chnative/columns"

	"github.com/chnative/chnative/conformance/bench/fakeserver"
)

func init() { sql.Register("noop", Driver{}) }

// Driver is the noop driver.
type Driver struct{}

type data struct {
	names []string
	rows  [][]driver.Value

	colOnce sync.Once
	col     *columnarData // rows by column, for freshRows (fresh.go)
}

var (
	mu    sync.Mutex
	cache = map[string]*data{}
)

const cycle = 65536

func load(shape string) (*data, error) {
	mu.Lock()
	defer mu.Unlock()
	if d, ok := cache[shape]; ok {
		return d, nil
	}
	n := cycle
	if shape == "one" {
		n = 1
	}
	b, err := fakeserver.BuildBlock(shape, n)
	if err != nil {
		return nil, err
	}
	d := &data{rows: make([][]driver.Value, n)}
	for i := 0; i < b.NumColumns(); i++ {
		d.names = append(d.names, b.Name(i))
	}
	for r := range d.rows {
		row := make([]driver.Value, b.NumColumns())
		for i := range row {
			row[i] = driverValue(b.Column(i).Value(r))
		}
		d.rows[r] = row
	}
	cache[shape] = d
	return d, nil
}

// driverValue mirrors what chnative's Rows.Next stores: decimals as strings.
func driverValue(v any) driver.Value {
	switch x := v.(type) {
	case columns.Decimal:
		return x.String()
	case *big.Int:
		return x.String()
	}
	return v
}

// Open opens a connection.
func (Driver) Open(name string) (driver.Conn, error) {
	shape, n, _ := strings.Cut(name, ":")
	n, mode, _ := strings.Cut(n, ":")
	rows, err := strconv.Atoi(n)
	if err != nil {
		rows = 1
	}
	return &conn{shape: shape, rows: rows, fresh: mode == "fresh"}, nil
}

type conn struct {
	shape string
	rows  int
	fresh bool // values copied into fresh memory every row (fresh.go)
}

func (c *conn) Prepare(query string) (driver.Stmt, error) { return stmt{c}, nil }
func (c *conn) Close() error                              { return nil }
func (c *conn) Begin() (driver.Tx, error)                 { return tx{}, nil }
func (c *conn) BeginTx(context.Context, driver.TxOptions) (driver.Tx, error) {
	return tx{}, nil
}
func (c *conn) CheckNamedValue(*driver.NamedValue) error { return nil }
func (c *conn) ExecContext(context.Context, string, []driver.NamedValue) (driver.Result, error) {
	return driver.RowsAffected(0), nil
}
func (c *conn) QueryContext(ctx context.Context, q string, _ []driver.NamedValue) (driver.Rows, error) {
	d, err := load(c.shape)
	if err != nil {
		return nil, err
	}
	if c.fresh {
		return &freshRows{rows: rows{d: d, n: c.rows}}, nil
	}
	return &rows{d: d, n: c.rows}, nil
}

type tx struct{}

func (tx) Commit() error   { return nil }
func (tx) Rollback() error { return nil }

type stmt struct{ c *conn }

func (s stmt) Close() error  { return nil }
func (s stmt) NumInput() int { return -1 }
func (s stmt) Exec([]driver.Value) (driver.Result, error) {
	return driver.RowsAffected(0), nil
}
func (s stmt) ExecContext(context.Context, []driver.NamedValue) (driver.Result, error) {
	return driver.RowsAffected(0), nil
}
func (s stmt) Query([]driver.Value) (driver.Rows, error) {
	return s.c.QueryContext(context.Background(), "", nil)
}
func (s stmt) QueryContext(ctx context.Context, _ []driver.NamedValue) (driver.Rows, error) {
	return s.c.QueryContext(ctx, "", nil)
}

type rows struct {
	d   *data
	n   int
	i   int
	cur []driver.Value // the current row, for ScanColumn (Go 1.27)
}

func (r *rows) Columns() []string { return r.d.names }
func (r *rows) Close() error      { return nil }
func (r *rows) Next(dest []driver.Value) error {
	if r.i >= r.n {
		return io.EOF
	}
	copy(dest, r.d.rows[r.i%len(r.d.rows)])
	r.i++
	return nil
}
