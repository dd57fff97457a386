// Command demo inserts rows into ClickHouse through both of chnative's insert paths, reads them back
// both ways, and prints the throughput of each:
//
//	go run ./examples/demo [-dsn DSN] [-rows N] [-compress none|lz4|zstd] [-table NAME]
//
// Without -dsn it uses $CHNATIVE_DSN, and when that is empty too it runs scripts/modern.sh start
// (from the repository): a local ClickHouse 26.7 (chDB's engine as a TCP server on loopback,
// downloaded the first time) that it leaves running, says so, and names the command that stops
// it (scripts/modern.sh stop).
//
// The paths are:
//
//   - insert database/sql: db.Begin, tx.Prepare("INSERT INTO ..."), one stmt.Exec per row, tx.Commit
//   - insert Batch: sql.Conn.Raw, chnative.Conn.PrepareBatch, typed appends to each column
//   - select database/sql: rows.Scan of every column of every row
//   - select QueryBlocks: chnative.Conn.QueryBlocks, typed reads of each block's columns
//
// After each path the demo checks the row count and a few aggregates, and exits non-zero when one
// is wrong.
package main

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/chnative/chnative"
	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/dsn"
)

// table is the table the demo drops, creates and fills (-table; chnative_demo by default).
var table = "chnative_demo"

// createTable returns the CREATE TABLE statement of table.
func createTable() string {
	return `CREATE TABLE ` + table + ` (
	id    UInt64,
	name  String,
	value Float64,
	ts    DateTime,
	note  Nullable(String),
	tags  Array(UInt32),
	kind  LowCardinality(String)
) ENGINE = Memory`
}

// flushEvery is how many rows the Batch path buffers before it sends a block.
const flushEvery = 100_000

var kinds = [...]string{"alpha", "beta", "gamma", "delta", "epsilon"}

// base is the timestamp of row 0; row i is i seconds later.
var base = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

// Row i of the generated data:
//
//	id    = i
//	name  = "name-<i>"
//	value = i * 0.5
//	ts    = base + i seconds
//	note  = NULL when i%3 == 0, else "note-<i%100>"
//	tags  = [i, i+1, ..., i+(i%4)-1]   (i%4 elements)
//	kind  = kinds[i%5]
func noteOf(i uint64) (string, bool) {
	if i%3 == 0 {
		return "", false
	}
	return "note-" + strconv.FormatUint(i%100, 10), true
}

// summary is what each path checks: row count, sum of id, NULL notes, total tag elements.
type summary struct {
	rows, sumID, nullNotes, tags uint64
}

