package faketest

import (
	"encoding/binary"
	"fmt"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/nativeproto"
)

// Helpers for hostile-server tests: a Hello of any revision (a modern server's, or a lie), and
// server packets of any code, revision and compression method built from hand-made columns, so
// a test can put any bytes behind valid checksums.

// ModernHello is a ClickHouse 26.7 Hello at nativeproto.LatestRevision that declines chunked
// packets, as the real server does by default.
func ModernHello() nativeproto.ServerHello {
	return nativeproto.ServerHello{Name: "ClickHouse", Major: 26, Minor: 7, Revision: nativeproto.LatestRevision,
		ParallelReplicasVersion: 8, Timezone: "UTC", DisplayName: "faketest", Patch: 1,
		ChunkedSend: nativeproto.ChunkedOff, ChunkedRecv: nativeproto.ChunkedOff,
		ClusterFunctionVersion: nativeproto.ClusterFunctionProtocolVersion}
}

// HandshakeHello reads the client Hello, answers with h (whatever revision it announces) and,
// when the negotiated revision has one, reads the client's addendum. Later reads of the session
// (ReadQuery, Revision) follow h.Revision.
func (s *Session) HandshakeHello(h nativeproto.ServerHello) error {
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
	if err := h.Encode(&w, s.Hello.Revision); err != nil {
		return err
	}
	if err := s.Write(w.Buf); err != nil {
		return err
	}
	s.serverRev = h.Revision
	if rev := s.Revision(); rev.Has(nativeproto.RevAddendum) {
		var a nativeproto.Addendum
		return a.Decode(s.R, rev)
	}
	return nil
}

// announced is the revision the session's server announced.
func (s *Session) announced() nativeproto.Revision {
	if s.serverRev != 0 {
		return s.serverRev
	}
	return Revision
}

// readEmptyData reads the empty Data block that ends a query's external tables.
func (s *Session) readEmptyData(compressed bool) error {
	code, err := s.R.UVarInt()
	if err != nil {
		return err
	}
	if nativeproto.ClientCode(code) != nativeproto.ClientCodeData {
		return fmt.Errorf("faketest: got client packet %d after the query, want Data", code)
	}
	if _, err := s.R.String("table", 1<<10); err != nil {
		return err
	}
	src := s.R
	if compressed {
		src = columns.NewReader(nativeproto.NewFrameReader(s.R))
	}
	b, err := nativeproto.ReadBlock(src, s.Revision(), true, nil)
	if err != nil {
		return err
	}
	if b.NumColumns() != 0 || b.Rows() != 0 {
		return fmt.Errorf("faketest: a block of %d columns and %d rows after the query", b.NumColumns(), b.Rows())
	}
	return nil
}

// BlockPacket appends a packet of code (Data, Totals, Extremes, Log, ProfileEvents) holding a
// block of rows rows and the given columns, laid out for revision rev. Each Col's Data is what
// follows its type on the wire: at revisions with custom serialization (54454) it starts with
// the has_custom byte (EncodeColumnAt writes it). The block part is compressed into frames of
// method when method is not 0 (MethodNone gives uncompressed frames).
func BlockPacket(dst []byte, code nativeproto.ServerCode, rev nativeproto.Revision, method nativeproto.Method, rows uint64, cols []Col) []byte {
	dst = binary.AppendUvarint(dst, uint64(code))
	dst = append(dst, 0) // empty table name
	var body columns.Writer
	if rev.Has(nativeproto.RevBlockInfo) {
		body.UVarInt(1)
		body.Bool(false)
		body.UVarInt(2)
		body.Int32(-1)
		body.UVarInt(0)
	}
	body.UVarInt(uint64(len(cols)))
	body.UVarInt(rows)
	for _, c := range cols {
		body.String(c.Name)
		body.String(c.Type)
		body.Raw(c.Data)
	}
	return Compress(dst, method, body.Buf)
}

// Compress appends data as it is (method 0) or as frames of method with valid checksums.
func Compress(dst []byte, method nativeproto.Method, data []byte) []byte {
	if method == 0 {
		return append(dst, data...)
	}
	out, err := nativeproto.AppendCompressed(dst, data, method, 0)
	if err != nil {
		panic(err) // compressing an in-memory buffer does not fail
	}
	return out
}

// EncodeColumnAt encodes values into a well-formed column of type typ as a server of revision
// rev sends it (the has_custom byte first from 54454, Dynamic and JSON in the revision's
// serialization).
func EncodeColumnAt(rev nativeproto.Revision, name, typ string, values ...any) (Col, error) {
	c, err := columns.New(typ)
	if err != nil {
		return Col{}, err
	}
	for _, v := range values {
		if err := c.AppendValue(v); err != nil {
			return Col{}, err
		}
	}
	b := nativeproto.NewBlock()
	b.Add(name, c)
	var w columns.Writer
	if err := nativeproto.WriteBlock(&w, rev, false, b); err != nil {
		return Col{}, err
	}
	var h columns.Writer
	h.UVarInt(1)
	h.UVarInt(uint64(c.Rows()))
	h.String(name)
	h.String(typ)
	return Col{Name: name, Type: typ, Data: append([]byte(nil), w.Buf[len(h.Buf):]...)}, nil
}

// ZSTDRLE returns one zstd frame whose content is n copies of b, in RLE blocks of blockSize
// bytes (the format allows at most 128 KiB; a larger size makes an invalid frame on purpose).
// Each block takes 4 bytes on the wire whatever its size: a decompression bomb.
func ZSTDRLE(b byte, n, blockSize int) []byte {
	// Magic, then a Frame_Header_Descriptor of 0 (no content size, no checksum, no dictionary,
	// not single-segment) and a Window_Descriptor of 2^(10+exp) bytes, exp large enough.
	f := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x00}
	exp := 0
	for 1<<(10+exp) < blockSize {
		exp++
	}
	f[5] = byte(exp << 3)
	for n > 0 {
		size := min(n, blockSize)
		n -= size
		hdr := uint32(size)<<3 | 1<<1 // block type 1: RLE
		if n == 0 {
			hdr |= 1 // last block
		}
		f = append(f, byte(hdr), byte(hdr>>8), byte(hdr>>16), b)
	}
	return f
}
