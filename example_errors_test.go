package chnative_test

import (
	"database/sql"
	"errors"
	"fmt"
	"os"

	"github.com/chnative/chnative"
)

// An error the server sent is an *Exception: errors.As gets its code and message, errors.Is
// matches it by code.
func ExampleException() {
	db, err := sql.Open("chnative", os.Getenv("CHNATIVE_DSN"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer db.Close()
	var n uint64
	err = db.QueryRow("SELECT count() FROM example_no_such_table").Scan(&n)
	var ex *chnative.Exception
	if errors.As(err, &ex) {
		fmt.Println(ex.Code, ex.Name)
	}
	const unknownTable = 60
	fmt.Println(errors.Is(err, &chnative.Exception{Code: unknownTable}))
	// The connection stays in the pool, ready for the next query.
	if err := db.QueryRow("SELECT count() FROM numbers(3)").Scan(&n); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(n)
	// Output:
	// 60 DB::Exception
	// true
	// 3
}