func expected(n uint64) summary {
	s := summary{rows: n}
	for i := uint64(0); i < n; i++ {
		s.sumID += i
		if i%3 == 0 {
			s.nullNotes++
		}
		s.tags += i % 4
	}
	return s
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

func run() error {
	dsnFlag := flag.String("dsn", os.Getenv("CHNATIVE_DSN"), "ClickHouse DSN (default $CHNATIVE_DSN; empty: start a local ClickHouse 26.7 with scripts/modern.sh)")
	rowsFlag := flag.Int("rows", 1_000_000, "rows to insert through each insert path")
	compress := flag.String("compress", "none", "block compression: none, lz4 or zstd (overrides compress= in the DSN)")
	flag.StringVar(&table, "table", table, "the table to drop, create and fill")
	flag.Parse()
	if *rowsFlag < 0 {
		return fmt.Errorf("-rows must be >= 0, got %d", *rowsFlag)
	}
	n := uint64(*rowsFlag)

	raw := *dsnFlag
	if raw == "" {
		var err error
		if raw, err = startLocalServer(); err != nil {
			return err
		}
	}
	cfg, err := dsn.Parse(raw)
	if err != nil {
		return err
	}
	if cfg.Compress, err = dsn.ParseCompression(*compress); err != nil {
		return fmt.Errorf("-compress: %w", err)
	}
	db, err := sql.Open(chnative.DriverName, cfg.FormatDSN())
	if err != nil {
		return err
	}
	defer db.Close()

	ctx := context.Background()
	if err := db.PingContext(ctx); err != nil {
		return fmt.Errorf("connecting to %s: %w", cfg, err)
	}
	var version string
	if err := db.QueryRowContext(ctx, "SELECT version()").Scan(&version); err != nil {
		return err
	}
	fmt.Printf("server ClickHouse %s at %s, compress=%s, %d rows per path\n\n", version, strings.Join(cfg.Addrs, ","), cfg.Compress, n)

	if _, err := db.ExecContext(ctx, "DROP TABLE IF EXISTS "+table); err != nil {
		return err
	}
	if _, err := db.ExecContext(ctx, createTable()); err != nil {
		return err
	}
	want := expected(n)
	var failed []string
	report := func(path string, d time.Duration, got summary, err error) error {
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		rate := float64(got.rows) / d.Seconds()
		fmt.Printf("%-22s %10d rows %8.3f s %12.0f rows/s\n", path, got.rows, d.Seconds(), rate)
		if got != want {
			failed = append(failed, fmt.Sprintf("%s: got %+v, want %+v", path, got, want))
		}
		return nil
	}

	// a) database/sql batched prepared insert.
	start := time.Now()
	err = insertSQL(ctx, db, n)
	d := time.Since(start)
	var got summary
	if err == nil {
		got, err = tableSummary(ctx, db)
	}
	if err := report("insert database/sql", d, got, err); err != nil {
		return err
	}

	// b) the Batch extension, into an emptied table.
	if err := emptyTable(ctx, db); err != nil {
		return err
	}
	start = time.Now()
	err = insertBatch(ctx, db, n)
	d = time.Since(start)
	if err == nil {
		got, err = tableSummary(ctx, db)
	}
	if err := report("insert Batch", d, got, err); err != nil {
		return err
	}

	// c) read everything back, both ways.
	start = time.Now()
	got, err = selectSQL(ctx, db)
	if err := report("select database/sql", time.Since(start), got, err); err != nil {
		return err
	}
	start = time.Now()
	got, err = selectBlocks(ctx, db)
	if err := report("select QueryBlocks", time.Since(start), got, err); err != nil {
		return err
	}

	if len(failed) > 0 {
		return errors.New("wrong results:\n  " + strings.Join(failed, "\n  "))
	}
	fmt.Println("\nall row counts and checksums match")
	return nil
}

// insertSQL inserts n rows through database/sql: inside a transaction, Prepare starts a native
// INSERT, each Exec appends one row to typed columns, and Commit sends what is still buffered.
func insertSQL(ctx context.Context, db *sql.DB, n uint64) (err error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback() // drops buffered rows; blocks already sent stay
		}
	}()
	stmt, err := tx.PrepareContext(ctx, "INSERT INTO "+table)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for i := uint64(0); i < n; i++ {
		var note any // nil is NULL
		if s, ok := noteOf(i); ok {
			note = s
		}
		tags := make([]uint32, i%4)
		for j := range tags {
			tags[j] = uint32(i) + uint32(j)
		}
		if _, err := stmt.ExecContext(ctx,
			i,
			"name-"+strconv.FormatUint(i, 10),
			float64(i)*0.5,
			base.Add(time.Duration(i)*time.Second),
			note,
			tags,
			kinds[i%5],
		); err != nil {
			return fmt.Errorf("row %d: %w", i, err)
		}
	}
	return tx.Commit()
}

// insertBatch inserts n rows through the Batch extension with typed appends, sending a block every
// flushEvery rows.
func insertBatch(ctx context.Context, db *sql.DB, n uint64) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(dc any) (err error) {
		c, ok := dc.(chnative.Conn)
		if !ok {
			return fmt.Errorf("driver connection %T is not a chnative.Conn", dc)
		}
		b, err := c.PrepareBatch(ctx, "INSERT INTO "+table)
		if err != nil {
			return err
		}
		sent := false
		defer func() {
			if !sent {
				b.Abort()
			}
		}()
		if b.NumColumns() != 7 {
			return fmt.Errorf("the table has %d columns, want 7", b.NumColumns())
		}
		var (
			id    = b.Column(0).(*columns.UInt64)
			name  = b.Column(1).(*columns.String)
			value = b.Column(2).(*columns.Float64)
			ts    = b.Column(3).(*columns.DateTime)
			note  = b.Column(4).(*columns.Nullable)
			tags  = b.Column(5).(*columns.Array)
			kind  = b.Column(6).(*columns.LowCardinality)
			elems = tags.Elem().(*columns.UInt32)
		)
		start := uint32(base.Unix())
		var buf []byte
		for i := uint64(0); i < n; i++ {
			id.Append(i)
			buf = strconv.AppendUint(append(buf[:0], "name-"...), i, 10)
			name.AppendBytes(buf)
			value.Append(float64(i) * 0.5)
			ts.Append(start + uint32(i)) // DateTime stores Unix seconds
			if s, ok := noteOf(i); ok {
				// Nullable has no typed non-NULL append: AppendValue boxes the string.
				if err := note.AppendValue(s); err != nil {
					return err
				}
			} else {
				note.AppendNull()
			}
			for j := uint64(0); j < i%4; j++ {
				elems.Append(uint32(i + j))
			}
			tags.EndRow()
			if err := kind.AppendString(kinds[i%5]); err != nil {
				return err
			}
			if b.Rows() >= flushEvery {
				if err := b.Flush(); err != nil {
					return err
				}
			}
		}
		sent = true
		return b.Send()
	})
}

