package bench

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"testing"

	"github.com/ClickHouse/ch-go"
	"github.com/ClickHouse/ch-go/proto"

	"github.com/chnative/chnative"
	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/conformance/bench/fakeserver"
	"github.com/chnative/chnative/conformance/bench/rawreader"
)

// insertData is the source of the insert workloads: (id UInt64, name String, val Float64), and
// the same rows as structs and as boxed rows for the struct and row-wise Append arms (built on
// first use).
type insertData struct {
	ids   []uint64
	names []string
	vals  []float64

	structsOnce sync.Once
	structRows  []insertStruct
	boxedOnce   sync.Once
	boxedRows   [][]any
}

// insertStruct is a row of the insert workload as a struct, for the struct arms.
type insertStruct struct {
	ID   uint64  `ch:"id"`
	Name string  `ch:"name"`
	Val  float64 `ch:"val"`
}

func (d *insertData) structs() []insertStruct {
	d.structsOnce.Do(func() {
		d.structRows = make([]insertStruct, len(d.ids))
		for i := range d.structRows {
			d.structRows[i] = insertStruct{ID: d.ids[i], Name: d.names[i], Val: d.vals[i]}
		}
	})
	return d.structRows
}

// boxed is the insert workload as rows of boxed values, built once before any measurement: the
// source of the row-wise Append arms, as a caller holding rows from a decoder, a channel or a
// []any-based API has them. Those arms then measure each driver's Append. The "-boxing" arms box
// the three values inside the loop instead, which costs the caller three allocations a row
// (uint64, string and float64 into any) before either driver runs.
func (d *insertData) boxed() [][]any {
	d.boxedOnce.Do(func() {
		flat := make([]any, 3*len(d.ids))
		d.boxedRows = make([][]any, len(d.ids))
		for i := range d.ids {
			row := flat[3*i : 3*i+3 : 3*i+3]
			row[0], row[1], row[2] = d.ids[i], d.names[i], d.vals[i]
			d.boxedRows[i] = row
		}
	})
	return d.boxedRows
}

// forShape returns the boxed rows for the row-wise Append shape and the structs for the struct
// shape (built on first use; nil for the other shapes).
func (d *insertData) forShape(shape string) (boxed [][]any, structs []insertStruct) {
	switch shape {
	case "append":
		boxed = d.boxed()
	case "struct":
		structs = d.structs()
	}
	return boxed, structs
}

// defaultInsertRows is the insert workloads' row count (before rowsN) unless an insertTarget
// names its own.
const defaultInsertRows = 1_000_000

var (
	insMu  sync.Mutex
	insByN = map[int]*insertData{}
)

// insertRows returns the insert workload of n rows (already scaled by rowsN), built once and kept
// until releaseInsertRows.
func insertRows(n int) *insertData {
	if raceEnabled {
		n = min(n, 10_000) // tests under -race only prove the arms work
	}
	insMu.Lock()
	defer insMu.Unlock()
	if d := insByN[n]; d != nil {
		return d
	}
	d := &insertData{ids: make([]uint64, n), names: make([]string, n), vals: make([]float64, n)}
	for i := range n {
		d.ids[i] = uint64(i)
		d.names[i] = fakeserver.Str(i)
		d.vals[i] = float64(i) * 0.25
	}
	insByN[n] = d
	return d
}

// releaseInsertRows drops the workload of n rows, so that its memory (and the GC's work marking
// it) does not weigh on the benchmarks that follow.
func releaseInsertRows(n int) {
	if raceEnabled {
		n = min(n, 10_000)
	}
	insMu.Lock()
	defer insMu.Unlock()
	delete(insByN, n)
}

// insertTarget says where to insert (the table and its column list) and how many rows.
type insertTarget struct {
	target
	table string // with database
	rows  int    // rows per insert, already scaled by rowsN; 0: rowsN(defaultInsertRows)
}

func (it insertTarget) query() string { return "INSERT INTO " + it.table + " (id, name, val)" }

// data is the workload inserted into it.
func (it insertTarget) data() *insertData {
	if it.rows > 0 {
		return insertRows(it.rows)
	}
	return insertRows(rowsN(defaultInsertRows))
}

