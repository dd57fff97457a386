package chnative_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/chnative/chnative"
	"github.com/chnative/chnative/columns"
)

// Insert typed columns without boxing through the Batch extension, reached by sql.Conn.Raw.
func ExampleConn_PrepareBatch() {
	db, err := sql.Open("chnative", os.Getenv("CHNATIVE_DSN"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer db.Close()
	ctx := context.Background()
	if err := exec(ctx, db, "DROP TABLE IF EXISTS example_batch", "CREATE TABLE example_batch (id UInt64, name String) ENGINE = Memory"); err != nil {
		fmt.Println(err)
		return
	}
	c, err := db.Conn(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	err = c.Raw(func(dc any) error {
		b, err := dc.(chnative.Conn).PrepareBatch(ctx, "INSERT INTO example_batch (id, name)")
		if err != nil {
			return err
		}
		ids := b.Column(0).(*columns.UInt64)
		names := b.Column(1).(*columns.String)
		for i := range 1000 {
			ids.Append(uint64(i))
			names.Append(fmt.Sprint("event ", i))
		}
		// Or row by row, converting values:
		if err := b.Append(uint64(1000), "last"); err != nil {
			b.Abort()
			return err
		}
		return b.Send()
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	var n, sum uint64
	var last string
	if err := c.QueryRowContext(ctx, "SELECT count(), sum(id), max(name) FROM example_batch").Scan(&n, &sum, &last); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(n, sum, last)
	if err := exec(ctx, db, "DROP TABLE example_batch"); err != nil {
		fmt.Println(err)
	}
	// Output:
	// 1001 500500 last
}

// Read a result one block of typed columns at a time.
func ExampleConn_QueryBlocks() {
	db, err := sql.Open("chnative", os.Getenv("CHNATIVE_DSN"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer db.Close()
	ctx := context.Background()
	c, err := db.Conn(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	var sum uint64
	err = c.Raw(func(dc any) error {
		bs, err := dc.(chnative.Conn).QueryBlocks(ctx, "SELECT number FROM system.numbers LIMIT ?", 1000000)
		if err != nil {
			return err
		}
		defer bs.Close()
		fmt.Println(bs.Columns())
		for bs.Next() {
			for _, v := range bs.Block().Column(0).(*columns.UInt64).Values() {
				sum += v
			}
		}
		return bs.Err()
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(sum)
	// Output:
	// [number]
	// 499999500000
}

func ExampleConn_ServerInfo() {
	db, err := sql.Open("chnative", os.Getenv("CHNATIVE_DSN"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer db.Close()
	c, err := db.Conn(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	err = c.Raw(func(dc any) error {
		info := dc.(chnative.Conn).ServerInfo()
		// info.Version() is "major.minor.patch"; info.Timezone the server's time zone, which
		// Location returns loaded.
		fmt.Println(info.Name, info.Major >= 18, info.Negotiated <= info.Revision, dc.(chnative.Conn).Location() != nil)
		return nil
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output:
	// ClickHouse true true true
}

// AsConn finds the Batch extension under a wrapping driver too (github.com/XSAM/otelsql), where
// dc.(chnative.Conn) would fail.
func ExampleAsConn() {
	db, err := sql.Open("chnative", os.Getenv("CHNATIVE_DSN"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer db.Close()
	c, err := db.Conn(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	err = c.Raw(func(dc any) error {
		cc, ok := chnative.AsConn(dc)
		if !ok {
			return errors.New("not a chnative connection")
		}
		fmt.Println(cc.ServerInfo().Name)
		return nil
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output:
	// ClickHouse
}

type exampleEvent struct {
	ID   uint64    `ch:"id"`
	Name string    `ch:"name"`
	At   time.Time `ch:"ts"`
	Note *string   // Nullable(String) column "note"
}

// Select reads every row of a result into a slice of structs, each block copied straight into it.
func ExampleSelect() {
	db, err := sql.Open("chnative", os.Getenv("CHNATIVE_DSN"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer db.Close()
	ctx := context.Background()
	c, err := db.Conn(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	var events []exampleEvent
	err = c.Raw(func(dc any) error {
		events, err = chnative.Select[exampleEvent](ctx, dc.(chnative.Conn), `
			SELECT number AS id, concat('event ', toString(number)) AS name,
				toDateTime('2024-06-01 00:00:00', 'UTC') + number AS ts,
				if(number = 1, 'second', NULL) AS note
			FROM numbers(?)`, 3)
		return err
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range events {
		note := "<nil>"
		if e.Note != nil {
			note = *e.Note
		}
		fmt.Println(e.ID, e.Name, e.At.UTC().Format(time.DateTime), note)
	}
	// Output:
	// 0 event 0 2024-06-01 00:00:00 <nil>
	// 1 event 1 2024-06-01 00:00:01 second
	// 2 event 2 2024-06-01 00:00:02 <nil>
}

// ScanStructs hands the rows of each block as a slice that is reused for the next block: copy
// the structs kept.
func ExampleScanStructs() {
	db, err := sql.Open("chnative", os.Getenv("CHNATIVE_DSN"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer db.Close()
	ctx := chnative.WithBlockSize(context.Background(), 4)
	c, err := db.Conn(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	type point struct {
		X uint64 `ch:"x"`
		Y uint64 `ch:"y"`
	}
	var total uint64
	err = c.Raw(func(dc any) error {
		return chnative.ScanStructs(ctx, dc.(chnative.Conn), "SELECT number AS x, number * number AS y FROM system.numbers LIMIT 10", nil,
			func(block []point) error {
				for _, p := range block {
					total += p.Y
				}
				fmt.Println(len(block), "rows, the first", block[0])
				return nil
			})
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(total)
	// Output:
	// 4 rows, the first {0 0}
	// 4 rows, the first {4 16}
	// 2 rows, the first {8 64}
	// 285
}

// Append a slice of structs to a Batch: fields are matched to columns once per batch, then
// each column is filled from its field of every row.
func ExampleAppendStructs() {
	db, err := sql.Open("chnative", os.Getenv("CHNATIVE_DSN"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer db.Close()
	ctx := context.Background()
	if err := exec(ctx, db, "DROP TABLE IF EXISTS example_structs",
		"CREATE TABLE example_structs (id UInt64, name String, ts DateTime, note Nullable(String)) ENGINE = Memory"); err != nil {
		fmt.Println(err)
		return
	}
	c, err := db.Conn(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	at := time.Date(2024, 6, 1, 12, 0, 0, 0, time.UTC)
	note := "late"
	events := []exampleEvent{{ID: 1, Name: "start", At: at}, {ID: 2, Name: "stop", At: at.Add(time.Hour), Note: &note}}
	var back []exampleEvent
	err = c.Raw(func(dc any) error {
		b, err := dc.(chnative.Conn).PrepareBatch(ctx, "INSERT INTO example_structs (id, name, ts, note)")
		if err != nil {
			return err
		}
		// AppendStruct(b, &e) appends one row.
		if err := chnative.AppendStructs(b, events); err != nil {
			b.Abort()
			return err
		}
		if err := b.Send(); err != nil {
			return err
		}
		back, err = chnative.Select[exampleEvent](ctx, dc.(chnative.Conn), "SELECT * FROM example_structs ORDER BY id")
		return err
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range back {
		fmt.Println(e.ID, e.Name, e.At.UTC().Format(time.DateTime), e.Note != nil)
	}
	if err := exec(ctx, db, "DROP TABLE example_structs"); err != nil {
		fmt.Println(err)
	}
	// Output:
	// 1 start 2024-06-01 12:00:00 false
	// 2 stop 2024-06-01 13:00:00 true
}

// exec runs statements in order, stopping at the first error.
func exec(ctx context.Context, db *sql.DB, statements ...string) error {
	for _, s := range statements {
		if _, err := db.ExecContext(ctx, s); err != nil {
			return err
		}
	}
	return nil
}
