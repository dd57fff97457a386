//go:build linux

package hostile_test

import (
	"errors"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/internal/faketest"
	"github.com/chnative/chnative/nativeproto"
)

// okQuery gets a correct answer of 3 rows (n UInt64 = 1, 2, 3; s String); every other query gets
// the case's answer.
const okQuery = "SELECT 'ok'"

// fake is the child's scripted server and what it saw.
type fake struct {
	srv      *faketest.Server
	attempts atomic.Int64 // hostile queries received
	closed   atomic.Int64 // connections that got a hostile answer and were closed by the client
	reused   atomic.Int64 // connections that got a hostile answer and then another query
	queries  atomic.Int64 // queries received, of any kind
	cut      atomic.Int64 // for truncation cases: how many bytes of the answer to send
}

// env is what a case's answer is built for: the negotiated revision and the frame method of
// the query (0 when it is not compressed).
type env struct {
	rev    nativeproto.Revision
	method nativeproto.Method
	f      *fake
}

// startFake starts the fake server of case c, closed when the child ends.
func startFake(t *testing.T, c *hcase) *fake {
	f := new(fake)
	srv, err := faketest.NewServer(func(s *faketest.Session) {
		var err error
		switch {
		case c.hello != nil:
			err = s.HandshakeHello(c.hello())
		case c.modern:
			err = s.HandshakeHello(faketest.ModernHello())
		default:
			err = s.Handshake()
		}
		if err != nil {
			return
		}
		for {
			q, err := s.ReadQuery()
			if err != nil {
				return
			}
			f.queries.Add(1)
			e := env{rev: s.Revision(), f: f}
			if q.Compression {
				e.method = methodOf(c.comp)
			}
			if q.Body == okQuery {
				if s.Write(goodAnswer(e)) != nil {
					return
				}
				continue
			}
			f.attempts.Add(1)
			if c.trunc != nil {
				full := c.trunc(e)
				n := min(int(f.cut.Load()), len(full))
				if s.Write(full[:n]) != nil || n < len(full) {
					return // cut: the answer ends there
				}
				continue
			}
			_ = s.Write(c.answer(e))
			if c.want == wantOK {
				continue // a valid answer: the connection goes on
			}
			if c.closeAfter {
				f.closed.Add(1) // the answer ends there: EOF
				return
			}
			// Wait for the client to hang up, as it must after a lie. A query instead means the
			// connection went back to the pool: it is answered (the client may have read the
			// answer to its end) and counted.
			_ = s.Conn.SetReadDeadline(time.Now().Add(slow(c) * 8 * time.Second))
			q, err = s.ReadQuery()
			if err != nil {
				if !isTimeout(err) {
					f.closed.Add(1)
				}
				return
			}
			f.reused.Add(1)
			_ = s.Conn.SetReadDeadline(time.Time{})
			if q.Body == okQuery {
				if s.Write(goodAnswer(e)) != nil {
					return
				}
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	f.srv = srv
	return f
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// goodAnswer is the correct answer to okQuery.
func goodAnswer(e env) []byte {
	return e.join(
		e.header([2]string{"n", "UInt64"}, [2]string{"s", "String"}),
		e.data(3, e.enc("n", "UInt64", uint64(1), uint64(2), uint64(3)), e.enc("s", "String", "one", "two", "three")),
		e.end(),
	)
}

// Builders of answers.

// custom reports whether each column carries the has_custom byte at this revision.
func (e env) custom() bool { return e.rev.Has(nativeproto.RevCustomSerialization) }

// col is a hand-made column in the type's own encoding: data follows the type (and the
// has_custom byte 0 at revisions that have it).
func (e env) col(name, typ string, data []byte) faketest.Col {
	if e.custom() {
		data = append([]byte{0}, data...)
	}
	return faketest.Col{Name: name, Type: typ, Data: data}
}

// kinds is a hand-made column in a custom serialization: has_custom 1, then the kind-stack
// bytes and data as given.
func (e env) kinds(name, typ string, stack []byte, data []byte) faketest.Col {
	return faketest.Col{Name: name, Type: typ, Data: append(append([]byte{1}, stack...), data...)}
}

// enc is a well-formed column of the values.
func (e env) enc(name, typ string, values ...any) faketest.Col {
	c, err := faketest.EncodeColumnAt(e.rev, name, typ, values...)
	if err != nil {
		panic(err)
	}
	return c
}

// header is the result's header packet: no rows, the given (name, type) columns.
func (e env) header(cols ...[2]string) []byte {
	cs := make([]faketest.Col, len(cols))
	for i, c := range cols {
		cs[i] = e.col(c[0], c[1], nil)
	}
	return e.pkt(nativeproto.ServerCodeData, 0, cs...)
}

// data is a Data packet.
func (e env) data(rows uint64, cols ...faketest.Col) []byte {
	return e.pkt(nativeproto.ServerCodeData, rows, cols...)
}

// pkt is a block packet of any code, compressed as the query asked.
func (e env) pkt(code nativeproto.ServerCode, rows uint64, cols ...faketest.Col) []byte {
	method := e.method
	if code == nativeproto.ServerCodeLog || code == nativeproto.ServerCodeProfileEvents {
		if !e.rev.Has(nativeproto.RevCompressedLogsProfileEvents) {
			method = 0
		}
	}
	return faketest.BlockPacket(nil, code, e.rev, method, rows, cols)
}

// progress is a Progress packet at the revision.
func (e env) progress(rows, bytes uint64) []byte {
	var w columns.Writer
	p := nativeproto.Progress{ReadRows: rows, ReadBytes: bytes}
	p.Encode(&w, e.rev)
	return w.Buf
}

// end is EndOfStream, and the Pong of the Ping that ended the query at old revisions.
func (e env) end() []byte {
	b := faketest.EndOfStream(nil)
	if !e.rev.Has(nativeproto.RevSettingsAsStrings) {
		b = faketest.Pong(b)
	}
	return b
}

func (e env) join(parts ...[]byte) []byte {
	var out []byte
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}
