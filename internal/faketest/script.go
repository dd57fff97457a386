package faketest

import (
	"fmt"
	"sync"
	"time"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/nativeproto"
)

// Helpers for a conversation of several queries on one connection: a handler that answers the
// client's queries in turn, and a read of the client's next packet code (a Cancel, say).

// Answer answers one query the session has just read (ReadQuery): it writes the server's
// packets and may read more from the client (ReadClientCode for a Cancel). An error ends the
// conversation: the connection is closed.
type Answer func(s *Session, q *nativeproto.Query) error

// Script returns a handler that handshakes with hello (HandshakeHello) and answers the client's
// queries in turn with answers. After the last answer it reads and discards what the client
// sends until the client hangs up (Drain, bounded by the server's deadline).
func Script(hello nativeproto.ServerHello, answers ...Answer) func(*Session) {
	return func(s *Session) {
		if s.HandshakeHello(hello) != nil {
			return
		}
		for _, a := range answers {
			q, err := s.ReadQuery()
			if err != nil {
				return
			}
			if a(s, q) != nil {
				return
			}
		}
		s.Drain(DrainAfterScript)
	}
}

// Numbered returns a handler that handshakes (Handshake) and answers the n-th query of the whole
// server (counted over all its connections, from 0) with answer(n), hanging up when cut is set;
// hangup makes it hang up right after the TCP accept instead, before any handshake.
func Numbered(hangup bool, answer func(n int) (b []byte, cut bool)) func(*Session) {
	var mu sync.Mutex
	n := 0
	return func(s *Session) {
		if hangup || s.Handshake() != nil {
			return
		}
		for {
			if _, err := s.ReadQuery(); err != nil {
				return
			}
			mu.Lock()
			b, cut := answer(n)
			n++
			mu.Unlock()
			if s.Write(b) != nil || cut {
				return
			}
		}
	}
}

// DrainAfterScript bounds how long Script's handler reads after its last answer.
const DrainAfterScript = 10 * time.Second

// Send returns an Answer that writes packets.
func Send(packets []byte) Answer {
	return func(s *Session, _ *nativeproto.Query) error { return s.Write(packets) }
}

// ReadClientCode reads the code of the client's next packet.
func (s *Session) ReadClientCode() (nativeproto.ClientCode, error) {
	code, err := s.R.UVarInt()
	return nativeproto.ClientCode(code), err
}

// ExpectCancel reads the client's next packet and returns an error unless it is a Cancel.
func (s *Session) ExpectCancel() error {
	code, err := s.ReadClientCode()
	if err != nil {
		return err
	}
	if code != nativeproto.ClientCodeCancel {
		return fmt.Errorf("faketest: got client packet %d, want Cancel", code)
	}
	return nil
}

// LegacyHello is the Hello of ClickHouse 18.16 at Revision (54412): a query's external tables
// end with a Ping there, which the server answers with a Pong (see EndQuery).
func LegacyHello() nativeproto.ServerHello {
	return nativeproto.ServerHello{Name: "ClickHouse", Major: 18, Minor: 16, Revision: Revision,
		Timezone: "UTC", DisplayName: "faketest", Patch: 1}
}

// EndQuery appends what ends a query's answer at revision rev: EndOfStream, and before it the
// Pong that answers the Ping the client ends the query with below RevSettingsAsStrings.
func EndQuery(dst []byte, rev nativeproto.Revision) []byte {
	if rev < nativeproto.RevSettingsAsStrings {
		dst = Pong(dst)
	}
	return EndOfStream(dst)
}

// ProgressAt appends a Progress packet laid out for revision rev (Progress is 18.16's).
func ProgressAt(dst []byte, rev nativeproto.Revision, rows, bytes uint64) []byte {
	var w columns.Writer
	p := nativeproto.Progress{ReadRows: rows, ReadBytes: bytes}
	p.Encode(&w, rev)
	return append(dst, w.Buf...)
}