// selectSQL reads every column of every row through database/sql.
func selectSQL(ctx context.Context, db *sql.DB) (summary, error) {
	var s summary
	rows, err := db.QueryContext(ctx, "SELECT id, name, value, ts, note, tags, kind FROM "+table)
	if err != nil {
		return s, err
	}
	defer rows.Close()
	var (
		id    uint64
		name  string
		value float64
		ts    time.Time
		note  sql.NullString
		tags  []uint32
		kind  string
	)
	for rows.Next() {
		if err := rows.Scan(&id, &name, &value, &ts, &note, &tags, &kind); err != nil {
			return s, err
		}
		s.rows++
		s.sumID += id
		if !note.Valid {
			s.nullNotes++
		}
		s.tags += uint64(len(tags))
	}
	return s, rows.Err()
}

// selectBlocks reads the same result one block at a time through QueryBlocks, summing the id
// column straight from its []uint64.
func selectBlocks(ctx context.Context, db *sql.DB) (summary, error) {
	var s summary
	conn, err := db.Conn(ctx)
	if err != nil {
		return s, err
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		c := dc.(chnative.Conn)
		blocks, err := c.QueryBlocks(ctx, "SELECT id, name, value, ts, note, tags, kind FROM "+table)
		if err != nil {
			return err
		}
		defer blocks.Close()
		for blocks.Next() {
			b := blocks.Block()
			s.rows += uint64(b.Rows())
			for _, v := range b.Column(0).(*columns.UInt64).Values() {
				s.sumID += v
			}
			for _, null := range b.Column(4).(*columns.Nullable).Nulls() {
				if null != 0 {
					s.nullNotes++
				}
			}
			s.tags += uint64(b.Column(5).(*columns.Array).Elem().Rows())
		}
		if err := blocks.Err(); err != nil {
			return err
		}
		return blocks.Close()
	})
	return s, err
}

// tableSummary asks the server for the table's row count and checksums.
func tableSummary(ctx context.Context, db *sql.DB) (summary, error) {
	var s summary
	err := db.QueryRowContext(ctx, "SELECT count(), sum(id), countIf(isNull(note)), sum(length(tags)) FROM "+table).
		Scan(&s.rows, &s.sumID, &s.nullNotes, &s.tags)
	return s, err
}

// emptyTable truncates the table, or drops and recreates it where TRUNCATE is refused.
func emptyTable(ctx context.Context, db *sql.DB) error {
	if _, err := db.ExecContext(ctx, "TRUNCATE TABLE "+table); err == nil {
		return nil
	}
	if _, err := db.ExecContext(ctx, "DROP TABLE "+table); err != nil {
		return err
	}
	_, err := db.ExecContext(ctx, createTable())
	return err
}

// startLocalServer runs scripts/modern.sh start (fetching chDB and starting a local ClickHouse 26.7
// as needed; a server it started before is reused) and returns the DSN it prints. The server is
// left running for the next run; what it is and how to stop it go to standard error.
func startLocalServer() (string, error) {
	root, err := repoRoot()
	if err != nil {
		return "", err
	}
	script := filepath.Join(root, "scripts", "modern.sh")
	fmt.Fprintf(os.Stderr, "demo: no -dsn or $CHNATIVE_DSN; running %s start (a local ClickHouse 26.7; the first run downloads chDB, about 180 MB)\n", script)
	cmd := exec.Command("bash", script, "start")
	cmd.Dir = root
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s start: %w", script, err)
	}
	lines := strings.Fields(strings.TrimSpace(string(out)))
	if len(lines) == 0 {
		return "", fmt.Errorf("%s start printed no DSN", script)
	}
	fmt.Fprintf(os.Stderr, "demo: the server keeps running at %s; stop it with: %s stop\n", lines[len(lines)-1], script)
	return lines[len(lines)-1], nil
}

// repoRoot finds the chnative repository: upwards from the working directory, then from this
// source file (known when run with go run).
func repoRoot() (string, error) {
	var starts []string
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		starts = append(starts, filepath.Dir(file))
	}
	for _, dir := range starts {
		for {
			if isRepoRoot(dir) {
				return dir, nil
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	return "", errors.New("cannot find the chnative repository (scripts/modern.sh) to start a server; give -dsn or set CHNATIVE_DSN")
}

func isRepoRoot(dir string) bool {
	if _, err := os.Stat(filepath.Join(dir, "scripts", "modern.sh")); err != nil {
		return false
	}
	mod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	return err == nil && strings.Contains(string(mod), "module github.com/chnative/chnative\n")
}
