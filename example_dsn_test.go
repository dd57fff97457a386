package chnative_test

import (
	"log"

	"github.com/chnative/chnative"
)

func ExampleOpenDSN() {
	// clickhouse-go's pool keys, which database/sql takes only from the *sql.DB: OpenDSN applies
	// them (sql.Open refuses max_open_conns and max_idle_conns and says how to set them).
	db, err := chnative.OpenDSN("clickhouse://default@127.0.0.1:9000/default?max_open_conns=10&max_idle_conns=5&conn_max_lifetime=1h")
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
}
