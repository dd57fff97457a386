package ecosystem

import (
	"context"
	"errors"
	"testing"
	"testing/fstest"

	"github.com/golang-migrate/migrate/v4"
	chmigrate "github.com/golang-migrate/migrate/v4/database/clickhouse"
	"github.com/golang-migrate/migrate/v4/source/iofs"
	"github.com/pressly/goose/v3"
)

// TestGolangMigrate runs golang-migrate's ClickHouse driver over a chnative *sql.DB
// (WithInstance: its URL form calls sql.Open("clickhouse", ...), see README).
func TestGolangMigrate(t *testing.T) {
	db := openDB(t)
	t1, t2, vt := tableName("mig_a"), tableName("mig_b"), tableName("mig_versions")
	for _, tb := range []string{t1, t2, vt} {
		dropLater(t, db, tb)
	}
	fsys := fstest.MapFS{
		"m/1_a.up.sql":   {Data: []byte("CREATE TABLE " + t1 + " (x UInt8) ENGINE = Memory")},
		"m/1_a.down.sql": {Data: []byte("DROP TABLE " + t1)},
		// Several statements in one file, split by the driver (MultiStatementEnabled).
		"m/2_b.up.sql":   {Data: []byte("CREATE TABLE " + t2 + " (s String) ENGINE = TinyLog;\nINSERT INTO " + t1 + " VALUES (7);")},
		"m/2_b.down.sql": {Data: []byte("DROP TABLE " + t2 + ";")},
	}
	src, err := iofs.New(fsys, "m")
	if err != nil {
		t.Fatal(err)
	}
	drv, err := chmigrate.WithInstance(db, &chmigrate.Config{MigrationsTable: vt, MultiStatementEnabled: true})
	if err != nil {
		t.Fatal(err)
	}
	m, err := migrate.NewWithInstance("iofs", src, "clickhouse", drv)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Up(); err != nil {
		t.Fatal("Up:", err)
	}
	v, dirty, err := m.Version()
	if err != nil || v != 2 || dirty {
		t.Fatalf("Version: %d %v %v", v, dirty, err)
	}
	var x uint8
	if err := db.QueryRow("SELECT x FROM " + t1).Scan(&x); err != nil || x != 7 {
		t.Fatal(x, err)
	}
	if err := m.Up(); !errors.Is(err, migrate.ErrNoChange) {
		t.Fatalf("second Up: %v", err)
	}
	if err := m.Steps(-1); err != nil {
		t.Fatal("Steps(-1):", err)
	}
	if v, _, err := m.Version(); err != nil || v != 1 {
		t.Fatalf("Version after one down: %d %v", v, err)
	}
	if err := m.Down(); err != nil {
		t.Fatal("Down:", err)
	}
	if _, _, err := m.Version(); !errors.Is(err, migrate.ErrNilVersion) {
		t.Fatalf("Version after Down: %v", err)
	}
	var n uint64
	if err := db.QueryRow("SELECT count() FROM system.tables WHERE database = currentDatabase() AND name IN (?, ?)", t1, t2).Scan(&n); err != nil || n != 0 {
		t.Fatalf("tables left after Down: %d %v", n, err)
	}
}

// TestGoose runs goose's ClickHouse dialect (which binds $1, $2) over a chnative *sql.DB.
func TestGoose(t *testing.T) {
	db := openDB(t)
	t1, vt := tableName("goose_a"), tableName("goose_versions")
	dropLater(t, db, t1)
	dropLater(t, db, vt)
	fsys := fstest.MapFS{
		"00001_a.sql": {Data: []byte("-- +goose Up\nCREATE TABLE " + t1 + " (x UInt8) ENGINE = Memory;\n-- +goose Down\nDROP TABLE " + t1 + ";\n")},
		"00002_b.sql": {Data: []byte("-- +goose NO TRANSACTION\n-- +goose Up\nINSERT INTO " + t1 + " VALUES (5);\n-- +goose Down\nSELECT 1;\n")},
	}
	p, err := goose.NewProvider(goose.DialectClickHouse, db, fsys, goose.WithTableName(vt))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	res, err := p.Up(ctx)
	if err != nil {
		t.Fatal("Up:", err)
	}
	if len(res) != 2 {
		t.Fatalf("Up applied %d migrations", len(res))
	}
	v, err := p.GetDBVersion(ctx)
	if err != nil || v != 2 {
		t.Fatalf("GetDBVersion: %d %v", v, err)
	}
	var x uint8
	if err := db.QueryRow("SELECT x FROM " + t1).Scan(&x); err != nil || x != 5 {
		t.Fatal(x, err)
	}
	st, err := p.Status(ctx)
	if err != nil || len(st) != 2 || st[1].State != goose.StateApplied {
		t.Fatalf("Status: %+v %v", st, err)
	}
	// Down runs ALTER TABLE ... DELETE ... SETTINGS mutations_sync = 2, a setting ClickHouse 19.x
	// added: on older servers it fails with the server's "Unknown setting" error.
	var hasSync uint64
	if err := db.QueryRow("SELECT count() FROM system.settings WHERE name = 'mutations_sync'").Scan(&hasSync); err != nil {
		t.Fatal(err)
	}
	_, err = p.Down(ctx)
	if hasSync == 0 {
		if err == nil {
			t.Fatal("Down succeeded on a server without mutations_sync")
		}
		t.Logf("Down on this server: %v (expected: no mutations_sync)", err)
		return
	}
	if err != nil {
		t.Fatal("Down:", err)
	}
	if v, err := p.GetDBVersion(ctx); err != nil || v != 1 {
		t.Fatalf("GetDBVersion after Down: %d %v", v, err)
	}
}
