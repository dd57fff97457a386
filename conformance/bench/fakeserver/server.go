// Package fakeserver is a ClickHouse impostor for client-side benchmarks, after ch-go's
// ch-bench-server: it completes a real handshake at revision 54460, then answers every query by
// streaming one pre-encoded Data block N times and EndOfStream, so that a benchmark measures the
// client and the loopback socket, not the server.
//
// The table named in the query picks the data (see Table): "SELECT * FROM u64_65536x153" streams
// 153 blocks of 65536 UInt64 rows. "SELECT 1" (no FROM) returns one row. INSERT INTO a table of a
// known shape gets that shape's header block; the client's Data blocks are read and dropped
// (uncompressed ones skipped by length without decoding, compressed ones decompressed and decoded). Blocks are compressed with the table's codec (lz4 unless the
// name ends in _zstd) only when the client's Query asked for compression. Ping gets Pong.
package fakeserver

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/nativeproto"
)

// Revision is the protocol revision the server announces (ch-go's and clickhouse-go's).
const Revision = nativeproto.RevServerQueryTimeInProgress // 54460

// Server is a running fake server.
type Server struct {
	ln    net.Listener
	mu    sync.Mutex
	cache map[string][]byte // encoded Data packet per table+compression
	hdrs  map[string][]byte // encoded header packet per shape+compression
	conns map[net.Conn]struct{}
	wg    sync.WaitGroup
}

// Start listens on addr ("127.0.0.1:0" for a free port) and serves in the background.
func Start(addr string) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := &Server{ln: ln, cache: map[string][]byte{}, hdrs: map[string][]byte{}, conns: map[net.Conn]struct{}{}}
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

// Addr returns host:port.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Close stops listening and closes every connection.
func (s *Server) Close() error {
	err := s.ln.Close()
	s.mu.Lock()
	for c := range s.conns {
		_ = c.Close()
	}
	s.mu.Unlock()
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
		s.mu.Lock()
		s.conns[c] = struct{}{}
		s.mu.Unlock()
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			_ = s.serve(c)
			_ = c.Close()
			s.mu.Lock()
			delete(s.conns, c)
			s.mu.Unlock()
		}()
	}
}

var (
	pong        = []byte{byte(nativeproto.ServerCodePong)}
	endOfStream = []byte{byte(nativeproto.ServerCodeEndOfStream)}
)

// serve runs one connection: handshake, then packets until EOF.
func (s *Server) serve(c net.Conn) error {
	pr := nativeproto.NewPacketReader(c)
	r := pr.Reader()
	code, err := pr.ReadCode()
	if err != nil {
		return err
	}
	if code != 0 {
		return fmt.Errorf("fakeserver: first packet %d, want Hello", code)
	}
	var hello nativeproto.ClientHello
	if err := hello.Decode(r); err != nil {
		return err
	}
	rev := nativeproto.Negotiate(hello.Revision, Revision)
	var w columns.Writer
	sh := nativeproto.ServerHello{Name: "ClickHouse", Major: 24, Minor: 8, Revision: Revision,
		Timezone: "UTC", DisplayName: "fakeserver", Patch: 1}
	if err := sh.Encode(&w, hello.Revision); err != nil {
		return err
	}
	if _, err := c.Write(w.Buf); err != nil {
		return err
	}
	if rev.Has(nativeproto.RevAddendum) {
		var a nativeproto.Addendum
		if err := a.Decode(r, rev); err != nil {
			return err
		}
	}
	pr.SetRevision(rev)
	reuse := nativeproto.NewBlock()
	for {
		code, err := pr.ReadCode()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		switch nativeproto.ClientCode(code) {
		case nativeproto.ClientCodePing:
			if _, err := c.Write(pong); err != nil {
				return err
			}
		case nativeproto.ClientCodeCancel:
		case nativeproto.ClientCodeData:
			// A stray block (after a cancelled insert): read and drop.
			if _, _, err := pr.ReadBlock(reuse); err != nil {
				return err
			}
		case nativeproto.ClientCodeQuery:
			var q nativeproto.Query
			if err := q.Decode(r, rev); err != nil {
				return err
			}
			pr.SetCompression(q.Compression)
			// External tables end with an empty Data block (or, from old clients, a Ping).
			for {
				code, err := pr.ReadCode()
				if err != nil {
					return err
				}
				if nativeproto.ClientCode(code) == nativeproto.ClientCodePing {
					if _, err := c.Write(pong); err != nil {
						return err
					}
					break
				}
				if nativeproto.ClientCode(code) != nativeproto.ClientCodeData {
					return fmt.Errorf("fakeserver: packet %d after Query, want Data", code)
				}
				_, b, err := pr.ReadBlock(reuse)
				if err != nil {
					return err
				}
				if b.NumColumns() == 0 {
					break
				}
			}
			if err := s.query(c, pr, &q, reuse); err != nil {
				return err
			}
		default:
			return fmt.Errorf("fakeserver: unexpected client packet %d", code)
		}
	}
}

