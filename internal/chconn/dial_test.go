package chconn

import (
	"context"
	"errors"
	"testing"

	"github.com/chnative/chnative/dsn"
	"github.com/chnative/chnative/internal/faketest"
	"github.com/chnative/chnative/internal/testenv"
	"github.com/chnative/chnative/nativeproto"
)

// Dial and the handshake at the revisions the driver speaks: 18.16's (the oldest), a middle one
// and 26.7's (the latest); a server below the oldest is refused.

func TestDialRevisions(t *testing.T) {
	middle := faketest.ModernHello()
	middle.Major, middle.Minor, middle.Revision = 23, 1, nativeproto.RevServerQueryTimeInProgress // 54460
	for _, tc := range []struct {
		name     string
		hello    nativeproto.ServerHello
		pingEnds bool // the query's external tables end with a Ping (servers before 54429)
	}{
		{"54412", faketest.LegacyHello(), true},
		{"54460", middle, false},
		{"54488", faketest.ModernHello(), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rev := tc.hello.Revision
			c := dialScript(t, tc.hello, selectOne(t, rev), selectOne(t, rev))
			if c.Revision() != rev || c.Hello().Revision != rev {
				t.Fatalf("negotiated %d, hello %d; want %d", c.Revision(), c.Hello().Revision, rev)
			}
			if c.Hello().Major != tc.hello.Major || c.Hello().Minor != tc.hello.Minor {
				t.Errorf("hello says %d.%d", c.Hello().Major, c.Hello().Minor)
			}
			if c.pingEndsTables != tc.pingEnds {
				t.Errorf("external tables end with a Ping: %v, want %v", c.pingEndsTables, tc.pingEnds)
			}
			// Two queries: the second proves the first left nothing unread (a Pong, say).
			checkSelectOne(t, c)
			checkSelectOne(t, c)
		})
	}
}

// A server announcing a revision below the oldest the driver speaks is refused at its Hello, as
// a lie: a *DialError wrapping a *ProtocolError, before any query.
func TestDialRefusesRevisionBelowOldest(t *testing.T) {
	h := faketest.LegacyHello()
	h.Revision = nativeproto.OldestRevision - 1
	srv, err := faketest.NewServer(faketest.Script(h))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	cfg, err := dsn.Parse("clickhouse://default@" + srv.Addr() + "/default")
	if err != nil {
		t.Fatal(err)
	}
	c, err := Dial(context.Background(), cfg, srv.Addr(), Dialer{})
	if err == nil {
		c.Close()
		t.Fatal("Dial accepted a server of revision 54411")
	}
	var de *DialError
	var pe *ProtocolError
	if !errors.As(err, &de) || !errors.As(err, &pe) || de.Addr != srv.Addr() {
		t.Fatalf("Dial: %T %v, want a *DialError wrapping a *ProtocolError", err, err)
	}
}

// A server that answers the Hello with an exception (a refused login) is the server's
// *Exception, not a *DialError.
func TestDialServerException(t *testing.T) {
	srv, err := faketest.NewServer(func(s *faketest.Session) {
		if code, err := s.ReadClientCode(); err != nil || code != nativeproto.ClientCodeHello {
			return
		}
		if s.Hello.Decode(s.R) != nil {
			return
		}
		_ = s.Write(faketest.Exception(nil, 516, "default: Authentication failed", 1))
		s.Drain(faketest.DrainAfterScript)
	})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	cfg, err := dsn.Parse("clickhouse://default@" + srv.Addr() + "/default")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Dial(context.Background(), cfg, srv.Addr(), Dialer{})
	var ex *Exception
	var de *DialError
	if !errors.As(err, &ex) || ex.Code != 516 || errors.As(err, &de) {
		t.Fatalf("Dial: %T %v, want the server's *Exception 516", err, err)
	}
}

// The test server negotiates its own revision (54412 for 18.16, 54488 for 26.7: the client's
// is the latest) and runs queries on the connection.
func TestDialRealServer(t *testing.T) {
	want := testenv.ServerHello(t)
	c := dialTest(t)
	if uint64(c.Hello().Revision) != want.Revision || c.Revision() != nativeproto.Negotiate(c.ClientRevision(), c.Hello().Revision) {
		t.Fatalf("hello revision %d, negotiated %d; the server says %s", c.Hello().Revision, c.Revision(), want)
	}
	if c.Hello().Major != want.Major || c.Hello().Minor != want.Minor {
		t.Fatalf("hello %d.%d, the server says %s", c.Hello().Major, c.Hello().Minor, want)
	}
	if c.pingEndsTables != (c.Hello().Revision < nativeproto.RevSettingsAsStrings) {
		t.Errorf("external tables end with a Ping: %v at revision %d", c.pingEndsTables, c.Hello().Revision)
	}
	for range 2 {
		if _, err := c.Begin(false); err != nil {
			t.Fatal(err)
		}
		r, err := c.Query(context.Background(), "SELECT 1", nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := readToEnd(r); err != nil {
			t.Fatal(err)
		}
	}
}
