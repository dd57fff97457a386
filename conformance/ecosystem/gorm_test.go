package ecosystem

import (
	"testing"
	"time"

	gormch "gorm.io/driver/clickhouse"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

// gormUser has only types ClickHouse 18.16 has (GORM maps time.Time to DateTime64(3), which it
// lacks). The table name is set per test.
type gormUser struct {
	ID    uint64 `gorm:"primaryKey"`
	Name  string
	Ok    bool
	Score float64
	Note  *string `gorm:"type:Nullable(String)"` // the dialect maps *T to T: name the type
}

// TestGORM uses GORM's ClickHouse dialect over a chnative *sql.DB. The dialect imports
// clickhouse-go, which registers "clickhouse"; chnative registers "chnative", so both link.
func TestGORM(t *testing.T) {
	db := openDB(t)
	gdb, err := gorm.Open(gormch.New(gormch.Config{Conn: db}), &gorm.Config{Logger: logger.Discard})
	if err != nil {
		t.Fatal(err)
	}
	table := tableName("gorm")
	dropLater(t, db, table)
	tdb := func() *gorm.DB { return gdb.Table(table) }

	if err := tdb().AutoMigrate(&gormUser{}); err != nil {
		t.Fatal(err)
	}
	if !gdb.Migrator().HasTable(table) {
		t.Fatal("HasTable: false after AutoMigrate")
	}
	// AutoMigrate again is a no-op on an existing table (reads ColumnTypes).
	if err := tdb().AutoMigrate(&gormUser{}); err != nil {
		t.Fatal("second AutoMigrate:", err)
	}

	note := "n"
	users := []gormUser{{1, "a", true, 1.5, nil}, {2, "b", false, 2.5, &note}, {3, "c", true, 3.5, nil}}
	if err := tdb().Create(&users).Error; err != nil {
		t.Fatal(err)
	}
	var n int64
	if err := tdb().Count(&n).Error; err != nil || n != 3 {
		t.Fatalf("Count: %d %v", n, err)
	}
	// GORM's Create is Begin, Prepare(INSERT ... VALUES (?, ...)), Exec per row, Commit: chnative
	// sends the rows as one native insert, so the table has one part.
	var parts uint64
	if err := db.QueryRow("SELECT count() FROM system.parts WHERE database = currentDatabase() AND table = ? AND active", table).Scan(&parts); err != nil || parts != 1 {
		t.Fatalf("%d parts (want 1: one insert), %v", parts, err)
	}

	var u gormUser
	if err := tdb().First(&u, "id = ?", 2).Error; err != nil || u.Name != "b" || u.Note == nil || *u.Note != "n" || u.Ok {
		t.Fatalf("First: %+v %v", u, err)
	}
	var found []gormUser
	if err := tdb().Where("ok = ? AND score > ?", true, 2).Order("id").Find(&found).Error; err != nil || len(found) != 1 || found[0].ID != 3 {
		t.Fatalf("Where: %+v %v", found, err)
	}

	cts, err := gdb.Migrator().ColumnTypes(table)
	if err != nil {
		t.Fatal(err)
	}
	types := map[string]string{}
	for _, ct := range cts {
		types[ct.Name()] = ct.DatabaseTypeName()
	}
	if types["id"] != "UInt64" || types["name"] != "String" || types["ok"] != "Bool" && types["ok"] != "UInt8" || types["note"] != "Nullable(String)" {
		t.Fatalf("ColumnTypes: %v", types)
	}
	if nullable, ok := cts[len(cts)-1].Nullable(); !ok || !nullable {
		t.Fatalf("note Nullable() = %v, %v", nullable, ok)
	}
}

// TestGORMUpdateLocalTable: with the DSN beside Conn (the README's form), the dialect knows the
// hosts, and an Update with clickhouse.UpdateLocalTable{Suffix: "_local"} runs on each host's
// _local table (through clickhouse-go's own connection, which the dialect opens); with Conn alone
// the clause is dropped and the UPDATE reaches the table named.
func TestGORMUpdateLocalTable(t *testing.T) {
	db := openDB(t)
	table := tableName("gormupd")
	for _, name := range []string{table, table + "_local"} {
		exec(t, db, "CREATE TABLE "+name+" (id UInt64, name String) ENGINE = MergeTree ORDER BY id")
		dropLater(t, db, name)
		exec(t, db, "INSERT INTO "+name+" VALUES (1, 'a')")
	}
	// names waits (an ALTER UPDATE is a mutation, applied after it returns) for want, at most 10 s.
	names := func(want string) string {
		var a, b string
		for start := time.Now(); time.Since(start) < 10*time.Second; time.Sleep(20 * time.Millisecond) {
			if err := db.QueryRow("SELECT (SELECT any(name) FROM "+table+"), (SELECT any(name) FROM "+table+"_local)").Scan(&a, &b); err != nil {
				t.Fatal(err)
			}
			if a+" "+b == want {
				break
			}
		}
		return a + " " + b
	}
	update := func(cfg gormch.Config, name string) {
		gdb, err := gorm.Open(gormch.New(cfg), &gorm.Config{Logger: logger.Discard})
		if err != nil {
			t.Fatal(err)
		}
		err = gdb.Table(table).Clauses(gormch.UpdateLocalTable{Suffix: "_local"}).Where("id = ?", 1).Update("name", name).Error
		if err != nil {
			t.Fatal(err)
		}
	}
	update(gormch.Config{Conn: db}, "conn")
	if got := names("conn a"); got != "conn a" {
		t.Fatalf("Conn alone: %q, want the UPDATE on the table named", got)
	}
	update(gormch.Config{Conn: db, DSN: dsn(t)}, "dsn")
	if got := names("conn dsn"); got != "conn dsn" {
		t.Fatalf("Conn and DSN: %q, want the UPDATE on %s_local", got, table)
	}
}
