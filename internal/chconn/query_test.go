package chconn

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/chnative/chnative/dsn"
	"github.com/chnative/chnative/internal/faketest"
	"github.com/chnative/chnative/nativeproto"
)

// Tests of a query and its result stream, driving Conn and Result directly: over scripted
// fake servers (faketest.Script) and over the test server CHNATIVE_DSN names.

// dialScript dials a fake server announcing hello that answers the connection's queries in
// turn with answers.
func dialScript(t *testing.T, hello nativeproto.ServerHello, answers ...faketest.Answer) *Conn {
	t.Helper()
	srv, err := faketest.NewServer(faketest.Script(hello, answers...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	cfg, err := dsn.Parse("clickhouse://default@" + srv.Addr() + "/default")
	if err != nil {
		t.Fatal(err)
	}
	c, err := Dial(context.Background(), cfg, srv.Addr(), Dialer{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// u64Header and u64Block are Data packets of a result of one UInt64 column n: the header (no
// rows) and a block of rows from, from+1, ... at revision rev.
func u64Header(t *testing.T, rev nativeproto.Revision) []byte {
	return faketest.BlockPacket(nil, nativeproto.ServerCodeData, rev, 0, 0, []faketest.Col{col(t, rev, "n", "UInt64")})
}

func u64Block(t *testing.T, rev nativeproto.Revision, from uint64, rows int) []byte {
	t.Helper()
	vals := make([]any, rows)
	for i := range vals {
		vals[i] = from + uint64(i)
	}
	return faketest.BlockPacket(nil, nativeproto.ServerCodeData, rev, 0, uint64(rows), []faketest.Col{col(t, rev, "n", "UInt64", vals...)})
}

// selectOne is the answer to SELECT 1 as n at revision rev.
func selectOne(t *testing.T, rev nativeproto.Revision) faketest.Answer {
	return faketest.Send(faketest.EndQuery(append(u64Header(t, rev), u64Block(t, rev, 1, 1)...), rev))
}

// checkSelectOne runs a query answered by selectOne on c: the connection is in step.
func checkSelectOne(t *testing.T, c *Conn) {
	t.Helper()
	if _, err := c.Begin(false); err != nil {
		t.Fatalf("Begin: %v", err)
	}
	r, err := c.Query(context.Background(), "SELECT 1 AS n", nil)
	if err != nil {
		t.Fatalf("SELECT 1: %v", err)
	}
	b, _, err := r.Next()
	if err != nil || b.Rows() != 1 || b.Column(0).Value(0) != uint64(1) {
		t.Fatalf("SELECT 1: %v", err)
	}
	if err := readToEnd(r); err != nil {
		t.Fatalf("SELECT 1: %v", err)
	}
	if c.bad {
		t.Fatal("the connection is bad after SELECT 1")
	}
}

// A result of several big blocks is read block by block with the read-ahead: the blocks come in
// order with their values, those after the first are read ahead, the Result alternates between
// two blocks (no block allocated per packet), and the connection is in step afterwards.
func TestResultStreamReadAhead(t *testing.T) {
	rev := nativeproto.LatestRevision
	const blocks, rows = 4, 2000
	answer := u64Header(t, rev)
	for i := range blocks {
		answer = append(answer, u64Block(t, rev, uint64(i*rows), rows)...)
	}
	answer = faketest.EndQuery(answer, rev)
	c := dialScript(t, faketest.ModernHello(), faketest.Send(answer), selectOne(t, rev))

	r, err := c.Query(context.Background(), "SELECT n", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Names(); len(got) != 1 || got[0] != "n" || r.Types()[0] != "UInt64" {
		t.Fatalf("header %v %v", got, r.Types())
	}
	var seen []*nativeproto.Block
	next := uint64(0)
	aheadBlocks := 0
	for {
		b, ahead, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if ahead {
			aheadBlocks++
		}
		seen = append(seen, b)
		for i := range b.Rows() {
			if v := b.Column(0).Value(i); v != next {
				t.Fatalf("block %d row %d: %v, want %d", len(seen), i, v, next)
			}
			next++
		}
		r.StartAhead(nil)
	}
	if len(seen) != blocks || next != blocks*rows {
		t.Fatalf("%d blocks, %d rows; want %d, %d", len(seen), next, blocks, blocks*rows)
	}
	if aheadBlocks != blocks-1 {
		t.Errorf("%d blocks read ahead, want %d", aheadBlocks, blocks-1)
	}
	for i := 2; i < len(seen); i++ {
		if seen[i] != seen[i-2] || seen[i] == seen[i-1] {
			t.Errorf("block %d is not the block two before it: the result does not alternate between two blocks", i)
		}
	}
	if !r.Ended() || r.Err() != nil {
		t.Fatalf("ended %v, err %v", r.Ended(), r.Err())
	}
	checkSelectOne(t, c)
}

// A short result (a block under the read-ahead's threshold) is read on the caller's goroutine.
func TestResultShortNotReadAhead(t *testing.T) {
	rev := nativeproto.LatestRevision
	answer := faketest.EndQuery(append(append(u64Header(t, rev), u64Block(t, rev, 0, 10)...), u64Block(t, rev, 10, 10)...), rev)
	c := dialScript(t, faketest.ModernHello(), faketest.Send(answer))
	r, err := c.Query(context.Background(), "SELECT n", nil)
	if err != nil {
		t.Fatal(err)
	}
	for {
		_, ahead, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if ahead {
			t.Fatal("a block after a 10-row block was read ahead")
		}
		r.StartAhead(nil)
		if r.ahead {
			t.Fatal("StartAhead started after a 10-row block")
		}
	}
}

// The test server streams a result of many blocks in order through the read-ahead, and the
// connection is in step afterwards.
func TestResultStreamRealServer(t *testing.T) {
	c := dialTest(t)
	const n = 300000
	r, err := c.Query(context.Background(), "SELECT number AS n FROM system.numbers LIMIT 300000", &Options{BlockSize: 10000})
	if err != nil {
		t.Fatal(err)
	}
	next, blocks, ahead := uint64(0), 0, 0
	for {
		b, fromAhead, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if b.Rows() == 0 {
			continue
		}
		blocks++
		if fromAhead {
			ahead++
		}
		for i := range b.Rows() {
			if v := b.Column(0).Value(i); v != next {
				t.Fatalf("row %d: %v", next, v)
			}
			next++
		}
		r.StartAhead(nil)
	}
	if next != n || blocks < 2 || ahead == 0 {
		t.Fatalf("%d rows in %d blocks, %d read ahead", next, blocks, ahead)
	}
	if _, err := c.Begin(false); err != nil {
		t.Fatal(err)
	}
	r, err = c.Query(context.Background(), "SELECT 1", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := readToEnd(r); err != nil {
		t.Fatal(err)
	}
}
