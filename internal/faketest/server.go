package faketest

import (
	"encoding/binary"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/nativeproto"
	"github.com/go-faster/city"
)

// Revision is the protocol revision the fake server announces: ClickHouse 18.16's, so the
// client ends a query's external tables with a Ping.
const Revision nativeproto.Revision = 54412

// Server is a scripted fake ClickHouse server: each accepted connection runs the handler in its
// own goroutine; the connection is closed when the handler returns.
type Server struct {
	ln      net.Listener
	handler func(*Session)
	accepts atomic.Int64

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
	wg     sync.WaitGroup
}

// NewServer listens on 127.0.0.1 (a free port) and serves each connection with handler.
func NewServer(handler func(*Session)) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Server{ln: ln, handler: handler, conns: map[net.Conn]struct{}{}}
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

// Addr returns the server's "127.0.0.1:port".
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Accepts returns the number of connections accepted so far.
func (s *Server) Accepts() int64 { return s.accepts.Load() }

// Close stops the server, closes every connection and waits for the handlers.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	err := s.ln.Close()
	s.wg.Wait()
	return err
}

func (s *Server) accept() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.accepts.Add(1)
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			c.Close()
			return
		}
		s.conns[c] = struct{}{}
		s.mu.Unlock()
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer func() {
				c.Close()
				s.mu.Lock()
				delete(s.conns, c)
				s.mu.Unlock()
			}()
			// A scripted conversation never needs long: bound it so nothing hangs a test.
			_ = c.SetDeadline(time.Now().Add(30 * time.Second))
			s.handler(&Session{Conn: c, R: columns.NewReader(c)})
		}()
	}
}

// Session is one connection to the fake server.
type Session struct {
	Conn  net.Conn
	R     *columns.Reader
	Hello nativeproto.ClientHello

	serverRev nativeproto.Revision // the revision announced (HandshakeHello); 0 means Revision
}

// Handshake reads the client Hello and answers with a Hello of Revision.
func (s *Session) Handshake() error {
	code, err := s.R.UVarInt()
	if err != nil {
		return err
	}
	if nativeproto.ClientCode(code) != nativeproto.ClientCodeHello {
		return fmt.Errorf("faketest: got client packet %d, want Hello", code)
	}
	if err := s.Hello.Decode(s.R); err != nil {
		return err
	}
	var w columns.Writer
	h := nativeproto.ServerHello{Name: "ClickHouse", Major: 18, Minor: 16, Revision: Revision, Timezone: "UTC",
		DisplayName: "faketest", Patch: 1}
	if err := h.Encode(&w, s.Hello.Revision); err != nil {
		return err
	}
	return s.Write(w.Buf)
}

// ReadQuery reads a Query packet and the Ping that ends its external tables.
func (s *Session) ReadQuery() (*nativeproto.Query, error) {
	code, err := s.R.UVarInt()
	if err != nil {
		return nil, err
	}
	if nativeproto.ClientCode(code) != nativeproto.ClientCodeQuery {
		return nil, fmt.Errorf("faketest: got client packet %d, want Query", code)
	}
	q := new(nativeproto.Query)
	if err := q.Decode(s.R, s.Revision()); err != nil {
		return nil, err
	}
	if s.announced() >= nativeproto.RevSettingsAsStrings {
		// From this revision the external tables end with an empty Data block, not a Ping.
		return q, s.readEmptyData(q.Compression)
	}
	if code, err = s.R.UVarInt(); err != nil {
		return nil, err
	}
	if nativeproto.ClientCode(code) != nativeproto.ClientCodePing {
		return nil, fmt.Errorf("faketest: got client packet %d after the query, want Ping", code)
	}
	return q, nil
}

// Write writes b to the client.
func (s *Session) Write(b []byte) error {
	_, err := s.Conn.Write(b)
	return err
}

// Drain reads and discards what the client sends until it closes the connection or d passes.
func (s *Session) Drain(d time.Duration) {
	_ = s.Conn.SetReadDeadline(time.Now().Add(d))
	buf := make([]byte, 4096)
	for {
		if _, err := s.Conn.Read(buf); err != nil {
			return
		}
	}
}

// Packet builders. They append to dst and return it.

// DataPacket appends a Data packet (code, empty table name, BlockInfo, counts) whose block has
// rows rows and the given pre-encoded columns, at Revision; compressed wraps the block part in
// one LZ4 frame (BlockPacket).
func DataPacket(dst []byte, rows uint64, cols []Col, compressed bool) []byte {
	var method nativeproto.Method
	if compressed {
		method = nativeproto.MethodLZ4
	}
	return BlockPacket(dst, nativeproto.ServerCodeData, Revision, method, rows, cols)
}

// Col is one column of a hand-made block: name, type and the encoded values.
type Col struct {
	Name, Type string
	Data       []byte
}

// EncodeColumn encodes values into a column of type typ, for a well-formed Col, as a server of
// Revision sends it (EncodeColumnAt).
func EncodeColumn(name, typ string, values ...any) (Col, error) {
	return EncodeColumnAt(Revision, name, typ, values...)
}

// Frame returns one compressed frame whose payload is payload as it is, with method byte
// method (0x02 none, 0x82 LZ4, 0x90 ZSTD) and a valid checksum. usizeOverride, when not 0, is
// written as the declared uncompressed size; badSum corrupts the checksum.
func Frame(method byte, payload []byte, usizeOverride uint32, badSum bool) []byte {
	hdr := make([]byte, 16+9, 16+9+len(payload))
	hdr[16] = method
	binary.LittleEndian.PutUint32(hdr[17:21], uint32(9+len(payload)))
	usize := uint32(len(payload))
	if usizeOverride != 0 {
		usize = usizeOverride
	}
	binary.LittleEndian.PutUint32(hdr[21:25], usize)
	f := append(hdr, payload...)
	h := city.CH128(f[16:])
	binary.LittleEndian.PutUint64(f[0:8], h.Low)
	binary.LittleEndian.PutUint64(f[8:16], h.High)
	if badSum {
		f[3] ^= 0x5a
	}
	return f
}

// EndOfStream appends an EndOfStream packet.
func EndOfStream(dst []byte) []byte { return append(dst, byte(nativeproto.ServerCodeEndOfStream)) }

// Pong appends a Pong packet.
func Pong(dst []byte) []byte { return append(dst, byte(nativeproto.ServerCodePong)) }

// Progress appends a Progress packet for the fake server's revision.
func Progress(dst []byte, rows, bytes uint64) []byte {
	var w columns.Writer
	p := nativeproto.Progress{ReadRows: rows, ReadBytes: bytes}
	p.Encode(&w, Revision)
	return append(dst, w.Buf...)
}

// Exception appends an Exception packet with depth nested records (depth >= 1).
func Exception(dst []byte, code int32, msg string, depth int) []byte {
	var w columns.Writer
	w.UVarInt(uint64(nativeproto.ServerCodeException))
	for i := 0; i < depth; i++ {
		w.Int32(code)
		w.String("DB::Exception")
		w.String(msg)
		w.String("")
		w.Bool(i < depth-1)
	}
	return append(dst, w.Buf...)
}

// UVarInt appends v as a varint.
func UVarInt(dst []byte, v uint64) []byte { return binary.AppendUvarint(dst, v) }