func chnativeBatch(b *testing.B, it insertTarget, codec, shape string) {
	d := it.data()
	boxed, structs := d.forShape(shape)
	db := openChnative(b, it.addr, it.user, it.password, codec)
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	measure(b, len(d.ids), func() error {
		return conn.Raw(func(dc any) error {
			bt, err := dc.(chnative.Conn).PrepareBatch(ctx, it.query())
			if err != nil {
				return err
			}
			switch shape {
			case "columnar":
				ids := bt.Column(0).(*columns.UInt64)
				names := bt.Column(1).(*columns.String)
				vals := bt.Column(2).(*columns.Float64)
				for i := range d.ids {
					ids.Append(d.ids[i])
					names.Append(d.names[i])
					vals.Append(d.vals[i])
				}
			case "slice":
				bt.Column(0).(*columns.UInt64).AppendSlice(d.ids)
				bt.Column(1).(*columns.String).AppendStrings(d.names)
				bt.Column(2).(*columns.Float64).AppendSlice(d.vals)
			case "append":
				for _, row := range boxed {
					if err := bt.Append(row...); err != nil {
						bt.Abort()
						return err
					}
				}
			case "append-boxing":
				for i := range d.ids {
					if err := bt.Append(d.ids[i], d.names[i], d.vals[i]); err != nil {
						bt.Abort()
						return err
					}
				}
			case "struct":
				if err := chnative.AppendStructs(bt, structs); err != nil {
					bt.Abort()
					return err
				}
			}
			return bt.Send()
		})
	})
}

// sqlBatch inserts the rows of it through database/sql on db: one INSERT prepared in a
// transaction and executed once a row, sent on Commit.
func sqlBatch(b *testing.B, db *sql.DB, it insertTarget) {
	d := it.data()
	query := it.query()
	ctx := context.Background()
	measure(b, len(d.ids), func() error {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		st, err := tx.PrepareContext(ctx, query)
		if err != nil {
			return err
		}
		for i := range d.ids {
			if _, err := st.ExecContext(ctx, d.ids[i], d.names[i], d.vals[i]); err != nil {
				return err
			}
		}
		return tx.Commit()
	})
}

func clickhouseGoBatch(b *testing.B, it insertTarget, codec string, shape string) {
	d := it.data()
	boxed, structs := d.forShape(shape)
	c := openClickhouseGo(b, it.addr, it.user, it.password, codec, 1)
	ctx := context.Background()
	measure(b, len(d.ids), func() error {
		bt, err := c.PrepareBatch(ctx, it.query())
		if err != nil {
			return err
		}
		switch shape {
		case "columnar":
			if err := bt.Column(0).Append(d.ids); err != nil {
				return err
			}
			if err := bt.Column(1).Append(d.names); err != nil {
				return err
			}
			if err := bt.Column(2).Append(d.vals); err != nil {
				return err
			}
		case "append":
			for _, row := range boxed {
				if err := bt.Append(row...); err != nil {
					return err
				}
			}
		case "append-boxing":
			for i := range d.ids {
				if err := bt.Append(d.ids[i], d.names[i], d.vals[i]); err != nil {
					return err
				}
			}
		case "struct":
			for i := range structs {
				if err := bt.AppendStruct(&structs[i]); err != nil {
					return err
				}
			}
		}
		return bt.Send()
	})
}

func chgoInsert(b *testing.B, it insertTarget, codec string) {
	d := it.data()
	c := openChgo(b, it.addr, it.user, it.password, codec)
	ctx := context.Background()
	var ids proto.ColUInt64
	var names proto.ColStr
	var vals proto.ColFloat64
	measure(b, len(d.ids), func() error {
		ids = append(ids[:0], d.ids...)
		names.Reset()
		for _, s := range d.names {
			names.Append(s)
		}
		vals = append(vals[:0], d.vals...)
		input := proto.Input{{Name: "id", Data: &ids}, {Name: "name", Data: &names}, {Name: "val", Data: &vals}}
		// Not input.Into(it.table): it quotes the database-qualified name as one identifier.
		return c.Do(ctx, ch.Query{Body: it.query() + " VALUES", Input: input})
	})
}

