package ecosystem

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"database/sql"

	"github.com/DATA-DOG/go-sqlmock"
	"github.com/chnative/chnative"
	"github.com/chnative/chnative/nativeproto"
)

// saveEvents is application code written for chnative: with chnative it inserts through the
// Batch extension; in unit tests it runs against go-sqlmock.
func saveEvents(ctx context.Context, db *sql.DB, events map[uint64]string) error {
	rows := make([][]any, 0, len(events))
	for id := uint64(1); id <= uint64(len(events)); id++ {
		rows = append(rows, []any{id, events[id]})
	}
	return chnative.InsertRows(ctx, db, "INSERT INTO events (id, name)", rows)
}

func TestSQLMockInsertRows(t *testing.T) {
	db, mock, err := sqlmock.New()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mock.ExpectBegin()
	prep := mock.ExpectPrepare(`INSERT INTO events \(id, name\) VALUES \(\?, \?\)`)
	prep.ExpectExec().WithArgs(1, "a").WillReturnResult(sqlmock.NewResult(0, 1))
	prep.ExpectExec().WithArgs(2, "b").WillReturnResult(sqlmock.NewResult(0, 1))
	prep.WillBeClosed()
	mock.ExpectCommit()
	if err := saveEvents(context.Background(), db, map[uint64]string{1: "a", 2: "b"}); err != nil {
		t.Fatal(err)
	}
	if err := mock.ExpectationsWereMet(); err != nil {
		t.Fatal(err)
	}

	// A failing row rolls back, and the error names the row.
	mock.ExpectBegin()
	prep = mock.ExpectPrepare(`INSERT INTO events`)
	prep.ExpectExec().WithArgs(1, "a").WillReturnError(errors.New("boom"))
	mock.ExpectRollback()
	err = saveEvents(context.Background(), db, map[uint64]string{1: "a"})
	if err == nil || err.Error() != "chnative: InsertRows: row 0: boom" {
		t.Fatalf("got %v", err)
	}
	if err := mock.ExpectationsWereMet(); err != nil {
		t.Fatal(err)
	}
}

func TestSQLMockStream(t *testing.T) {
	db, mock, err := sqlmock.New()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()

	// StreamBlocks builds typed blocks from the column types the mock declares.
	mock.ExpectQuery(`SELECT id, name FROM events WHERE id > \?`).WithArgs(0).WillReturnRows(
		sqlmock.NewRowsWithColumnDefinition(
			sqlmock.NewColumn("id").OfType("UInt64", uint64(0)),
			sqlmock.NewColumn("name").OfType("String", ""),
		).AddRow(uint64(1), "a").AddRow(uint64(2), "b").AddRow(uint64(3), "c"))
	var ids []uint64
	var blocks int
	err = chnative.StreamBlocks(chnative.WithBlockSize(ctx, 2), db, "SELECT id, name FROM events WHERE id > ?", []any{0},
		func(b *nativeproto.Block) error {
			blocks++
			ids = append(ids, b.Column(0).Value(0).(uint64))
			if b.Rows() == 2 {
				ids = append(ids, b.Column(0).Value(1).(uint64))
			}
			return nil
		})
	if err != nil || fmt.Sprint(ids) != "[1 2 3]" || blocks != 2 {
		t.Fatalf("ids %v in %d blocks: %v", ids, blocks, err)
	}

	// StreamRows works with untyped mock columns.
	mock.ExpectQuery(`SELECT name FROM events`).WillReturnRows(sqlmock.NewRows([]string{"name"}).AddRow("x").AddRow("y"))
	var names []string
	err = chnative.StreamRows(ctx, db, "SELECT name FROM events", nil, func(row []any) error {
		names = append(names, fmt.Sprint(row[0]))
		return nil
	})
	if err != nil || fmt.Sprint(names) != "[x y]" {
		t.Fatalf("%v %v", names, err)
	}
	if err := mock.ExpectationsWereMet(); err != nil {
		t.Fatal(err)
	}
}

// TestInsertRowsServer runs the same application code against the real server through chnative.
func TestInsertRowsServer(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.ExecContext(ctx, "CREATE TEMPORARY TABLE events (id UInt64, name String)"); err != nil {
		t.Fatal(err)
	}
	if err := chnative.InsertRows(ctx, c, "INSERT INTO events (id, name)", [][]any{{1, "a"}, {2, "b"}}); err != nil {
		t.Fatal(err)
	}
	var n uint64
	if err := c.QueryRowContext(ctx, "SELECT count() FROM events").Scan(&n); err != nil || n != 2 {
		t.Fatal(n, err)
	}
}
