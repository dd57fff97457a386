package chnative

import (
	"strconv"
	"testing"
	"time"
)

// Values kept from Rows.Scan into *any stay intact after later rows and blocks are read: the
// windows they are boxed in are never reused.
func TestScannedValuesSurviveLaterBlocks(t *testing.T) {
	db := openDB(t)
	rows, err := db.Query("SELECT number, toString(number), toDateTime(number, 'UTC'), toFloat32(number / 2) " +
		"FROM system.numbers LIMIT 5000 SETTINGS max_block_size = 700")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var kept [][4]any
	for rows.Next() {
		var r [4]any
		if err := rows.Scan(&r[0], &r[1], &r[2], &r[3]); err != nil {
			t.Fatal(err)
		}
		kept = append(kept, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(kept) != 5000 {
		t.Fatalf("%d rows", len(kept))
	}
	for i, r := range kept {
		if r[0].(uint64) != uint64(i) || r[1].(string) != strconv.Itoa(i) ||
			!r[2].(time.Time).Equal(time.Unix(int64(i), 0)) || r[3].(float32) != float32(i)/2 {
			t.Fatalf("row %d kept as %v", i, r)
		}
	}
}
