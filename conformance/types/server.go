package types

import (
	"database/sql"
	"fmt"
	"strings"

	_ "github.com/chnative/chnative" // the "chnative" database/sql driver
)

// DefaultNoServer is the server check's reason when a case has neither Server nor NoServer.
const DefaultNoServer = "18.16 lacks it"

// RunServer fills r.Server: the values decoded from chDB are inserted through the driver into a
// table on the real server (database/sql prepared insert in a transaction), selected back and
// compared in canonical form with chDB's text. db nil means no server: the check is NotRun.
func RunServer(db *sql.DB, r *Result, table string) {
	k := r.Case
	switch {
	case !k.Server && k.NoServer != "":
		r.Server = na(k.NoServer)
		return
	case !k.Server:
		r.Server = na(DefaultNoServer)
		return
	case db == nil:
		r.Server = notRun("no server (CHNATIVE_DSN not set)")
		return
	case r.Decode.State != Pass:
		r.Server = notRun("decode failed")
		return
	}
	r.Server = serverRoundTrip(db, r, table)
}

func serverRoundTrip(db *sql.DB, r *Result, table string) Check {
	if _, err := db.Exec("DROP TABLE IF EXISTS " + table); err != nil {
		return failErr("drop", err)
	}
	if _, err := db.Exec(fmt.Sprintf("CREATE TABLE %s (i UInt32, v %s) ENGINE = Memory", table, r.Case.Type)); err != nil {
		return failErr("create table", err)
	}
	defer db.Exec("DROP TABLE IF EXISTS " + table)

	tx, err := db.Begin()
	if err != nil {
		return failErr("begin", err)
	}
	st, err := tx.Prepare(fmt.Sprintf("INSERT INTO %s (i, v) VALUES (?, ?)", table))
	if err != nil {
		tx.Rollback()
		return failErr("prepare insert", err)
	}
	for i, v := range r.values {
		if _, err := st.Exec(uint32(i), v); err != nil {
			st.Close()
			tx.Rollback()
			return fail("insert row %d (%s, Go %T): %v", i, r.Case.Values[i], v, err)
		}
	}
	if err := st.Close(); err != nil {
		tx.Rollback()
		return failErr("close insert", err)
	}
	if err := tx.Commit(); err != nil {
		return failErr("commit", err)
	}

	rows, err := db.Query(fmt.Sprintf("SELECT v FROM %s ORDER BY i", table))
	if err != nil {
		return failErr("select", err)
	}
	defer rows.Close()
	cts, err := rows.ColumnTypes()
	if err != nil {
		return failErr("column types", err)
	}
	typ := cts[0].DatabaseTypeName()
	var got []string
	for rows.Next() {
		var v any
		if err := rows.Scan(&v); err != nil {
			return failErr("scan", err)
		}
		s, err := Canonical(typ, v)
		if err != nil {
			s = "canonical: " + err.Error()
		}
		got = append(got, s)
	}
	if err := rows.Err(); err != nil {
		return failErr("rows", err)
	}
	if len(got) != len(r.want) {
		return fail("selected %d rows, want %d", len(got), len(r.want))
	}
	var diff []string
	for i := range got {
		if got[i] != r.want[i] {
			diff = append(diff, fmt.Sprintf("row %d (%s): server %s, chDB %s", i, r.Case.Values[i], clip(got[i]), clip(r.want[i])))
		}
	}
	if len(diff) > 0 {
		return fail("%d of %d values differ: %s", len(diff), len(got), strings.Join(diff, "; "))
	}
	return pass()
}
