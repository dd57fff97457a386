package nativeproto

import (
	"io"
	"net"

	"github.com/chnative/chnative/internal/wire"
)

// PacketWriter accumulates client packets in a buffer that Flush sends. Block bodies of Data
// packets are compressed when a Compressor is set. Buffers are reused, so steady-state writing
// does not allocate. It is not safe for concurrent use.
type PacketWriter struct {
	buf  wire.Writer
	body wire.Writer // uncompressed block body, when compressing
	comp *Compressor
	rev  Revision

	// Column data sent from the columns' own memory (WriteDataStream): borrowed[i].data goes
	// out after buf[:borrowed[i].at]. Flush writes them with one writev where the writer can.
	borrowed []borrowedSeg
	bufs     net.Buffers // scratch for Flush

	// small holds, for buf and body, the buffer of at most keepWriteBuffer bytes that a spare
	// one replaced (reclaim), for Shrink to go back to without allocating.
	small [2][]byte
}

type borrowedSeg struct {
	at   int
	data []byte
}

// MinBorrow is the smallest column, in bytes, that WriteDataStream sends from the column's
// memory; smaller ones are copied into the buffer.
const MinBorrow = 16 << 10

// NewPacketWriter returns a PacketWriter with revision ClientRevision and no compression.
func NewPacketWriter() *PacketWriter { return &PacketWriter{rev: ClientRevision} }

// SetRevision sets the negotiated revision that gates packet fields.
func (p *PacketWriter) SetRevision(rev Revision) { p.rev = rev }

// Revision returns the revision set by SetRevision.
func (p *PacketWriter) Revision() Revision { return p.rev }

// SetCompressor sets the compressor of Data block bodies; nil turns compression off. It must
// agree with the Compression flag of the current Query.
func (p *PacketWriter) SetCompressor(c *Compressor) { p.comp = c }

// Buffer returns the pending bytes buffer, for packets this type has no method for.
func (p *PacketWriter) Buffer() *wire.Writer { return &p.buf }

// Len returns the number of pending bytes in the buffer (column data borrowed by
// WriteDataStream not counted).
func (p *PacketWriter) Len() int { return len(p.buf.Buf) }

// Reset discards pending bytes.
func (p *PacketWriter) Reset() {
	p.buf.Reset()
	p.dropBorrowed()
}

func (p *PacketWriter) dropBorrowed() {
	clear(p.borrowed)
	p.borrowed = p.borrowed[:0]
}

// Flush writes the pending bytes to w and empties the buffer (also on error: the connection is
// then unusable anyway). Column memory borrowed by WriteDataStream is written in place, with
// one writev when w is a *net.TCPConn or *net.UnixConn.
func (p *PacketWriter) Flush(w io.Writer) error {
	if len(p.borrowed) == 0 {
		if len(p.buf.Buf) == 0 {
			return nil
		}
		_, err := w.Write(p.buf.Buf)
		p.buf.Reset()
		return err
	}
	bufs := p.bufs[:0]
	prev := 0
	for _, s := range p.borrowed {
		if s.at > prev {
			bufs = append(bufs, p.buf.Buf[prev:s.at])
		}
		bufs = append(bufs, s.data)
		prev = s.at
	}
	if len(p.buf.Buf) > prev {
		bufs = append(bufs, p.buf.Buf[prev:])
	}
	// WriteTo consumes its receiver: it runs on the field (a local would move to the heap, an
	// allocation a Flush), and bufs keeps the backing array for the next Flush.
	p.bufs = bufs
	_, err := p.bufs.WriteTo(w)
	clear(bufs[:cap(bufs)])
	p.bufs = bufs[:0]
	p.buf.Reset()
	p.dropBorrowed()
	return err
}

// WriteHello appends a client Hello.
func (p *PacketWriter) WriteHello(h *ClientHello) { h.Encode(&p.buf) }

// WriteAddendum appends the addendum for the negotiated revision (nothing below RevAddendum).
func (p *PacketWriter) WriteAddendum(quotaKey string) { WriteAddendum(&p.buf, p.rev, quotaKey) }

