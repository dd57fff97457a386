package ecosystem

import (
	"context"
	"database/sql"
	"fmt"
	"regexp"
	"strings"
	"testing"

	_ "github.com/ClickHouse/clickhouse-go/v2" // registers "clickhouse", for the comparison
)

// clientNameSeen returns the client name the server records for a running query of db.
func clientNameSeen(t *testing.T, db *sql.DB, tag string) string {
	t.Helper()
	var name string
	marker := fmt.Sprintf("client_info_%s_%d", tag, seq.Add(1))
	q := "SELECT client_name FROM system.processes WHERE query LIKE '%" + marker + "%'" // this query itself
	if err := db.QueryRowContext(context.Background(), q).Scan(&name); err != nil {
		t.Fatalf("%s: %v", tag, err)
	}
	return name
}

// driverEntry is a driver's own entry in a client name: "name/1.2.3".
var driverEntry = regexp.MustCompile(`\b(chnative|clickhouse-go)/\d+\.\d+\.\d+ `)

// TestClientInfoProductLikeClickhouseGo opens the same DSN with client_info_product through
// chnative and clickhouse-go and compares the client names the server records: the same
// products in the same order before the driver's own entry, and the same "(database/sql;
// lv:go/...; os:...)" comment after it; only the driver's name and version differ.
func TestClientInfoProductLikeClickhouseGo(t *testing.T) {
	d := dsn(t) + "?client_info_product=myapp/1.2,lib/0.3"
	if strings.Contains(dsn(t), "?") {
		d = dsn(t) + "&client_info_product=myapp/1.2,lib/0.3"
	}
	names := map[string]string{}
	for _, drv := range []string{"chnative", "clickhouse"} {
		db, err := sql.Open(drv, d)
		if err != nil {
			t.Fatal(err)
		}
		names[drv] = clientNameSeen(t, db, drv)
		db.Close()
	}
	ours, theirs := names["chnative"], names["clickhouse"]
	if !strings.HasPrefix(ours, "myapp/1.2 lib/0.3 chnative/") || !strings.HasPrefix(theirs, "myapp/1.2 lib/0.3 clickhouse-go/") {
		t.Fatalf("client names: chnative %q, clickhouse-go %q", ours, theirs)
	}
	if a, b := driverEntry.ReplaceAllString(ours, "DRIVER "), driverEntry.ReplaceAllString(theirs, "DRIVER "); a != b {
		t.Fatalf("client names differ beyond the driver entry: chnative %q, clickhouse-go %q", ours, theirs)
	}
}