func insertArms(b *testing.B, it insertTarget, codec string, arms ...string) {
	if len(arms) == 0 {
		arms = []string{"chnative-columnar", "chnative-slice", "chnative-append", "chnative-append-boxing", "chnative-struct",
			"chnative-sql", "noop-sql", "ch-go", "clickhouse-go-columnar", "clickhouse-go-append", "clickhouse-go-append-boxing",
			"clickhouse-go-struct", "clickhouse-go-sql"}
	}
	for _, arm := range arms {
		if !it.runs(arm) {
			continue
		}
		b.Run(arm, func(b *testing.B) {
			switch arm {
			case "chnative-columnar":
				chnativeBatch(b, it, codec, "columnar")
			case "chnative-slice":
				chnativeBatch(b, it, codec, "slice")
			case "chnative-append":
				chnativeBatch(b, it, codec, "append")
			case "chnative-append-boxing":
				chnativeBatch(b, it, codec, "append-boxing")
			case "chnative-struct":
				chnativeBatch(b, it, codec, "struct")
			case "chnative-sql":
				sqlBatch(b, openChnative(b, it.addr, it.user, it.password, codec), it)
			case "noop-sql":
				db, err := sql.Open("noop", "u64sf64:0")
				if err != nil {
					b.Fatal(err)
				}
				defer db.Close()
				sqlBatch(b, db, it)
			case "ch-go":
				chgoInsert(b, it, codec)
			case "clickhouse-go-columnar":
				clickhouseGoBatch(b, it, codec, "columnar")
			case "clickhouse-go-append":
				clickhouseGoBatch(b, it, codec, "append")
			case "clickhouse-go-append-boxing":
				clickhouseGoBatch(b, it, codec, "append-boxing")
			case "clickhouse-go-struct":
				clickhouseGoBatch(b, it, codec, "struct")
			case "clickhouse-go-sql":
				sqlBatch(b, openClickhouseGoDB(b, it.addr, it.user, it.password, codec, 1), it)
			}
		})
	}
}

// BenchmarkInsert inserts 1M (UInt64, String, Float64) rows, as one block, in each write shape:
// into the fake server, and into a Null table on 18.16 (real) and on 26.7 (modern).
func BenchmarkInsert(b *testing.B) {
	b.Run("fake", func(b *testing.B) {
		insertArms(b, insertTarget{target: fake(), table: "default.u64sf64"}, "none")
	})
	b.Run("real", func(b *testing.B) {
		t := realT(b)
		setupReal(b)
		insertArms(b, insertTarget{target: t, table: "chnative_bench.sink"}, "none")
	})
	b.Run("modern", func(b *testing.B) {
		t := modernT(b)
		setupModern(b)
		insertArms(b, insertTarget{target: t, table: "chnative_bench.sink"}, "none")
	})
}

// BenchmarkInsertCompression inserts 1M rows columnar with each codec on both sides: into the
// fake server (fake/<codec>) and into a Null table on 18.16 (real/<codec>).
//
// modern/<codec> (issue 18) inserts 10M (UInt64, String, Float64) rows into a Null table on 26.7
// as one block: columnar (chnative-slice, ch-go, clickhouse-go-columnar) and through
// database/sql's prepared batch (chnative-sql, clickhouse-go-sql). Every client compresses the
// blocks it sends with its own codec, so the codec is the same on all sides (the server's
// network_compression_method only shapes what it sends back, a few small packets here). Targets,
// with LZ4: chnative-slice's client CPU <= 0.7x ch-go's; chnative-sql >= 2x faster than
// clickhouse-go-sql. They run after the 1M-row groups, and the 10M rows are dropped at the end, so
// that their memory weighs on no other group.
func BenchmarkInsertCompression(b *testing.B) {
	codecs := []string{"none", "lz4", "zstd"}
	for _, codec := range codecs {
		b.Run("fake/"+codec, func(b *testing.B) {
			insertArms(b, insertTarget{target: fake(), table: "default.u64sf64"}, codec, "chnative-slice", "ch-go", "clickhouse-go-columnar")
		})
		b.Run("real/"+codec, func(b *testing.B) {
			t := realT(b)
			setupReal(b)
			insertArms(b, insertTarget{target: t, table: "chnative_bench.sink"}, codec, "chnative-slice", "clickhouse-go-columnar")
		})
	}
	modernRows := rowsN(10_000_000)
	b.Cleanup(func() { releaseInsertRows(modernRows) })
	for _, codec := range codecs {
		b.Run("modern/"+codec, func(b *testing.B) {
			t := modernT(b)
			setupModern(b)
			insertArms(b, insertTarget{target: t, table: "chnative_bench.sink", rows: modernRows}, codec,
				"chnative-slice", "ch-go", "clickhouse-go-columnar", "chnative-sql", "clickhouse-go-sql")
		})
	}
}

// ---- fixed costs ----

const selectOnes = 500

