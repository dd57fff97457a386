package bench

import (
	"context"
	"flag"
	"fmt"
	"reflect"
	"testing"

	"github.com/ClickHouse/ch-go"
	"github.com/ClickHouse/ch-go/proto"

	"github.com/chnative/chnative"
	"github.com/chnative/chnative/conformance/bench/fakeserver"
	"github.com/chnative/chnative/conformance/bench/rawreader"
)

// TestFakeServerClients checks that chnative, ch-go, clickhouse-go and the raw reader all read
// every shape from the fake server, with each codec, and that the insert path works for all.
func TestFakeServerClients(t *testing.T) {
	ctx := context.Background()
	shapes := []string{"one", "u64", "u64sf64", "mixed"}
	for i := range fakeserver.PerType {
		shapes = append(shapes, fmt.Sprintf("type%d", i))
	}
	for _, codec := range []string{"none", "lz4", "zstd"} {
		db := openChnative(t, fakeAddr, "default", "", codec)
		cgo := openClickhouseGo(t, fakeAddr, "default", "", codec, 1)
		for _, shape := range shapes {
			rows := 70000 // two blocks
			if raceEnabled {
				rows = 5000
			}
			name, want := tableFor(shape, rows, codec)
			q := "SELECT * FROM " + name
			t.Run(codec+"/"+shape, func(t *testing.T) {
				// chnative, block tier
				conn, err := db.Conn(ctx)
				if err != nil {
					t.Fatal(err)
				}
				err = conn.Raw(func(dc any) error {
					bl, err := dc.(chnative.Conn).QueryBlocks(ctx, q)
					if err != nil {
						return err
					}
					n := 0
					for bl.Next() {
						n += bl.Block().Rows()
					}
					if err := bl.Err(); err != nil {
						return err
					}
					if n != want {
						return fmt.Errorf("chnative blocks: %d rows, want %d", n, want)
					}
					return bl.Close()
				})
				conn.Close()
				if err != nil {
					t.Fatal(err)
				}
				// chnative, database/sql
				rs, err := db.QueryContext(ctx, q)
				if err != nil {
					t.Fatal(err)
				}
				cols, _ := rs.Columns()
				if n, err := scanAll(rs, "any", len(cols), nil); err != nil || n != want {
					t.Fatalf("chnative rows: %d rows, %v", n, err)
				}
				// ch-go
				chc := openChgo(t, fakeAddr, "default", "", codec)
				var res proto.Results
				n := 0
				if err := chc.Do(ctx, ch.Query{Body: q, Result: res.Auto(), OnResult: func(ctx context.Context, b proto.Block) error {
					n += b.Rows
					return nil
				}}); err != nil || n != want {
					t.Fatalf("ch-go: %d rows, %v", n, err)
				}
				// clickhouse-go
				crs, err := cgo.Query(ctx, q)
				if err != nil {
					t.Fatal(err)
				}
				var dest []any
				for _, ct := range crs.ColumnTypes() {
					dest = append(dest, reflect.New(ct.ScanType()).Interface())
				}
				if n, err := scanAll(crs, "any", len(dest), dest); err != nil || n != want {
					t.Fatalf("clickhouse-go: %d rows, %v", n, err)
				}
				// raw reader
				if codec == "none" && (shape == "one" || shape == "u64" || shape == "u64sf64") {
					rc, err := rawreader.Dial(fakeAddr, "default", "")
					if err != nil {
						t.Fatal(err)
					}
					defer rc.Close()
					for range 2 {
						if n, err := rc.Query(q); err != nil || n != want {
							t.Fatalf("raw: %d rows, %v", n, err)
						}
					}
				}
			})
		}
		t.Run(codec+"/insert", func(t *testing.T) {
			// One iteration of each arm proves it works; timing is the benchmarks' job.
			if f := flag.Lookup("test.benchtime"); f != nil {
				old := f.Value.String()
				_ = f.Value.Set("1x")
				defer func() { _ = f.Value.Set(old) }()
			}
			it := insertTarget{target: fake(), table: "default.u64sf64"}
			for _, f := range []func(*testing.B){
				func(b *testing.B) { chnativeBatch(b, it, codec, "append") },
				func(b *testing.B) { chnativeBatch(b, it, codec, "slice") },
				func(b *testing.B) { sqlBatch(b, openChnative(b, it.addr, it.user, it.password, codec), it) },
				func(b *testing.B) { chgoInsert(b, it, codec) },
				func(b *testing.B) { chnativeBatch(b, it, codec, "struct") },
				func(b *testing.B) { clickhouseGoBatch(b, it, codec, "append") },
				func(b *testing.B) { clickhouseGoBatch(b, it, codec, "columnar") },
				func(b *testing.B) { clickhouseGoBatch(b, it, codec, "struct") },
				func(b *testing.B) {
					sqlBatch(b, openClickhouseGoDB(b, it.addr, it.user, it.password, codec, 1), it)
				},
			} {
				r := testing.Benchmark(func(b *testing.B) { f(b) })
				if r.N == 0 {
					t.Fatalf("insert arm failed (see log)")
				}
			}
		})
	}
}
