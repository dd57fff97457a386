package chconn

import (
	"context"
	"errors"
	"io"
	"strconv"
	"testing"

	"github.com/chnative/chnative/internal/faketest"
	"github.com/chnative/chnative/nativeproto"
)

// Errors in the middle of a result: the server's exception after some blocks ends the query
// and keeps the connection (the server's stream is in step); a lie (a block of other columns
// than the header's, a packet no result has) closes it.

func TestExceptionAfterBlocksKeepsConn(t *testing.T) {
	for _, hello := range []nativeproto.ServerHello{faketest.LegacyHello(), faketest.ModernHello()} {
		rev := hello.Revision
		t.Run(strconv.Itoa(int(rev)), func(t *testing.T) {
			answer := append(u64Header(t, rev), u64Block(t, rev, 0, 10)...)
			answer = faketest.Exception(answer, 395, "Value passed to 'throwIf' function is non-zero", 1)
			if rev < nativeproto.RevSettingsAsStrings {
				answer = faketest.Pong(answer) // the Ping that ended the query, read after the exception
			}
			c := dialScript(t, hello, faketest.Send(answer), selectOne(t, rev))
			r, err := c.Query(context.Background(), "SELECT throwIf(n = 10)", nil)
			if err != nil {
				t.Fatal(err)
			}
			if b, _, err := r.Next(); err != nil || b.Rows() != 10 {
				t.Fatalf("first block: %v", err)
			}
			_, _, err = r.Next()
			var ex *Exception
			if !errors.As(err, &ex) || ex.Code != 395 {
				t.Fatalf("Next: %T %v, want the *Exception 395", err, err)
			}
			if !r.Ended() || c.bad {
				t.Fatalf("after the exception: ended %v, bad %v", r.Ended(), c.bad)
			}
			checkSelectOne(t, c)
		})
	}
}

func TestLieMidStreamClosesConn(t *testing.T) {
	rev := nativeproto.LatestRevision
	for _, tc := range []struct {
		name string
		lie  []byte
		want func(error) bool
	}{
		{"block of another type", faketest.BlockPacket(nil, nativeproto.ServerCodeData, rev, 0, 1, []faketest.Col{col(t, rev, "n", "String", "x")}),
			func(err error) bool { var bm *BlockMismatchError; return errors.As(err, &bm) && bm.Column == 0 }},
		{"block of another column count", faketest.BlockPacket(nil, nativeproto.ServerCodeData, rev, 0, 1,
			[]faketest.Col{col(t, rev, "n", "UInt64", uint64(1)), col(t, rev, "m", "UInt64", uint64(2))}),
			func(err error) bool { var bm *BlockMismatchError; return errors.As(err, &bm) && bm.Column == -1 }},
		{"Hello mid-stream", []byte{byte(nativeproto.ServerCodeHello)},
			func(err error) bool { var up *nativeproto.UnexpectedPacketError; return errors.As(err, &up) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			answer := append(append(u64Header(t, rev), u64Block(t, rev, 0, 10)...), tc.lie...)
			answer = faketest.EndQuery(answer, rev) // never read
			c := dialScript(t, faketest.ModernHello(), faketest.Send(answer))
			r, err := c.Query(context.Background(), "SELECT n", nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := r.Next(); err != nil {
				t.Fatal(err)
			}
			_, _, err = r.Next()
			var pe *ProtocolError
			if !errors.As(err, &pe) || !tc.want(err) || IsTransport(err) {
				t.Fatalf("Next: %T %v, want a *ProtocolError for the lie", err, err)
			}
			if !c.bad {
				t.Fatal("the connection is kept after a lie")
			}
			if _, _, err2 := r.Next(); !errors.Is(err2, err) && err2 != err {
				t.Errorf("Next after the lie: %v, want the same error", err2)
			}
			if _, err := c.Begin(false); err != ErrBadConn {
				t.Fatalf("Begin after a lie: %v, want ErrBadConn", err)
			}
		})
	}
}

// The test server's exception raised after some blocks ends the result with its *Exception and
// keeps the connection.
func TestExceptionMidStreamRealServer(t *testing.T) {
	c := dialTest(t)
	r, err := c.Query(context.Background(), "SELECT throwIf(number = 50000) FROM system.numbers LIMIT 100000", &Options{BlockSize: 1000})
	var ex *Exception
	if err == nil {
		rows := 0
		for {
			var b *nativeproto.Block
			b, _, err = r.Next()
			if err != nil {
				break
			}
			rows += b.Rows()
		}
		if errors.Is(err, io.EOF) {
			t.Fatalf("the result ended without the exception after %d rows", rows)
		}
	}
	if !errors.As(err, &ex) || ex.Code != 395 {
		t.Fatalf("%T %v, want the *Exception 395 (FUNCTION_THROW_IF_VALUE_IS_NON_ZERO)", err, err)
	}
	if c.bad {
		t.Fatal("the connection is bad after the server's exception")
	}
	if _, err := c.Begin(false); err != nil {
		t.Fatalf("Begin: %v", err)
	}
	r, err = c.Query(context.Background(), "SELECT 1", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := readToEnd(r); err != nil {
		t.Fatal(err)
	}
}
