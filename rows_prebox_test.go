package chnative

import (
	"context"
	"database/sql/driver"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/chnative/chnative/internal/boxing"
)

// Blocks after the first are boxed ahead by the read-ahead goroutine when the caller reads through
// Next. Kept values (numbers, strings empty, short and long, DateTimes in the server's zone) stay
// right across blocks, and the windows Next hands over are the ones boxed ahead.
func TestPreboxedRows(t *testing.T) {
	db := openDB(t)
	const n, block = 20000, 3000 // blocks of at least aheadMinRows rows are read ahead
	want := func(i int) string {
		switch {
		case i%1009 == 3:
			return strings.Repeat("L", boxing.WindowBytes/2+i-1) // arrayStringConcat of k empty strings: k-1 separators
		case i%5 == 0:
			return ""
		}
		return "v" + strconv.Itoa(i)
	}
	query := "SELECT number, multiIf(number % 1009 = 3, arrayStringConcat(arrayResize(emptyArrayString(), (" +
		strconv.Itoa(boxing.WindowBytes/2) + " + number) * (number % 1009 = 3)), 'L'), number % 5 = 0, '', concat('v', toString(number))), " +
		"toDateTime(number), toFloat64(number) / 4 FROM system.numbers LIMIT " + strconv.Itoa(n) +
		" SETTINGS max_block_size = " + strconv.Itoa(block)
	sc, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	err = sc.Raw(func(dc any) error {
		c := dc.(*conn)
		drs, err := c.QueryContext(context.Background(), query, nil)
		if err != nil {
			return err
		}
		r := drs.(*rows)
		defer r.Close()
		kept := make([][4]driver.Value, 0, n)
		dest := make([]driver.Value, 4)
		taken, filled, late := 0, 0, 0 // windows handed over from the read-ahead, boxed by Next, and of those after the first block
		for {
			pre, hi := r.pre, r.box.Hi
			if err := r.Next(dest); err == io.EOF {
				break
			} else if err != nil {
				return err
			}
			switch {
			case r.pre.Taken() > 0 && (unsafe.SliceData(r.pre.Ends()) != unsafe.SliceData(pre.Ends()) || r.pre.Taken() > pre.Taken()):
				taken++
			case r.box.Hi != hi || r.cur == 0:
				filled++
				if len(kept) >= block {
					late++
				}
			}
			kept = append(kept, [4]driver.Value(dest))
		}
		if len(kept) != n {
			t.Fatalf("%d rows, want %d", len(kept), n)
		}
		// Every window after the first block is boxed ahead. (Windows hold at most boxing.Window rows;
		// fewer when a window is cut to fill the rest of a slab chunk, or by long strings.)
		if first := (block + boxing.Window - 1) / boxing.Window; filled < first || late != 0 || taken < (n-block)/boxing.Window {
			t.Fatalf("%d windows were boxed by Next (%d after the first block) and %d ahead; want at least %d by Next, all in the first block",
				filled, late, taken, first)
		}
		loc := c.Location()
		for i, v := range kept {
			tm := v[2].(time.Time)
			if v[0].(uint64) != uint64(i) || v[1].(string) != want(i) || !tm.Equal(time.Unix(int64(i), 0)) ||
				tm.Location().String() != loc.String() || v[3].(float64) != float64(i)/4 {
				t.Fatalf("row %d kept as %v %.20q (len %d) %v (%s, conn %s) %v", i, v[0], v[1], len(v[1].(string)), tm, tm.Location(), loc, v[3])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Close during a long result with boxing ahead stops early and leaves the connection usable.
func TestPreboxedRowsClose(t *testing.T) {
	db := openDB(t)
	db.SetMaxOpenConns(1)
	for range 3 {
		rs, err := db.Query("SELECT number, toString(number) FROM system.numbers LIMIT 2000000 SETTINGS max_block_size = 65536")
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 70000 && rs.Next(); i++ {
		}
		if err := rs.Close(); err != nil {
			t.Fatal(err)
		}
		selectOne(t, db)
	}
}
