package chconn

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/chnative/chnative/internal/faketest"
)

// dialFake opens a connection to a fake server that answers the first query with script and then
// sends nothing more until the client hangs up.
func dialFake(t *testing.T, script []byte) *Conn {
	t.Helper()
	return dialFakeAt(t, legacyHello(), script)
}

func longBlock(t *testing.T, n int) []byte {
	t.Helper()
	vals := make([]any, n)
	for i := range vals {
		vals[i] = uint64(i)
	}
	col, err := faketest.EncodeColumn("n", "UInt64", vals...)
	if err != nil {
		t.Fatal(err)
	}
	hdr, _ := faketest.EncodeColumn("n", "UInt64")
	return faketest.DataPacket(faketest.DataPacket(nil, 0, []faketest.Col{hdr}, false), uint64(n), []faketest.Col{col}, false)
}

// Fail, called by a tier that found a lie in a block handed out, ends the query at once, also
// while the read-ahead waits for a server that sends nothing more; the connection is closed and
// Next returns the error from then on.
func TestResultFailDuringReadAhead(t *testing.T) {
	c := dialFake(t, longBlock(t, 2000))
	var r Result
	if err := c.QueryInto(context.Background(), "SELECT lie", nil, &r); err != nil {
		t.Fatal(err)
	}
	b, _, err := r.Next()
	if err != nil || b.Rows() != 2000 {
		t.Fatalf("first block: %v", err)
	}
	r.StartAhead(nil)
	if !r.ahead {
		t.Fatal("no read-ahead started")
	}
	start := time.Now()
	err = r.Fail(errors.New("a lie"))
	if d := time.Since(start); d > time.Second {
		t.Errorf("Fail took %v", d)
	}
	var pe *ProtocolError
	if !errors.As(err, &pe) || !c.bad {
		t.Fatalf("Fail: %v, connection bad %v", err, c.bad)
	}
	if _, _, err := r.Next(); !errors.As(err, &pe) {
		t.Errorf("Next after Fail: %v", err)
	}
	if err := r.Close(); err != nil {
		t.Errorf("Close after Fail: %v", err)
	}
	if r.ahead {
		t.Error("read-ahead still running")
	}
}

// The per-block check allocates nothing for a block with the header's columns.
func TestCheckBlockAllocatesNothing(t *testing.T) {
	hdr, err := faketest.EmptyBlock([2]string{"n", "UInt64"}, [2]string{"s", "LowCardinality(Nullable(String))"}, [2]string{"a", "Array(Tuple(Int8, String))"})
	if err != nil {
		t.Fatal(err)
	}
	r := Result{cols: []string{"n", "s", "a", "UInt64", "LowCardinality(Nullable(String))", "Array(Tuple(Int8, String))"}}
	if err := r.checkBlock("data", hdr); err != nil {
		t.Fatal(err)
	}
	if allocs := testing.AllocsPerRun(100, func() {
		if err := r.checkBlock("data", hdr); err != nil {
			t.Fatal(err)
		}
	}); allocs != 0 {
		t.Errorf("%v allocations per block", allocs)
	}
	// Another header: the same block is checked against its types.
	r2 := Result{cols: []string{"n", "s", "a", "UInt64", "LowCardinality(Nullable(String))", "Array(Tuple(Int64, String))"}}
	err = r2.checkBlock("extremes", hdr)
	var me *BlockMismatchError
	if !errors.As(err, &me) || me.Column != 2 || me.Type != "Array(Tuple(Int8, String))" || me.WantType != "Array(Tuple(Int64, String))" {
		t.Errorf("mismatch inside a Tuple in an Array: %v", err)
	}
}
