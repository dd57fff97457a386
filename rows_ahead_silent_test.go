package chnative

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/chnative/chnative/internal/faketest"
	"github.com/chnative/chnative/nativeproto"
)

// Rows.Close while the read-ahead waits for a packet that never comes, from a server that also
// ignores the Cancel: the last resort of awaitAheadOnClose (after closeGrace and drainTimeout,
// mark the connection bad and close the socket). A real server always answers a Cancel, so this
// needs the fake server: it sends one 2000-row block, then nothing, and reads what the client
// sends until the client hangs up.
func TestRowsCloseReadAheadSilentServer(t *testing.T) {
	mk := func(typ string, vals ...any) []faketest.Col {
		c, err := faketest.EncodeColumn("n", typ, vals...)
		if err != nil {
			t.Fatal(err)
		}
		return []faketest.Col{c}
	}
	big := make([]any, 2000) // >= aheadMinRows: the read-ahead starts at its first row
	for i := range big {
		big[i] = uint64(i)
	}
	silent := faketest.DataPacket(nil, 0, mk("UInt64"), false)
	silent = faketest.DataPacket(silent, uint64(len(big)), mk("UInt64", big...), false)
	answer42 := faketest.DataPacket(nil, 0, mk("UInt8"), false)
	answer42 = faketest.DataPacket(answer42, 1, mk("UInt8", uint8(42)), false)
	answer42 = faketest.Pong(faketest.EndOfStream(answer42))

	type heard struct {
		codes []uint64 // what the client sent after the query
		err   error    // why reading stopped
	}
	heardCh := make(chan heard, 1)
	srv, err := faketest.NewServer(func(s *faketest.Session) {
		if s.Handshake() != nil {
			return
		}
		for {
			q, err := s.ReadQuery()
			if err != nil {
				return
			}
			if q.Body != "SELECT silent" {
				if s.Write(answer42) != nil {
					return
				}
				continue
			}
			if s.Write(silent) != nil {
				return
			}
			// Silent: answer nothing, not even the Cancel, until the client closes the socket.
			var h heard
			for {
				code, err := s.R.UVarInt()
				if err != nil {
					h.err = err
					break
				}
				h.codes = append(h.codes, code)
			}
			heardCh <- h
			return
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	db := openAt(t, []string{srv.Addr()})
	db.SetMaxOpenConns(1)
	base := runtime.NumGoroutine()

	ctx, cancel := context.WithCancel(context.Background()) // watched: Close must stop the watcher
	defer cancel()
	rows, err := db.QueryContext(ctx, "SELECT silent")
	if err != nil {
		t.Fatal(err)
	}
	var v uint64
	if !rows.Next() {
		t.Fatalf("no first row: %v", rows.Err())
	}
	if err := rows.Scan(&v); err != nil || v != 0 {
		t.Fatalf("first row: %d, %v", v, err)
	}
	if !aheadRunning() {
		t.Fatal("no read-ahead goroutine after the first row of a 2000-row block")
	}

	closed := make(chan error, 1)
	start := time.Now()
	go func() { closed <- rows.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Errorf("Close: %v, want nil (the result was abandoned; the connection is dropped)", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close still blocked after 5s: the read-ahead was not ended")
	}
	d := time.Since(start)
	t.Logf("Close took %v (closeGrace %v + drainTimeout %v)", d, closeGrace, drainTimeout)
	if d < closeGrace+drainTimeout || d > 3*time.Second {
		t.Errorf("Close took %v, want about %v", d, closeGrace+drainTimeout)
	}
	if st := db.Stats(); st.OpenConnections != 0 {
		t.Errorf("%d open connections after Close, want 0: the broken one went back to the pool", st.OpenConnections)
	}
	select {
	case h := <-heardCh:
		if len(h.codes) != 1 || nativeproto.ClientCode(h.codes[0]) != nativeproto.ClientCodeCancel {
			t.Errorf("server got %v after the query, want one Cancel", h.codes)
		}
		t.Logf("server stopped reading: %v", h.err)
	case <-time.After(2 * time.Second):
		t.Error("the client did not close the socket")
	}
	settleGoroutines(t, base) // the read-ahead, the server's session and the watcher are gone

	selectOne(t, db)
	if got := srv.Accepts(); got != 2 {
		t.Errorf("%d connections, want 2: the next query must not reuse the silent one", got)
	}
}

// aheadRunning reports whether a read-ahead goroutine exists.
func aheadRunning() bool {
	buf := make([]byte, 1<<20)
	return strings.Contains(string(buf[:runtime.Stack(buf, true)]), "chconn.(*Result).StartAhead.func")
}