// WriteQuery appends a Query packet. On error nothing is appended.
func (p *PacketWriter) WriteQuery(q *Query) error { return q.Encode(&p.buf, p.rev) }

// WriteData appends a Data packet: code, table name, and the block, compressed when a Compressor
// is set. On error nothing is appended.
//
// Compressed, the block goes out as frames of WriteFrame bytes (ZSTD: FrameChunk) of its Native
// form, cut where the bytes fall (the frames do not follow columns). Large fixed-width columns
// are compressed from the columns' own memory, and the other columns' bytes leave the body buffer
// a whole frame at a time after each column or run of rows, so the uncompressed buffer holds at
// most a frame and a column (or run), not the block (see WriteDataStream).
func (p *PacketWriter) WriteData(table string, b *Block) error {
	if p.comp != nil {
		return p.WriteDataStream(table, b, nil)
	}
	p.reclaim()
	start := len(p.buf.Buf)
	p.buf.UVarInt(uint64(ClientCodeData))
	p.buf.String(table)
	if err := WriteBlock(&p.buf, p.rev, true, b); err != nil {
		p.buf.Buf = p.buf.Buf[:start]
		return err
	}
	return nil
}

// compressBody appends the body's bytes and then data as frames of the compressor's writeFrame
// bytes, as far as whole frames go, and leaves the rest (under a frame) in the body. data is
// compressed where it lies, but for the bytes that fill the body's last frame and those left over.
func (p *PacketWriter) compressBody(data []byte) error {
	size := p.comp.writeFrame()
	body := p.body.Buf
	whole := len(body) - len(body)%size
	var err error
	if whole > 0 {
		if p.buf.Buf, err = p.comp.appendFrames(p.buf.Buf, body[:whole], size); err != nil {
			return err
		}
		body = body[:copy(body, body[whole:])]
	}
	if len(body)+len(data) < size {
		p.body.Buf = append(body, data...)
		return nil
	}
	if len(body) > 0 {
		fill := size - len(body)
		body = append(body, data[:fill]...)
		data = data[fill:]
		if p.buf.Buf, err = p.comp.appendFrames(p.buf.Buf, body, size); err != nil {
			return err
		}
	}
	whole = len(data) - len(data)%size
	if p.buf.Buf, err = p.comp.appendFrames(p.buf.Buf, data[:whole], size); err != nil {
		return err
	}
	p.body.Buf = append(body[:0], data[whole:]...)
	return nil
}

// StreamChunk is about the most bytes WriteDataStream lets pend before it calls its spill func:
// with a run of rows (writeRun) on top, an uncompressed block's pieces fit in the buffer a
// connection keeps (keepWriteBuffer).
const StreamChunk = 256 << 10

// compressedSpill is StreamChunk for a compressed block: past the packet's first bytes, so each
// frame goes out as it is made.
const compressedSpill = 1 << 10

