package chnative_test

import (
	"context"
	"database/sql"
	"log"
	"time"

	"github.com/chnative/chnative"
)

func ExampleAppendStructs() {
	type Event struct {
		ID   uint64    `ch:"id"`
		Name string    `ch:"name"`
		At   time.Time `ch:"ts"`
		Note *string   // Nullable(String) column "note"
	}
	events := []Event{{ID: 1, Name: "start", At: time.Now()}, {ID: 2, Name: "stop", At: time.Now()}}

	db, _ := sql.Open("chnative", "clickhouse://127.0.0.1:9000/default")
	ctx := context.Background()
	c, err := db.Conn(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	err = c.Raw(func(dc any) error {
		b, err := dc.(chnative.Conn).PrepareBatch(ctx, "INSERT INTO events (id, name, ts, note)")
		if err != nil {
			return err
		}
		// Fields are matched to columns once per batch; each column is then filled from its
		// field of every row. AppendStruct(b, &e) appends one row.
		if err := chnative.AppendStructs(b, events); err != nil {
			b.Abort()
			return err
		}
		return b.Send()
	})
	if err != nil {
		log.Fatal(err)
	}
}
