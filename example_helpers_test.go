package chnative_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"

	"github.com/chnative/chnative"
)

// InsertRows sends rows as one batch through the Batch extension; with go-sqlmock it runs a
// transaction with one prepared INSERT ... VALUES (?, ?) and one Exec per row.
func ExampleInsertRows() {
	db, err := sql.Open("chnative", os.Getenv("CHNATIVE_DSN"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer db.Close()
	ctx := context.Background()
	if err := exec(ctx, db, "DROP TABLE IF EXISTS example_rows", "CREATE TABLE example_rows (id UInt64, name String) ENGINE = Memory"); err != nil {
		fmt.Println(err)
		return
	}
	err = chnative.InsertRows(ctx, db, "INSERT INTO example_rows (id, name)", [][]any{
		{1, "signup"},
		{2, "login"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	var n uint64
	if err := db.QueryRowContext(ctx, "SELECT count() FROM example_rows").Scan(&n); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(n)
	if err := exec(ctx, db, "DROP TABLE example_rows"); err != nil {
		fmt.Println(err)
	}
	// Output:
	// 2
}

// StreamRows calls a function with each row, as the Go values of its columns.
func ExampleStreamRows() {
	db, err := sql.Open("chnative", os.Getenv("CHNATIVE_DSN"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer db.Close()
	err = chnative.StreamRows(context.Background(), db, "SELECT number, toString(number) FROM system.numbers WHERE number > ? LIMIT 3", []any{10},
		func(row []any) error {
			fmt.Printf("%T %v, %T %q\n", row[0], row[0], row[1], row[1])
			return nil
		})
	if err != nil {
		fmt.Println(err)
	}
	// Output:
	// uint64 11, string "11"
	// uint64 12, string "12"
	// uint64 13, string "13"
}
