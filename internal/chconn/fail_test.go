package chconn

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/dsn"
	"github.com/chnative/chnative/internal/faketest"
)

// A lie that arrives as the caller's context ends is returned as the lie and closes the
// connection; only a transport failure (the watcher's deadline cutting a read) takes the
// cancel-and-drain path.
func TestFailLieAfterContextEnded(t *testing.T) {
	c := dialFake(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	lie := &columns.DecodeError{Type: "String", Msg: "length 1099511627776 exceeds the limit"}
	err := c.fail(ctx, true, lie)
	if !errors.Is(err, lie) && !errors.As(err, new(*columns.DecodeError)) {
		t.Fatalf("fail returned %v, want the decode error", err)
	}
	if errors.Is(err, context.Canceled) {
		t.Fatalf("fail returned the context's error for a lie: %v", err)
	}
	if !c.bad {
		t.Fatal("the connection that met a lie is not marked bad")
	}
	if IsTransport(err) {
		t.Fatalf("a lie is classified as a transport failure: %v", err)
	}
}

// An insert whose block cannot be written because the server hung up fails as a transport
// failure (a *TransportError inside the *ProtocolError), which the insert retries may resume.
func TestInsertFlushWriteFailureIsTransport(t *testing.T) {
	hdr, err := faketest.EmptyBlock([2]string{"s", "String"})
	if err != nil {
		t.Fatal(err)
	}
	script, err := faketest.HeaderPacket(nil, faketest.Revision, false, hdr)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := faketest.NewServer(func(s *faketest.Session) {
		if s.Handshake() != nil {
			return
		}
		if _, err := s.ReadQuery(); err != nil {
			return
		}
		_ = s.Write(script)
		_ = s.Conn.Close() // hangs up before the data
	})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	cfg, err := dsn.Parse("clickhouse://default@" + srv.Addr() + "/default")
	if err != nil {
		t.Fatal(err)
	}
	c, err := Dial(context.Background(), cfg, srv.Addr(), Dialer{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ins, err := c.OpenInsert(context.Background(), "INSERT INTO t (s) VALUES", nil, true)
	if err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("x", 1<<20)
	var ferr error
	for range 64 { // the kernel takes the first writes after the peer's close
		if err := ins.Append(context.Background(), []any{big}); err != nil {
			ferr = err
			break
		}
		if ferr = ins.flush(); ferr != nil {
			break
		}
	}
	var te *TransportError
	if !errors.As(ferr, &te) || !IsTransport(ferr) {
		t.Fatalf("write to a closed server: %v, want a *TransportError", ferr)
	}
}
