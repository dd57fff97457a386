package chnative

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chnative/chnative/columns"
)

type structRow struct {
	ID    uint64    `ch:"id"`
	Name  string    `db:"name"`
	Value float64   // matched by name
	TS    time.Time `ch:"ts"`
	Note  *string   `ch:"note"`
	Tags  []uint32  `ch:"tags"`
	Kind  string    `ch:"kind"`
	Skip  int       `ch:"-"`
}

func TestSelectStructs(t *testing.T) {
	db := openDB(t)
	table := createTable(t, db, "structs", roundTripColumns)
	const n = 25_000
	insertPrepared(t, db, table, n)
	ctx := context.Background()
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var got []structRow
	err = c.Raw(func(dc any) error {
		var err error
		got, err = Select[structRow](ctx, dc.(Conn), "SELECT id, name, value, ts, note, tags, kind FROM "+table+" ORDER BY id")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != n {
		t.Fatalf("%d rows, want %d", len(got), n)
	}
	for i, r := range got {
		compareRow(t, "structs", i, rtRow{id: r.ID, name: r.Name, value: r.Value, ts: r.TS, note: r.Note, tags: r.Tags, kind: r.Kind})
	}
	// A column with no field is an error naming it.
	err = c.Raw(func(dc any) error {
		_, err := Select[structRow](ctx, dc.(Conn), "SELECT 1 AS nope")
		return err
	})
	if err == nil {
		t.Fatal("no error for a column without a field")
	}
	// The connection is still usable.
	var one int
	if err := c.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil {
		t.Fatal(err)
	}
	_ = sql.ErrNoRows
}

type myU64 uint64

type fastRow struct {
	N   myU64           `ch:"n"`
	FS  string          `ch:"fs"`
	E   string          `ch:"e"`
	D   time.Time       `ch:"d"`
	U   [16]byte        `ch:"u"`
	Dec columns.Decimal `ch:"dec"`
	D9  columns.Decimal `ch:"d9"`
	AS  []string        `ch:"as"`
	AU  []uint64        `ch:"au"`
	NI  *int64          `ch:"ni"`
	NS  *string         `ch:"ns"`
	B   []byte          `ch:"b"`
	S   string          `ch:"s"`
	LC  string          `ch:"lc"`
}

// The struct tier's fast paths (no reflection per row) give what the values are, across blocks;
// strings, slices and pointers stay intact after later blocks and another query on the connection.
func TestSelectStructsFastPaths(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	const n = 3000
	q := "SELECT number AS n, toFixedString(toString(number % 100), 4) AS fs, " +
		"CAST(number % 2 + 1 AS Enum8('a' = 1, 'b' = 2)) AS e, toDate('2020-01-01') + number AS d, " +
		"toUUID('01234567-89ab-cdef-0123-456789abcdef') AS u, toDecimal64(number, 4) - 500 AS dec, " +
		"toDecimal32(number, 2) AS d9, [toString(number), ''] AS as, arrayMap(x -> toUInt64(x), range(number % 4)) AS au, " +
		"if(number % 3 = 0, NULL, toInt64(number) - 100) AS ni, if(number % 5 = 0, NULL, toString(number)) AS ns, " +
		"toString(number * 7) AS b, if(number % 11 = 0, '', concat('s', toString(number))) AS s, " +
		"toLowCardinality(toString(number % 13)) AS lc " +
		"FROM system.numbers LIMIT 3000 SETTINGS max_block_size = 700"
	var got []fastRow
	if err := c.Raw(func(dc any) error {
		var err error
		got, err = Select[fastRow](ctx, dc.(Conn), q)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	var again []fastRow
	if err := c.Raw(func(dc any) error {
		return ScanStructs(ctx, dc.(Conn), q, nil, func(rows []fastRow) error {
			again = append(again, rows...)
			return nil
		})
	}); err != nil {
		t.Fatal(err)
	}
	// Another query on the same connection: its blocks reuse the column buffers.
	if _, err := c.ExecContext(ctx, "SELECT toString(number) FROM system.numbers LIMIT 5000"); err != nil {
		t.Fatal(err)
	}
	if len(got) != n || len(again) != n {
		t.Fatalf("%d and %d rows, want %d", len(got), len(again), n)
	}
	day0 := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	uuid, _ := columns.ParseUUID("01234567-89ab-cdef-0123-456789abcdef")
	for _, rows := range [][]fastRow{got, again} {
		for i, r := range rows {
			fail := func(what string, v any) { t.Fatalf("row %d: %s = %v", i, what, v) }
			if r.N != myU64(i) {
				fail("n", r.N)
			}
			if want := strconv.Itoa(i % 100); r.FS != want+strings.Repeat("\x00", 4-len(want)) {
				fail("fs", r.FS)
			}
			if r.E != map[bool]string{true: "a", false: "b"}[i%2 == 0] {
				fail("e", r.E)
			}
			if !r.D.Equal(day0.AddDate(0, 0, i)) || r.D.Location() != time.UTC {
				fail("d", r.D)
			}
			if r.U != uuid {
				fail("u", r.U)
			}
			if r.Dec.String() != strconv.Itoa(i-500)+".0000" || r.D9.String() != strconv.Itoa(i)+".00" {
				fail("dec", []string{r.Dec.String(), r.D9.String()})
			}
			if len(r.AS) != 2 || r.AS[0] != strconv.Itoa(i) || r.AS[1] != "" || cap(r.AS) != 2 {
				fail("as", r.AS)
			}
			if len(r.AU) != i%4 || r.AU == nil {
				fail("au", r.AU)
			}
			for j, v := range r.AU {
				if v != uint64(j) {
					fail("au", r.AU)
				}
			}
			if (r.NI == nil) != (i%3 == 0) || r.NI != nil && *r.NI != int64(i)-100 {
				fail("ni", r.NI)
			}
			if (r.NS == nil) != (i%5 == 0) || r.NS != nil && *r.NS != strconv.Itoa(i) {
				fail("ns", r.NS)
			}
			if string(r.B) != strconv.Itoa(i*7) || cap(r.B) != len(r.B) {
				fail("b", r.B)
			}
			if want := "s" + strconv.Itoa(i); i%11 == 0 && r.S != "" || i%11 != 0 && r.S != want {
				fail("s", r.S)
			}
			if r.LC != strconv.Itoa(i%13) {
				fail("lc", r.LC)
			}
		}
	}
	// []byte fields belong to the caller: writing one changes no other row.
	for i := range got {
		for j := range got[i].B {
			got[i].B[j] = 'x'
		}
	}
	for i, r := range again {
		if string(r.B) != strconv.Itoa(i*7) {
			t.Fatalf("row %d: b = %q after writing the other result's", i, r.B)
		}
	}
}
