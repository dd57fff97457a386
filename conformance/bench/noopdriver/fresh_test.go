package noopdriver

import (
	"database/sql"
	"fmt"
	"testing"
)

// The fresh rows hand out the same values as the plain ones, and values kept across Next calls,
// windows and chunks stay unchanged (each window is copied into memory never written again).
func TestFreshRowsKeepValues(t *testing.T) {
	const n = cycle + 1000 // wraps around the cycle, over many windows and chunks
	for _, shape := range []string{"u64", "u64sf64"} {
		t.Run(shape, func(t *testing.T) {
			plain, fresh := open(t, fmt.Sprintf("%s:%d", shape, n)), open(t, fmt.Sprintf("%s:%d:fresh", shape, n))
			want, got := readAll(t, plain), readAll(t, fresh)
			if len(got) != n || len(want) != n {
				t.Fatalf("read %d fresh rows and %d plain, want %d", len(got), len(want), n)
			}
			for r := range want {
				for i := range want[r] {
					if got[r][i] != want[r][i] {
						t.Fatalf("row %d column %d: %#v, want %#v", r, i, got[r][i], want[r][i])
					}
				}
			}
		})
	}
}

func open(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open("noop", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// readAll scans every row into *any values and keeps them all.
func readAll(t *testing.T, db *sql.DB) [][]any {
	t.Helper()
	rs, err := db.Query("SELECT")
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	cols, err := rs.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var out [][]any
	for rs.Next() {
		row := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range row {
			ptrs[i] = &row[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		out = append(out, row)
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
