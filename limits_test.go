package chnative

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/chnative/chnative/internal/faketest"
	"github.com/chnative/chnative/internal/testenv"
	"github.com/chnative/chnative/internal/wire"
	"github.com/chnative/chnative/nativeproto"
)

// TestBlockMemoryLimitFake: a block past block_memory_limit (a 2 MiB String under a 1 MiB
// limit, raw and in LZ4 frames) ends the query with an error that errors.As finds as
// *ProtocolError and as *wire.LimitError naming the key, at once; the next query runs on a
// new connection. The same block under the default limit is read.
func TestBlockMemoryLimitFake(t *testing.T) {
	var val wire.Writer
	val.String(strings.Repeat("v", 2<<20))
	for _, compressed := range []bool{false, true} {
		script := faketest.DataPacket(nil, 1, []faketest.Col{{Name: "s", Type: "String", Data: val.Buf}}, compressed)
		script = faketest.EndOfStream(script)
		script = faketest.Pong(script)
		srv := hostileServer(t, compressed, script)
		params := []string{"block_memory_limit=1048576"}
		if compressed {
			params = append(params, "compress=lz4")
		}
		db := openAt(t, []string{srv.Addr()}, params...)
		db.SetMaxOpenConns(1)
		if n, err := readAll(context.Background(), db, okQuery); err != nil || n != 3 {
			t.Fatalf("good response: %d rows, %v", n, err)
		}
		start := time.Now()
		_, err := readAll(context.Background(), db, "SELECT big eof")
		var pe *ProtocolError
		var le *wire.LimitError
		if !errors.As(err, &pe) || !errors.As(err, &le) || !strings.Contains(le.What, "block_memory_limit") {
			t.Fatalf("compressed=%v: want a ProtocolError and a LimitError naming block_memory_limit, got %v", compressed, err)
		}
		t.Logf("compressed=%v: %v after %v", compressed, err, time.Since(start))
		if d := time.Since(start); d > time.Second {
			t.Errorf("error after %v", d)
		}
		before := srv.Accepts()
		if n, err := readAll(context.Background(), db, okQuery); err != nil || n != 3 {
			t.Fatalf("after the limit: %d rows, %v", n, err)
		}
		if got := srv.Accepts(); got != before+1 {
			t.Errorf("%d new connections for the next query, want 1", got-before)
		}

		db = openAt(t, []string{srv.Addr()}, params[1:]...)
		if n, err := readAll(context.Background(), db, "SELECT big eof"); err != nil || n != 1 {
			t.Fatalf("compressed=%v, default limit: %d rows, %v", compressed, n, err)
		}
	}
}

// TestServerRevisionTooOld: a server whose Hello announces revision 1 is refused at connect
// with a *ProtocolError naming both revisions.
func TestServerRevisionTooOld(t *testing.T) {
	srv, err := faketest.NewServer(func(s *faketest.Session) {
		if _, err := s.R.UVarInt(); err != nil {
			return
		}
		if err := s.Hello.Decode(s.R); err != nil {
			return
		}
		var w wire.Writer
		w.UVarInt(uint64(nativeproto.ServerCodeHello))
		w.String("ClickHouse")
		w.UVarInt(1)
		w.UVarInt(1)
		w.UVarInt(1) // revision 1
		_ = s.Write(w.Buf)
		s.Drain(2 * time.Second)
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	db := openAt(t, []string{srv.Addr()}, "read_retries=0")
	err = db.PingContext(context.Background())
	var pe *ProtocolError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "revision 1 ") || !strings.Contains(err.Error(), "54412") {
		t.Fatalf("want a ProtocolError naming revisions 1 and 54412, got %v", err)
	}
	t.Log(err)
}

// TestLongColumnNameServer: 26.7 names the column of SELECT length({v:String}) after the whole
// expression with the parameter's value in it; a 1 MiB parameter made a column name the old
// 1 MiB cap refused. It is read now, and the value is right.
func TestLongColumnNameServer(t *testing.T) {
	db, err := sql.Open("chnative", testenv.ModernDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	v := strings.Repeat("p", 1<<20)
	ctx := WithParameters(context.Background(), map[string]any{"v": v})
	rows, err := db.QueryContext(ctx, "SELECT length({v:String})")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	if len(cols) != 1 || len(cols[0]) < 1<<20 {
		t.Fatalf("column name of %d bytes, want the whole expression", len(cols[0]))
	}
	var n uint64
	if !rows.Next() {
		t.Fatalf("no row: %v", rows.Err())
	}
	if err := rows.Scan(&n); err != nil || n != 1<<20 {
		t.Fatalf("length %d, %v", n, err)
	}
	t.Logf("column name of %d bytes", len(cols[0]))
}