// query answers one query.
func (s *Server) query(c net.Conn, pr *nativeproto.PacketReader, q *nativeproto.Query, reuse *nativeproto.Block) error {
	body := strings.TrimSpace(q.Body)
	up := strings.ToUpper(body)
	if strings.HasPrefix(up, "INSERT") {
		t, err := ParseTable(wordAfter(body, up, "INTO"))
		if err != nil {
			return s.exception(c, err)
		}
		hdr, err := s.header(t, q.Compression)
		if err != nil {
			return s.exception(c, err)
		}
		if _, err := c.Write(hdr); err != nil {
			return err
		}
		d := discarder{rev: pr.Revision()}
		r := pr.Reader()
		for {
			code, err := pr.ReadCode()
			if err != nil {
				return err
			}
			if nativeproto.ClientCode(code) != nativeproto.ClientCodeData {
				return fmt.Errorf("fakeserver: packet %d during insert, want Data", code)
			}
			if !q.Compression {
				// Uncompressed blocks are skipped, not decoded.
				if _, err := r.String("table name", 1<<20); err != nil {
					return err
				}
				end, err := d.block(r)
				if err != nil {
					return err
				}
				if end {
					break
				}
				continue
			}
			_, b, err := pr.ReadBlock(reuse)
			if err != nil {
				return err
			}
			if b.NumColumns() == 0 && b.Rows() == 0 {
				break
			}
		}
		_, err = c.Write(endOfStream)
		return err
	}
	var t Table
	if strings.Contains(up, " FROM ") {
		var err error
		t, err = ParseTable(wordAfter(body, up, "FROM"))
		if err != nil {
			return s.exception(c, err)
		}
	} else {
		t = Table{Shape: "one", Rows: 1, Blocks: 1, Codec: nativeproto.MethodLZ4}
	}
	hdr, err := s.header(t, q.Compression)
	if err != nil {
		return s.exception(c, err)
	}
	data, err := s.data(t, q.Compression)
	if err != nil {
		return s.exception(c, err)
	}
	bufs := make(net.Buffers, 0, t.Blocks+2)
	bufs = append(bufs, hdr)
	for range t.Blocks {
		bufs = append(bufs, data)
	}
	bufs = append(bufs, endOfStream)
	_, err = bufs.WriteTo(c)
	return err
}

// wordAfter returns the identifier after keyword kw in body (up is body in upper case).
func wordAfter(body, up, kw string) string {
	i := strings.Index(up, " "+kw+" ")
	if i < 0 {
		return ""
	}
	rest := strings.TrimSpace(body[i+len(kw)+2:])
	end := strings.IndexAny(rest, " (\n\t;")
	if end >= 0 {
		rest = rest[:end]
	}
	return rest
}

func (s *Server) exception(c net.Conn, err error) error {
	var w columns.Writer
	e := nativeproto.Exception{Code: 60, Name: "DB::Exception", Message: err.Error()}
	e.Encode(&w)
	_, werr := c.Write(w.Buf)
	return werr
}

// header returns the encoded header Data packet (no rows) of t's shape.
func (s *Server) header(t Table, compress bool) ([]byte, error) {
	key := fmt.Sprintf("%s/%v/%d", t.Shape, compress, t.Codec)
	s.mu.Lock()
	defer s.mu.Unlock()
	if p, ok := s.hdrs[key]; ok {
		return p, nil
	}
	b, err := BuildBlock(t.Shape, 0)
	if err != nil {
		return nil, err
	}
	p, err := EncodeDataPacket(b, compress, t.Codec)
	if err != nil {
		return nil, err
	}
	s.hdrs[key] = p
	return p, nil
}

// data returns the encoded Data packet of one block of t.
func (s *Server) data(t Table, compress bool) ([]byte, error) {
	key := fmt.Sprintf("%s/%d/%v/%d", t.Shape, t.Rows, compress, t.Codec)
	s.mu.Lock()
	defer s.mu.Unlock()
	if p, ok := s.cache[key]; ok {
		return p, nil
	}
	b, err := BuildBlock(t.Shape, t.Rows)
	if err != nil {
		return nil, err
	}
	p, err := EncodeDataPacket(b, compress, t.Codec)
	if err != nil {
		return nil, err
	}
	s.cache[key] = p
	return p, nil
}

// EncodeDataPacket encodes a server Data packet (code, empty table name, block) at Revision,
// the block compressed with codec when compress is set.
func EncodeDataPacket(b *nativeproto.Block, compress bool, codec nativeproto.Method) ([]byte, error) {
	var w columns.Writer
	w.UVarInt(uint64(nativeproto.ServerCodeData))
	w.String("")
	var body columns.Writer
	if err := nativeproto.WriteBlock(&body, Revision, true, b); err != nil {
		return nil, err
	}
	if !compress {
		return append(w.Buf, body.Buf...), nil
	}
	comp, err := nativeproto.NewCompressor(codec, 0)
	if err != nil {
		return nil, err
	}
	return comp.Append(w.Buf, body.Buf)
}

// Stream returns the exact bytes the server sends for a SELECT of t: header, blocks and
// EndOfStream (used to check readers).
func Stream(t Table, compress bool) ([]byte, error) {
	s := &Server{cache: map[string][]byte{}, hdrs: map[string][]byte{}}
	hdr, err := s.header(t, compress)
	if err != nil {
		return nil, err
	}
	data, err := s.data(t, compress)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	buf.Write(hdr)
	for range t.Blocks {
		buf.Write(data)
	}
	buf.Write(endOfStream)
	return buf.Bytes(), nil
}
