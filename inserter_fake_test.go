package chnative

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/internal/faketest"
	"github.com/chnative/chnative/nativeproto"
)

// The Inserter against fake servers (insertHost, insert_retry_test.go): a connection cut after
// a block arrived makes it send the same block again under the same token; an exception is not
// retried and reaches OnError, Stats and Flush. Connection 0 is NewInserter's header probe.

// cutConn hangs up connection n after one block.
func cutConn(n int) func(int) int {
	return func(conn int) int {
		if conn == n {
			return 1
		}
		return -1
	}
}

func tokenOf(q *nativeproto.Query) string {
	for _, s := range q.Settings {
		if s.Key == "insert_deduplication_token" {
			return s.Value
		}
	}
	return ""
}

func appendIDs(t *testing.T, ins *Inserter, n int) {
	t.Helper()
	for i := range n {
		if err := ins.Append(context.Background(), uint64(i), fmt.Sprint("row-", i)); err != nil {
			t.Fatal(err)
		}
	}
}

func TestInserterResendsCutBlockWithSameToken(t *testing.T) {
	for _, modern := range []bool{true, false} {
		t.Run(fmt.Sprint("modern=", modern), func(t *testing.T) {
			h := &insertHost{cut: cutConn(1)}
			if modern {
				h.hello = &modernHello
			}
			h = newInsertHost(t, h)
			db := openAt(t, []string{h.addr()}, "read_timeout=5s")
			ins, err := NewInserter(db, "INSERT INTO t (id, s)", InserterConfig{MaxRows: 10, Senders: 1, Lanes: 1})
			if err != nil {
				t.Fatal(err)
			}
			appendIDs(t, ins, 10)
			if err := ins.Close(context.Background()); err != nil {
				t.Fatal(err)
			}
			queries, packets, blocks := h.got()
			if len(blocks) != 2 || !bytes.Equal(packets[0], packets[1]) {
				t.Fatalf("%d blocks received, want the cut one twice, byte for byte", len(blocks))
			}
			if got := blocks[1].Column(0).(*columns.UInt64).Values(); len(got) != 10 || got[9] != 9 {
				t.Fatalf("resent ids %v", got)
			}
			inserts := queries[1:] // after the probe
			if len(inserts) != 2 {
				t.Fatalf("%d inserts after the probe, want 2", len(inserts))
			}
			tok0, tok1 := tokenOf(inserts[0]), tokenOf(inserts[1])
			if modern && (tok0 == "" || tok0 != tok1) || !modern && (tok0 != "" || tok1 != "") {
				t.Fatalf("tokens %q then %q (modern server: %v)", tok0, tok1, modern)
			}
			if st := ins.Stats(); st.Retried != 1 || st.SentRows != 10 || st.SentBlocks != 1 || st.FailedRows != 0 {
				t.Fatalf("stats %+v", st)
			}
		})
	}
}

func TestInserterExceptionNotRetried(t *testing.T) {
	var ends atomic.Int32
	h := newInsertHost(t, &insertHost{end: func(int) []byte {
		if ends.Add(1) == 1 { // the first insert's end
			return faketest.Exception(nil, 252, "Too many parts", 1)
		}
		return faketest.EndOfStream(nil)
	}})
	db := openAt(t, []string{h.addr()}, "read_timeout=5s")
	var mu sync.Mutex
	var failed []uint64
	ins, err := NewInserter(db, "INSERT INTO t (id, s)", InserterConfig{MaxRows: 10, Senders: 1, Lanes: 1,
		OnError: func(b *nativeproto.Block, err error) {
			mu.Lock()
			failed = append(failed, b.Column(0).(*columns.UInt64).Values()...)
			mu.Unlock()
		}})
	if err != nil {
		t.Fatal(err)
	}
	appendIDs(t, ins, 10)
	err = ins.Flush(context.Background())
	var be *InserterBlockError
	var ex *Exception
	if !errors.As(err, &be) || !errors.As(err, &ex) || ex.Code != 252 || be.Rows != 10 {
		t.Fatalf("Flush: %v", err)
	}
	if _, _, blocks := h.got(); len(blocks) != 1 || len(failed) != 10 {
		t.Fatalf("%d blocks sent, %d rows to OnError", len(blocks), len(failed))
	}
	appendIDs(t, ins, 3) // the Inserter goes on
	if err := ins.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := ins.Append(context.Background(), uint64(1), "x"); !errors.Is(err, ErrInserterClosed) {
		t.Fatalf("Append after Close: %v", err)
	}
	if st := ins.Stats(); st.FailedRows != 10 || st.SentRows != 3 || st.Retried != 0 {
		t.Fatalf("stats %+v", st)
	}
}
