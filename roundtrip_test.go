package chnative

import (
	"context"
	"database/sql"
	"fmt"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/chnative/chnative/columns"
)

// The 1M-row round trip of issue "the spine": seven column types, two insert paths, two read
// paths, three compression settings, compared value by value.

const roundTripColumns = "id UInt64, name String, value Float64, ts DateTime, note Nullable(String), tags Array(UInt32), kind LowCardinality(String)"

var kinds = []string{"alpha", "beta", "gamma", "delta", "epsilon"}

var tsBase = time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)

type rtRow struct {
	id    uint64
	name  string
	value float64
	ts    time.Time
	note  *string
	tags  []uint32
	kind  string
}

func rtExpected(i int) rtRow {
	r := rtRow{
		id:    uint64(i),
		name:  "name-" + strconv.Itoa(i*7919%100003),
		value: float64(i) * 0.25,
		ts:    tsBase.Add(time.Duration(i) * time.Second),
		kind:  kinds[i%len(kinds)],
	}
	if i%3 != 0 {
		n := "note " + strconv.Itoa(i)
		r.note = &n
	}
	r.tags = make([]uint32, i%4)
	for j := range r.tags {
		r.tags[j] = uint32(i + j)
	}
	return r
}

func (r rtRow) args() []any {
	var note any
	if r.note != nil {
		note = *r.note
	}
	return []any{r.id, r.name, r.value, r.ts, note, r.tags, r.kind}
}

// roundTripRows is 1M rows; under -race (an order of magnitude slower) 100k, and scripts/test.sh
// runs the 1M case again without -race.
func roundTripRows(t *testing.T) int {
	switch {
	case testing.Short():
		return 20_000
	case raceEnabled:
		return 100_000
	}
	return 1_000_000
}

func TestRoundTrip1M(t *testing.T) {
	for _, comp := range []string{"none", "lz4", "zstd"} {
		t.Run(comp, func(t *testing.T) {
			db := openDB(t, "compress="+comp, "insert_block_rows=100000")
			n := roundTripRows(t)
			viaSQL := createTable(t, db, "rt_sql", roundTripColumns)
			viaBatch := createTable(t, db, "rt_batch", roundTripColumns)
			insertPrepared(t, db, viaSQL, n)
			insertBatch(t, db, viaBatch, n)
			for _, table := range []string{viaSQL, viaBatch} {
				readRows(t, db, table, n)
				readBlocks(t, db, table, n)
			}
		})
	}
}

func insertPrepared(t *testing.T, db *sql.DB, table string, n int) {
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	st, err := tx.Prepare("INSERT INTO " + table)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if _, err := st.Exec(rtExpected(i).args()...); err != nil {
			t.Fatalf("row %d: %v", i, err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := count(t, db, table); got != int64(n) {
		t.Fatalf("%s: %d rows, want %d", table, got, n)
	}
}

// insertBatch inserts through the Batch extension, half the rows with typed column appends and
// half with Batch.Append.
func insertBatch(t *testing.T, db *sql.DB, table string, n int) {
	ctx := context.Background()
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	err = c.Raw(func(dc any) error {
		b, err := dc.(Conn).PrepareBatch(ctx, "INSERT INTO "+table)
		if err != nil {
			return err
		}
		id := b.Column(0).(*columns.UInt64)
		name := b.Column(1).(*columns.String)
		value := b.Column(2).(*columns.Float64)
		ts := b.Column(3).(*columns.DateTime)
		note := b.Column(4).(*columns.Nullable)
		tags := b.Column(5).(*columns.Array)
		kind := b.Column(6).(*columns.LowCardinality)
		for i := range n {
			r := rtExpected(i)
			if i%2 == 1 {
				if err := b.Append(r.args()...); err != nil {
					return fmt.Errorf("row %d: %w", i, err)
				}
				continue
			}
			id.Append(r.id)
			name.Append(r.name)
			value.Append(r.value)
			if err := ts.AppendTime(r.ts); err != nil {
				return err
			}
			if r.note == nil {
				note.AppendNull()
			} else if err := note.AppendValue(*r.note); err != nil {
				return err
			}
			tags.Elem().(*columns.UInt32).AppendSlice(r.tags)
			tags.EndRow()
			if err := kind.AppendString(r.kind); err != nil {
				return err
			}
			if b.Rows() >= 100_000 {
				if err := b.Flush(); err != nil {
					return err
				}
			}
		}
		return b.Send()
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := count(t, db, table); got != int64(n) {
		t.Fatalf("%s: %d rows, want %d", table, got, n)
	}
}

func readRows(t *testing.T, db *sql.DB, table string, n int) {
	rows, err := db.Query("SELECT id, name, value, ts, note, tags, kind FROM " + table + " ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	i := 0
	for rows.Next() {
		var r rtRow
		var tags any
		if err := rows.Scan(&r.id, &r.name, &r.value, &r.ts, &r.note, &tags, &r.kind); err != nil {
			t.Fatal(err)
		}
		r.tags = tags.([]uint32)
		compareRow(t, "rows "+table, i, r)
		i++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if i != n {
		t.Fatalf("read %d rows, want %d", i, n)
	}
}

func readBlocks(t *testing.T, db *sql.DB, table string, n int) {
	ctx := context.Background()
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	i := 0
	err = c.Raw(func(dc any) error {
		bl, err := dc.(Conn).QueryBlocks(ctx, "SELECT id, name, value, ts, note, tags, kind FROM "+table+" ORDER BY id")
		if err != nil {
			return err
		}
		defer bl.Close()
		for bl.Next() {
			b := bl.Block()
			id := b.Column(0).(*columns.UInt64).Values()
			name := b.Column(1).(*columns.String)
			value := b.Column(2).(*columns.Float64).Values()
			ts := b.Column(3).(*columns.DateTime)
			note := b.Column(4).(*columns.Nullable)
			tags := b.Column(5).(*columns.Array)
			tagVals := tags.Elem().(*columns.UInt32).Values()
			kind := b.Column(6).(*columns.LowCardinality)
			for j := range b.Rows() {
				r := rtRow{id: id[j], name: name.String(j), value: value[j], ts: ts.Time(j), kind: string(kind.Bytes(j))}
				if !note.IsNull(j) {
					s := note.Inner().(*columns.String).String(j)
					r.note = &s
				}
				lo, hi := tags.Bounds(j)
				r.tags = tagVals[lo:hi]
				compareRow(t, "blocks "+table, i, r)
				i++
			}
		}
		return bl.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	if i != n {
		t.Fatalf("read %d rows through blocks, want %d", i, n)
	}
}

func compareRow(t *testing.T, path string, i int, got rtRow) {
	want := rtExpected(i)
	if got.id != want.id || got.name != want.name || got.value != want.value || !got.ts.Equal(want.ts) ||
		got.kind != want.kind || (got.note == nil) != (want.note == nil) ||
		got.note != nil && *got.note != *want.note || len(got.tags) != len(want.tags) ||
		len(want.tags) > 0 && !reflect.DeepEqual(got.tags, want.tags) {
		t.Fatalf("%s row %d:\n got %+v\nwant %+v", path, i, got, want)
	}
}
