package chnative

import (
	"database/sql"
	"strings"
	"testing"

	"github.com/chnative/chnative/internal/testenv"
)

// TestDSNToolKeysIgnoredServer: the x- keys golang-migrate puts in the URL it hands sql.Open
// are ignored, not sent as settings (which the server would refuse at the first query).
func TestDSNToolKeysIgnoredServer(t *testing.T) {
	dsn := testenv.DSN(t)
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	db, err := sql.Open("chnative", dsn+sep+"x-multi-statement=true&x-migrations-table=v39_migrations&x-cluster-name=")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow("SELECT 1").Scan(&n); err != nil || n != 1 {
		t.Fatalf("SELECT 1 with x- keys in the DSN: %d, %v", n, err)
	}
}