// WriteDataStream appends a Data packet as WriteData does, for a block that need never be held
// encoded whole:
//   - without compression, the data of large fixed-width columns (columns.WireByteser of at least
//     MinBorrow bytes) is not copied: Flush sends it from the columns' memory, which must not
//     change until then;
//   - when spill is not nil, it is called whenever the pending bytes (PendingLen) reach
//     StreamChunk after a column or a run of a column's rows (columns.RowRangeWriter), or, with
//     compression, after each frame, and must take them (Flush them to the connection). The
//     buffers so hold about StreamChunk bytes and a run, or a frame and a run, whatever the
//     block's size.
//
// On an error before spill was first called nothing is appended; after, the packet is partly
// out and the connection cannot go on.
func (p *PacketWriter) WriteDataStream(table string, b *Block, spill func()) error {
	p.reclaim()
	start, nb := len(p.buf.Buf), len(p.borrowed)
	p.buf.UVarInt(uint64(ClientCodeData))
	p.buf.String(table)
	// Compressed, a frame goes out as soon as it is made: the buffer holds one, not StreamChunk
	// bytes and a frame.
	chunk := StreamChunk
	if p.comp != nil {
		chunk = compressedSpill
	}
	spilled := false
	check := func() {
		if spill != nil && p.PendingLen() >= chunk {
			spilled = true
			spill()
		}
	}
	var err error
	if p.comp == nil {
		err = writeBlock(&p.buf, p.rev, true, b, func(data []byte) {
			p.borrowed = append(p.borrowed, borrowedSeg{at: len(p.buf.Buf), data: data})
			check()
		}, check)
	} else {
		// The body holds a frame and a run of rows (and buf, with ZSTD, a frame compressed):
		// sized once for a block of a frame or more, they are not outgrown (Shrink keeps them).
		size := p.comp.writeFrame()
		if keep := p.keepLimit(1); cap(p.body.Buf) < keep && b.DataBytes(int64(size)) >= int64(size) {
			p.body.Buf = make([]byte, 0, keep)
			if keep := p.keepLimit(0); cap(p.buf.Buf) < keep { // a frame compressed
				p.buf.Buf = append(make([]byte, 0, keep), p.buf.Buf...)
			}
		}
		p.body.Reset()
		var cerr error
		compress := func(data []byte) {
			for cerr == nil {
				n := min(len(data), size)
				cerr = p.compressBody(data[:n])
				check()
				if data = data[n:]; len(data) == 0 {
					return
				}
			}
		}
		err = writeBlock(&p.body, p.rev, true, b, compress, func() { compress(nil) })
		if err == nil {
			err = cerr
		}
		if err == nil {
			err = p.appendCompressed(len(p.buf.Buf))
		}
	}
	if err != nil && !spilled {
		p.buf.Buf = p.buf.Buf[:start]
		clear(p.borrowed[nb:])
		p.borrowed = p.borrowed[:nb]
	}
	return err
}

func (p *PacketWriter) appendCompressed(start int) error {
	out, err := p.comp.appendFrames(p.buf.Buf, p.body.Buf, p.comp.writeFrame())
	if err != nil {
		p.buf.Buf = out[:start]
		return err
	}
	p.buf.Buf = out
	return nil
}

// WriteEmptyData appends a Data packet with an empty block (no columns, no rows), which ends the
// external tables after a Query and the data of an INSERT.
func (p *PacketWriter) WriteEmptyData() error {
	start := len(p.buf.Buf)
	p.buf.UVarInt(uint64(ClientCodeData))
	p.buf.String("")
	if p.comp == nil {
		writeEmptyBlock(&p.buf, p.rev)
		return nil
	}
	p.body.Reset()
	writeEmptyBlock(&p.body, p.rev)
	return p.appendCompressed(start)
}

// WritePing appends a Ping packet.
func (p *PacketWriter) WritePing() { p.buf.UVarInt(uint64(ClientCodePing)) }

// WriteCancel appends a Cancel packet.
func (p *PacketWriter) WriteCancel() { p.buf.UVarInt(uint64(ClientCodeCancel)) }

// WriteKeepAlive appends a KeepAlive packet.
func (p *PacketWriter) WriteKeepAlive() { p.buf.UVarInt(uint64(ClientCodeKeepAlive)) }

// WriteTablesStatusRequest appends a TablesStatusRequest packet.
func (p *PacketWriter) WriteTablesStatusRequest(q *TablesStatusRequest) { q.Encode(&p.buf) }

// WriteSSHChallengeRequest appends an SSHChallengeRequest packet.
func (p *PacketWriter) WriteSSHChallengeRequest() {
	p.buf.UVarInt(uint64(ClientCodeSSHChallengeRequest))
}

// WriteSSHChallengeResponse appends an SSHChallengeResponse packet carrying signature.
func (p *PacketWriter) WriteSSHChallengeResponse(signature string) {
	p.buf.UVarInt(uint64(ClientCodeSSHChallengeResponse))
	p.buf.String(signature)
}