func selectOneArms(b *testing.B, t target) {
	ctx := context.Background()
	arms := []string{"chnative-sql", "chnative-blocks", "ch-go", "clickhouse-go", "clickhouse-go-sql", "raw", "noop"}
	for _, arm := range arms {
		if !t.runs(arm) {
			continue
		}
		b.Run(arm, func(b *testing.B) {
			var one func() error
			switch arm {
			case "chnative-sql", "clickhouse-go-sql", "noop":
				var db *sql.DB
				switch arm {
				case "chnative-sql":
					db = openChnative(b, t.addr, t.user, t.password, "none")
				case "clickhouse-go-sql":
					db = openClickhouseGoDB(b, t.addr, t.user, t.password, "none", 1)
				default:
					var err error
					if db, err = sql.Open("noop", "one:1"); err != nil {
						b.Fatal(err)
					}
					defer db.Close()
				}
				db.SetMaxOpenConns(1)
				one = func() error {
					var v uint8
					return db.QueryRowContext(ctx, "SELECT 1").Scan(&v)
				}
			case "chnative-blocks":
				db := openChnative(b, t.addr, t.user, t.password, "none")
				conn, err := db.Conn(ctx)
				if err != nil {
					b.Fatal(err)
				}
				defer conn.Close()
				one = func() error {
					return conn.Raw(func(dc any) error {
						bl, err := dc.(chnative.Conn).QueryBlocks(ctx, "SELECT 1")
						if err != nil {
							return err
						}
						for bl.Next() {
							sink.u += uint64(bl.Block().Column(0).(*columns.UInt8).Values()[0])
						}
						return bl.Close()
					})
				}
			case "ch-go":
				c := openChgo(b, t.addr, t.user, t.password, "none")
				var col proto.ColUInt8
				one = func() error {
					return c.Do(ctx, ch.Query{Body: "SELECT 1", Result: proto.Results{{Name: "1", Data: &col}}})
				}
			case "clickhouse-go":
				c := openClickhouseGo(b, t.addr, t.user, t.password, "none", 1)
				one = func() error {
					var v uint8
					return c.QueryRow(ctx, "SELECT 1").Scan(&v)
				}
			case "raw":
				c, err := rawreader.Dial(t.addr, t.user, t.password)
				if err != nil {
					b.Fatal(err)
				}
				defer c.Close()
				one = func() error {
					_, err := c.Query("SELECT 1")
					return err
				}
			}
			measure(b, selectOnes, func() error {
				for range selectOnes {
					if err := one(); err != nil {
						return err
					}
				}
				return nil
			})
		})
	}
}

// BenchmarkSelect1 runs 500 sequential SELECT 1 on a warm connection; a "row" is one query.
func BenchmarkSelect1(b *testing.B) {
	b.Run("fake", func(b *testing.B) { selectOneArms(b, fake()) })
	b.Run("real", func(b *testing.B) { selectOneArms(b, realT(b)) })
}

// BenchmarkPool runs 64 concurrent queries (1000 UInt64 rows each) over pools of width 1, 8 and
// 32; a "row" is one query.
func BenchmarkPool(b *testing.B) {
	run := func(b *testing.B, t target, query string) {
		for _, width := range []int{1, 8, 32} {
			for _, arm := range []string{"chnative-sql", "clickhouse-go-sql"} {
				b.Run(fmt.Sprintf("w%d/%s", width, arm), func(b *testing.B) {
					var db *sql.DB
					if arm == "chnative-sql" {
						db = openChnative(b, t.addr, t.user, t.password, "none")
					} else {
						db = openClickhouseGoDB(b, t.addr, t.user, t.password, "none", width)
					}
					db.SetMaxOpenConns(width)
					db.SetMaxIdleConns(width)
					ctx := context.Background()
					measure(b, 64, func() error {
						var wg sync.WaitGroup
						errs := make(chan error, 64)
						for range 64 {
							wg.Go(func() {
								rs, err := db.QueryContext(ctx, query)
								if err != nil {
									errs <- err
									return
								}
								var v uint64
								for rs.Next() {
									if err := rs.Scan(&v); err != nil {
										errs <- err
										break
									}
								}
								if err := rs.Close(); err != nil {
									errs <- err
								}
							})
						}
						wg.Wait()
						close(errs)
						return <-errs
					})
				})
			}
		}
	}
	b.Run("fake", func(b *testing.B) { run(b, fake(), "SELECT * FROM u64_1000x1") })
	b.Run("real", func(b *testing.B) {
		t := realT(b)
		setupReal(b)
		run(b, t, "SELECT number FROM chnative_bench.u64 LIMIT 1000")
	})
}
