package chnative_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/chnative/chnative"
)

// A service's goroutines hand their events to one Inserter, which inserts them in big blocks,
// each exactly once.
func ExampleNewInserter() {
	db, err := sql.Open("chnative", os.Getenv("CHNATIVE_DSN"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer db.Close()
	ctx := context.Background()
	if err := exec(ctx, db, "DROP TABLE IF EXISTS example_events",
		"CREATE TABLE example_events (id UInt64, kind String, ts DateTime) ENGINE = MergeTree ORDER BY id"); err != nil {
		fmt.Println(err)
		return
	}
	ins, err := chnative.NewInserter(db, "INSERT INTO example_events (id, kind, ts)", chnative.InserterConfig{
		MaxRows: 10_000, MaxDelay: time.Second,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	type event struct {
		ID   uint64    `ch:"id"`
		Kind string    `ch:"kind"`
		TS   time.Time `ch:"ts"`
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 25_000 {
				id := uint64(g*25_000 + i)
				var err error
				if i%2 == 0 {
					err = ins.Append(ctx, id, "click", time.Unix(int64(id), 0))
				} else {
					err = ins.AppendStruct(ctx, &event{ID: id, Kind: "view", TS: time.Unix(int64(id), 0)})
				}
				if err != nil {
					fmt.Println(err)
					return
				}
			}
		})
	}
	wg.Wait()
	batch := make([]event, 100) // a slice of events at once: one lock per block
	for i := range batch {
		batch[i] = event{ID: uint64(100_000 + i), Kind: "batch", TS: time.Unix(int64(i), 0)}
	}
	if err := ins.AppendStructs(ctx, batch); err != nil {
		fmt.Println(err)
		return
	}
	if err := ins.Close(ctx); err != nil {
		fmt.Println(err)
		return
	}
	st := ins.Stats()
	var n, sum uint64
	if err := db.QueryRowContext(ctx, "SELECT count(), sum(id) FROM example_events").Scan(&n, &sum); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(n, sum, st.SentRows, st.FailedRows)
	// Output: 100100 5009954950 100100 0
}
