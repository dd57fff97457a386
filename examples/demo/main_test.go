package main

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	_ "github.com/chnative/chnative"
	"github.com/chnative/chnative/internal/testenv"
)

// envChild makes the test binary run the demo's main instead of the tests (TestDemo runs it so,
// with the demo's own flags, as `go run ./examples/demo` would).
const envChild = "CHNATIVE_DEMO_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(envChild) == "1" {
		main() // exits 1 on failure
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestDemo runs the demo against the test server (both insert paths, both read paths, its own
// checks of row counts and checksums), on a smaller table than its default million rows, with
// and without compression.
func TestDemo(t *testing.T) {
	dsn := testenv.DSN(t)
	server := testenv.Server(t)
	db, err := sql.Open("chnative", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, comp := range []string{"none", "lz4"} {
		t.Run(comp, func(t *testing.T) {
			name := fmt.Sprintf("chnative_demo_test_%d_%s", time.Now().UnixNano(), comp)
			t.Cleanup(func() { _, _ = db.Exec("DROP TABLE IF EXISTS " + name) })
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, os.Args[0], "-dsn", dsn, "-rows", "30000", "-compress", comp, "-table", name)
			cmd.Env = append(os.Environ(), envChild+"=1")
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("demo: %v\n%s", err, out)
			}
			t.Logf("%s", out)
			words := strings.Join(strings.Fields(string(out)), " ")
			for _, want := range []string{
				"server ClickHouse " + server.String() + ".",
				"compress=" + comp,
				"insert database/sql 30000 rows",
				"insert Batch 30000 rows",
				"select database/sql 30000 rows",
				"select QueryBlocks 30000 rows",
				"all row counts and checksums match",
			} {
				if !strings.Contains(words, want) {
					t.Errorf("demo output has no %q", want)
				}
			}
			var n int
			if err := db.QueryRow("SELECT count() FROM " + name).Scan(&n); err != nil || n != 30000 {
				t.Fatalf("the demo's table %s has %d rows (%v), want 30000", name, n, err)
			}
		})
	}
}
