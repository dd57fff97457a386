package ecosystem

import (
	"testing"

	"github.com/jmoiron/sqlx"
)

type sqlxRow struct {
	ID    uint64  `db:"id"`
	Name  string  `db:"name"`
	Score float64 `db:"score"`
	Note  *string `db:"note"`
}

func TestSQLX(t *testing.T) {
	db := sqlx.NewDb(openDB(t), "clickhouse") // the name only picks sqlx's bind style: ? for unknown
	table := tableName("sqlx")
	exec(t, db.DB, "CREATE TABLE "+table+" (id UInt64, name String, score Float64, note Nullable(String)) ENGINE = Memory")
	dropLater(t, db.DB, table)

	// NamedExec with a slice: sqlx expands it to VALUES (?, ?, ?, ?), (?, ?, ?, ?), ... and
	// chnative sends all rows as one native insert.
	note := "it's \\ tricky"
	in := []sqlxRow{{1, "a", 1.5, nil}, {2, "b", 2.5, &note}, {3, "c", 3.5, nil}}
	res, err := db.NamedExec("INSERT INTO "+table+" (id, name, score, note) VALUES (:id, :name, :score, :note)", in)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 3 {
		t.Fatalf("rows affected %d", n)
	}
	// One insert: a Memory table keeps each inserted block, so all rows are in one block of 3.
	var sizes []uint64
	if err := db.Select(&sizes, "SELECT blockSize() FROM "+table); err != nil || len(sizes) != 3 || sizes[0] != 3 {
		t.Fatalf("block sizes %v (want one block of 3 rows) %v", sizes, err)
	}

	var rows []sqlxRow
	if err := db.Select(&rows, "SELECT id, name, score, note FROM "+table+" ORDER BY id"); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 || rows[1].Note == nil || *rows[1].Note != note || rows[0].Note != nil || rows[2].Score != 3.5 {
		t.Fatalf("Select: %+v", rows)
	}

	var one sqlxRow
	if err := db.Get(&one, "SELECT id, name, score, note FROM "+table+" WHERE id = ?", 2); err != nil || one.Name != "b" {
		t.Fatalf("Get: %+v %v", one, err)
	}
	var v int
	if err := db.Get(&v, "SELECT ? + 1", 41); err != nil || v != 42 {
		t.Fatalf("Get: %d %v", v, err)
	}

	// NamedQuery round-trips an awkward string.
	awkward := "a'b\\c\n--d"
	nr, err := db.NamedQuery("SELECT :x AS x", map[string]any{"x": awkward})
	if err != nil {
		t.Fatal(err)
	}
	var got string
	for nr.Next() {
		if err := nr.Scan(&got); err != nil {
			t.Fatal(err)
		}
	}
	nr.Close()
	if got != awkward {
		t.Fatalf("NamedQuery: %q", got)
	}

	// sqlx.In expands a slice into ?, ?, ?.
	q, args, err := sqlx.In("SELECT name FROM "+table+" WHERE id IN (?) ORDER BY id", []uint64{1, 3})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	if err := db.Select(&names, db.Rebind(q), args...); err != nil || len(names) != 2 || names[1] != "c" {
		t.Fatalf("In: %v %v", names, err)
	}

	// Preparex works for SELECT (clickhouse-go#1203).
	st, err := db.Preparex("SELECT name FROM " + table + " WHERE id = ?")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for id, want := range map[int]string{1: "a", 3: "c"} {
		var name string
		if err := st.Get(&name, id); err != nil || name != want {
			t.Fatalf("Preparex Get(%d): %q %v", id, name, err)
		}
	}
	// PrepareNamed too.
	ns, err := db.PrepareNamed("SELECT count() FROM " + table + " WHERE score > :min")
	if err != nil {
		t.Fatal(err)
	}
	defer ns.Close()
	var cnt uint64
	if err := ns.Get(&cnt, map[string]any{"min": 2.0}); err != nil || cnt != 2 {
		t.Fatalf("PrepareNamed: %d %v", cnt, err)
	}
	// MapScan.
	m := map[string]any{}
	if err := db.QueryRowx("SELECT id, name FROM " + table + " WHERE id = 1").MapScan(m); err != nil || m["name"] != "a" || m["id"] != uint64(1) {
		t.Fatalf("MapScan: %v %v", m, err)
	}
}
