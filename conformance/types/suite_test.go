package types

import (
	"database/sql"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/chnative/chnative/conformance/chdb"
	"github.com/chnative/chnative/internal/testenv"
	"github.com/chnative/chnative/nativeproto"
)

var update = flag.Bool("update", false, "rewrite conformance/TYPES.md")

// typesMD is conformance/TYPES.md, relative to this package.
var typesMD = filepath.Join("..", "TYPES.md")

func TestMain(m *testing.M) {
	code := m.Run()
	if err := chdb.CloseShared(); err != nil {
		println("chdb: CloseShared:", err.Error())
	}
	os.Exit(code)
}

// TestTypes runs every case against chDB and the test server, writes or checks TYPES.md, and
// fails if any check of any type fails.
func TestTypes(t *testing.T) {
	eng := chdb.ForTest(t)
	rep := &Report{Engine: version(t, eng)}
	db := openServer(t)
	if db != nil {
		if err := db.QueryRow("SELECT version()").Scan(&rep.Server); err != nil {
			t.Fatalf("server version: %v", err)
		}
		if !strings.HasPrefix(rep.Server, "18.16.") {
			t.Fatalf("%s names ClickHouse %s: the suite's server column is 18.16's (26.7 comes from %s)",
				testenv.EnvDSN, rep.Server, testenv.EnvModernDSN)
		}
	}
	modern := openModern(t)
	for _, m := range modern {
		rep.Modern = append(rep.Modern, m.Label)
		if rep.ModernServer == "" {
			if err := m.DB.QueryRow("SELECT version()").Scan(&rep.ModernServer); err != nil {
				t.Fatalf("26.7 server version: %v", err)
			}
		}
	}
	dir := t.TempDir()
	for i, k := range AllCases() {
		t.Run(k.Type, func(t *testing.T) {
			r := Run(eng, k, dir)
			RunServer(db, r, "conformance_types_"+itoa(i))
			for j, m := range modern {
				r.Modern = append(r.Modern, RunModern(m, k, "conformance_types_"+itoa(i)+"_m"+itoa(j)))
			}
			rep.Results = append(rep.Results, r)
			for _, f := range (&Report{Modern: rep.Modern, Results: []*Result{r}}).Failures() {
				t.Error(f)
			}
		})
	}

	md := rep.Markdown()
	switch {
	case *update || os.Getenv("CHNATIVE_WRITE_TYPES_MD") == "1":
		if db == nil || len(modern) == 0 {
			t.Fatalf("cannot write %s without both servers (CHNATIVE_DSN, CHNATIVE_MODERN_DSN)", typesMD)
		}
		if err := os.WriteFile(typesMD, []byte(md), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", typesMD)
	case db == nil || len(modern) == 0:
		t.Logf("a server is missing: %s not compared", typesMD)
	default:
		old, err := os.ReadFile(typesMD)
		switch {
		case err != nil:
			t.Errorf("%v; generate it: %s", err, RegenerateCommand)
		case string(old) != md:
			t.Errorf("%s is stale; regenerate: %s", typesMD, RegenerateCommand)
		}
	}
	if f := rep.Failures(); len(f) > 0 {
		t.Errorf("%d checks fail:\n%s", len(f), strings.Join(f, "\n"))
	}
}

func version(t *testing.T, e *chdb.Engine) string {
	out, err := e.Query("SELECT version()", "TabSeparated")
	if err != nil {
		t.Fatalf("chDB version: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// openServer returns the test server, or nil outside CI when CHNATIVE_DSN is not set.
func openServer(t *testing.T) *sql.DB {
	if os.Getenv(testenv.EnvDSN) == "" && !testenv.CI() {
		return nil
	}
	db, err := sql.Open("chnative", testenv.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// openModern returns the runs of the 26.7 round trip, one per protocol revision, lowest first:
// the driver's default (nativeproto.ClientRevision), the last before sparse columns (54460: the
// server sends every column in full) and the newest the driver speaks (nativeproto.LatestRevision:
// the server may send sparse and replicated columns), through the protocol_revision DSN key.
// Without CHNATIVE_MODERN_DSN it returns none outside CI and fails in CI.
func openModern(t *testing.T) []*Modern {
	dsn, httpURL := os.Getenv(testenv.EnvModernDSN), os.Getenv(testenv.EnvModernHTTPURL)
	if dsn == "" || httpURL == "" {
		if testenv.CI() {
			t.Fatalf("%s and %s must be set in CI (scripts/modern.sh env)", testenv.EnvModernDSN, testenv.EnvModernHTTPURL)
		}
		return nil
	}
	var out []*Modern
	seen := map[uint64]bool{}
	revKey := func(r nativeproto.Revision) [][2]string {
		return [][2]string{{"protocol_revision", strconv.FormatUint(uint64(r), 10)}}
	}
	for _, extra := range [][][2]string{nil, revKey(nativeproto.RevServerQueryTimeInProgress), revKey(nativeproto.LatestRevision)} {
		d, err := ModernDSN(dsn, extra...)
		if err != nil {
			t.Fatalf("%s: %v", testenv.EnvModernDSN, err)
		}
		m, err := OpenModern("", d, httpURL)
		if err != nil {
			t.Fatalf("26.7 server (%v): %v", extra, err)
		}
		t.Cleanup(func() { m.DB.Close() })
		if seen[m.Revision] {
			continue
		}
		seen[m.Revision] = true
		m.Label = "26.7 @" + strconv.FormatUint(m.Revision, 10)
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Revision < out[j].Revision })
	return out
}
