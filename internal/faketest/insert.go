package faketest

import (
	"fmt"
	"io"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/nativeproto"
)

// Helpers for fake servers that take inserts: the raw bytes of each client packet, so a test can
// check that a retried insert sends the same bytes again.

// Tap records every byte a session reads from its client.
type Tap struct {
	s   *Session
	rec []byte
}

// NewTap makes s read through a Tap and returns it. Call it before reading anything from s.
func NewTap(s *Session) *Tap {
	t := &Tap{s: s}
	s.R = columns.NewReader(tapReader{t})
	return t
}

type tapReader struct{ t *Tap }

func (r tapReader) Read(p []byte) (int, error) {
	n, err := r.t.s.Conn.Read(p)
	r.t.rec = append(r.t.rec, p[:n]...)
	return n, err
}

// Pos returns how many bytes the session has consumed (read from the client and not buffered).
func (t *Tap) Pos() int { return len(t.rec) - t.s.R.Buffered() }

// Since returns a copy of the bytes consumed from pos to now.
func (t *Tap) Since(pos int) []byte { return append([]byte(nil), t.rec[pos:t.Pos()]...) }

// Revision returns the revision the session negotiated with Handshake.
func (s *Session) Revision() nativeproto.Revision {
	return nativeproto.Negotiate(s.Hello.Revision, s.announced())
}

// ReadData reads a client Data packet at revision rev, its block compressed or not as the query
// said, and returns its bytes as the client sent them (code, table name, block) and its block.
// The empty block (no columns) ends an insert's data.
func ReadData(t *Tap, rev nativeproto.Revision, compressed bool) (raw []byte, b *nativeproto.Block, err error) {
	s := t.s
	start := t.Pos()
	code, err := s.R.UVarInt()
	if err != nil {
		return nil, nil, err
	}
	if nativeproto.ClientCode(code) != nativeproto.ClientCodeData {
		return nil, nil, fmt.Errorf("faketest: got client packet %d, want Data", code)
	}
	if _, err := s.R.String("table", 1<<10); err != nil {
		return nil, nil, err
	}
	src := s.R
	if compressed {
		// The FrameReader never reads past the frame that ends the block, so the tap's position
		// is the packet's end afterwards.
		src = columns.NewReader(nativeproto.NewFrameReader(s.R))
	}
	b, err = nativeproto.ReadBlock(src, rev, true, nil)
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, nil, err
	}
	return t.Since(start), b, nil
}

// HeaderPacket appends a server Data packet of block b (the empty block of a table's columns is
// the header an INSERT is answered with), encoded at revision rev and compressed as one LZ4
// frame when compressed is true.
func HeaderPacket(dst []byte, rev nativeproto.Revision, compressed bool, b *nativeproto.Block) ([]byte, error) {
	var w, body columns.Writer
	w.UVarInt(uint64(nativeproto.ServerCodeData))
	w.String("")
	if err := nativeproto.WriteBlock(&body, rev, true, b); err != nil {
		return nil, err
	}
	dst = append(dst, w.Buf...)
	if !compressed {
		return append(dst, body.Buf...), nil
	}
	return nativeproto.AppendCompressed(dst, body.Buf, nativeproto.MethodLZ4, 0)
}

// EmptyBlock returns a block with no rows of the given columns, each a name and a type.
func EmptyBlock(cols ...[2]string) (*nativeproto.Block, error) {
	b := nativeproto.NewBlock()
	for _, c := range cols {
		col, err := columns.New(c[1])
		if err != nil {
			return nil, err
		}
		b.Add(c[0], col)
	}
	return b, nil
}
