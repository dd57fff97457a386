package nativeproto

import (
	"io"

	"github.com/chnative/chnative/internal/wire"
)

// maxPartUUIDs caps the PartUUIDs list.
const maxPartUUIDs = 1 << 20

// PacketReader reads server packets from a connection: a buffered reader over the socket plus a
// decompressing reader used for the block part of Data, Totals and Extremes packets when the
// query enabled compression. It is not safe for concurrent use.
//
// The driver calls ReadCode and then the Read method matching the code (or SkipPacket). After
// any error other than a decoded server Exception the stream is out of sync and the connection
// must be closed.
type PacketReader struct {
	raw      *wire.Reader // the socket
	frames   *FrameReader // compressed frames from raw
	dec      *wire.Reader // decompressed bytes from frames
	rev      Revision
	compress bool
	decSized bool // dec has its decBufferSize buffer
	scratch  []byte
	skip     *Block // scratch block for SkipPacket
	// blockLimit is the budget of one block (SetBlockMemoryLimit).
	blockLimit int64
}

// DefaultBlockMemoryLimit is the default of [PacketReader.SetBlockMemoryLimit] (the DSN key
// block_memory_limit): 1 GiB, the server's own cap on one String.
const DefaultBlockMemoryLimit = 1 << 30

// NewPacketReader returns a PacketReader reading from src with revision ClientRevision and
// compression off.
func NewPacketReader(src io.Reader) *PacketReader {
	raw := wire.NewReader(src)
	frames := NewFrameReader(raw)
	// dec gets its real buffer from SetCompression(true): connections without compression
	// never need it.
	return &PacketReader{raw: raw, frames: frames, dec: wire.NewReaderSize(frames, wire.MinReaderSize), rev: ClientRevision,
		blockLimit: DefaultBlockMemoryLimit}
}

// SetBlockMemoryLimit sets the most bytes one block of a Data, Totals, Extremes, Log or
// ProfileEvents packet may make the client allocate: its bytes as decoded (after decompression),
// the rows sparse and replicated columns expand to, and the per-row storage its columns add
// (see wire.Reader.SetBudget). A block past it fails with a *wire.LimitError naming
// block_memory_limit; the stream is then out of sync. n <= 0 restores DefaultBlockMemoryLimit.
//
// What a query holds at once is the blocks in flight times this limit: the block being read,
// the one read ahead, and the block the caller still holds.
func (p *PacketReader) SetBlockMemoryLimit(n int64) {
	if n <= 0 {
		n = DefaultBlockMemoryLimit
	}
	p.blockLimit = n
	p.frames.SetFrameLimit(n)
}

// BlockMemoryLimit returns the limit SetBlockMemoryLimit set.
func (p *PacketReader) BlockMemoryLimit() int64 { return p.blockLimit }

// decBufferSize is the buffer of the decompressed stream: a whole frame (servers cut frames at
// 1 MiB of uncompressed data) plus room for the unread tail of the previous one, so that the
// frame reader decompresses straight into it instead of into a frame buffer and then copying.
const decBufferSize = aheadBufferSize

// Reset makes the reader read from src, dropping buffered data and keeping buffers; revision and
// compression are reset to ClientRevision and off.
func (p *PacketReader) Reset(src io.Reader) {
	p.raw.Reset(src)
	p.resetDecompressor()
	p.rev, p.compress = ClientRevision, false
}

func (p *PacketReader) resetDecompressor() {
	p.frames.Reset(p.raw)
	p.dec.Reset(p.frames)
}

// SetRevision sets the negotiated revision that gates packet fields.
func (p *PacketReader) SetRevision(rev Revision) { p.rev = rev }

// Revision returns the revision set by SetRevision.
func (p *PacketReader) Revision() Revision { return p.rev }

// SetCompression says whether block bodies are compressed: the Compression flag of the current
// Query.
func (p *PacketReader) SetCompression(on bool) {
	p.compress = on
	if on && !p.decSized {
		p.dec = wire.NewReaderSize(p.frames, decBufferSize)
		p.decSized = true
	}
}

// Reader returns the raw (uncompressed) reader, for packets this type has no method for.
func (p *PacketReader) Reader() *wire.Reader { return p.raw }

// Buffered returns the number of bytes read from the source and not yet consumed.
func (p *PacketReader) Buffered() int { return p.raw.Buffered() }

// ReadCode reads the next packet code. It returns io.EOF if the source ends cleanly before the
// code, and an *UnexpectedPacketError for a code the package does not know.
func (p *PacketReader) ReadCode() (ServerCode, error) {
	v, err := p.raw.UVarInt()
	if err != nil {
		if err == io.EOF {
			return 0, io.EOF
		}
		return 0, wrap(err, "packet code")
	}
	code := ServerCode(v)
	if code > maxServerCode {
		return code, &UnexpectedPacketError{Code: code}
	}
	return code, nil
}

// ReadHello reads the body of a server Hello into h; clientRev is the revision the client sent.
func (p *PacketReader) ReadHello(h *ServerHello, clientRev Revision) error {
	return h.Decode(p.raw, clientRev)
}

// ReadBlock reads the body of a Data, Totals, Extremes or PreviewData packet: the table name
// (raw), then the block, from the decompressing stream when compression is on. Decompressed bytes
// left over after the block are a protocol error. The block is decoded into reuse when not nil
// (see [Block]).
func (p *PacketReader) ReadBlock(reuse *Block) (table string, b *Block, err error) {
	return p.readBlockPacket(reuse, p.compress)
}

// ReadLogBlock reads the body of a Log or ProfileEvents packet. Those blocks are compressed only
// when compression is on and the revision is at least RevCompressedLogsProfileEvents; the table
// name before them stays uncompressed, as in Data packets (both kinds seen so from 26.7).
func (p *PacketReader) ReadLogBlock(reuse *Block) (table string, b *Block, err error) {
	return p.readBlockPacket(reuse, p.compress && p.rev.Has(RevCompressedLogsProfileEvents))
}

func (p *PacketReader) readBlockPacket(reuse *Block, compressed bool) (string, *Block, error) {
	var err error
	p.scratch, err = readStringBytes(p.raw, p.scratch, "table name", maxTableName)
	if err != nil {
		return "", reuse, wrap(err, "block table name")
	}
	var table string
	if len(p.scratch) > 0 {
		table = string(p.scratch)
	}
	src := p.raw
	if compressed {
		src = p.dec
	}
	src.SetBudget(p.blockLimit)
	b, err := readBlock(src, p.rev, true, reuse, &p.scratch)
	src.ClearBudget()
	if err == io.EOF {
		err = wrap(io.ErrUnexpectedEOF, "block")
	}
	if compressed {
		if err != nil {
			p.resetDecompressor()
			return table, b, err
		}
		if err := p.checkDecompressedDrained("block"); err != nil {
			p.resetDecompressor()
			return table, b, err
		}
	}
	return table, b, err
}

// ReadException reads the body of an Exception packet.
func (p *PacketReader) ReadException() (*Exception, error) {
	e := new(Exception)
	if err := e.Decode(p.raw); err != nil {
		return nil, err
	}
	return e, nil
}

// ReadProgress reads the body of a Progress packet.
func (p *PacketReader) ReadProgress() (Progress, error) {
	var v Progress
	err := v.Decode(p.raw, p.rev)
	return v, err
}

// ReadProfileInfo reads the body of a ProfileInfo packet.
func (p *PacketReader) ReadProfileInfo() (ProfileInfo, error) {
	var v ProfileInfo
	err := v.Decode(p.raw, p.rev)
	return v, err
}

// ReadTableColumns reads the body of a TableColumns packet. From RevCompressedLogsProfileEvents
// on, when compression is on, the whole body (table name included) comes in compressed frames:
// the 26.7 server sends it so.
func (p *PacketReader) ReadTableColumns() (TableColumns, error) {
	var v TableColumns
	if !p.compress || !p.rev.Has(RevCompressedLogsProfileEvents) {
		err := v.Decode(p.raw)
		return v, err
	}
	err := v.Decode(p.dec)
	if err == nil {
		err = p.checkDecompressedDrained("table columns")
	}
	if err != nil {
		p.resetDecompressor()
	}
	return v, err
}

// checkDecompressedDrained reports decompressed bytes left over after a compressed packet body:
// a frame never holds more than one packet.
func (p *PacketReader) checkDecompressedDrained(what string) error {
	if n := p.dec.Buffered() + p.frames.Buffered(); n > 0 {
		return protoErr("%d decompressed bytes left over after the %s", n, what)
	}
	return nil
}

// ReadTablesStatus reads the body of a TablesStatusResponse packet.
func (p *PacketReader) ReadTablesStatus() (*TablesStatusResponse, error) {
	v := new(TablesStatusResponse)
	if err := v.Decode(p.raw, p.rev); err != nil {
		return nil, err
	}
	return v, nil
}

// ReadTimezoneUpdate reads the body of a TimezoneUpdate packet: the new session timezone.
func (p *PacketReader) ReadTimezoneUpdate() (string, error) {
	tz, err := p.raw.String("timezone", MaxHelloStringSize)
	return tz, wrap(err, "timezone update")
}

// ReadSSHChallenge reads the body of an SSHChallenge packet.
func (p *PacketReader) ReadSSHChallenge() (string, error) {
	c, err := p.raw.String("ssh challenge", MaxHelloStringSize)
	return c, wrap(err, "ssh challenge")
}

// ReadPartUUIDs reads the body of a PartUUIDs packet (obsolete): UUIDs in wire order.
func (p *PacketReader) ReadPartUUIDs() ([][16]byte, error) {
	n, err := p.raw.Count("part uuids", maxPartUUIDs)
	if err != nil {
		return nil, wrap(err, "part uuids")
	}
	var out [][16]byte
	for range n {
		var u [16]byte
		if err := p.raw.ReadFull(u[:]); err != nil {
			return nil, wrap(err, "part uuids")
		}
		out = append(out, u)
	}
	return out, nil
}

// SkipPacket reads and discards the body of a packet with the given code, for packets the caller
// does not need (Progress, Log, ProfileEvents, TableColumns, ...). Block packets are decoded into
// a scratch block. Codes whose body the package cannot parse give an *UnexpectedPacketError.
func (p *PacketReader) SkipPacket(code ServerCode) error {
	var err error
	switch code {
	case ServerCodeHello:
		var h ServerHello
		err = h.Decode(p.raw, p.rev)
	case ServerCodeData, ServerCodeTotals, ServerCodeExtremes, ServerCodePreviewData:
		_, p.skip, err = p.ReadBlock(p.skip)
	case ServerCodeLog, ServerCodeProfileEvents:
		_, p.skip, err = p.ReadLogBlock(p.skip)
	case ServerCodeException:
		_, err = p.ReadException()
	case ServerCodeProgress:
		_, err = p.ReadProgress()
	case ServerCodePong, ServerCodeEndOfStream, ServerCodeReadTaskRequest:
	case ServerCodeProfileInfo:
		_, err = p.ReadProfileInfo()
	case ServerCodeTablesStatusResponse:
		_, err = p.ReadTablesStatus()
	case ServerCodeTableColumns:
		_, err = p.ReadTableColumns()
	case ServerCodePartUUIDs:
		_, err = p.ReadPartUUIDs()
	case ServerCodeTimezoneUpdate:
		_, err = p.ReadTimezoneUpdate()
	case ServerCodeSSHChallenge:
		_, err = p.ReadSSHChallenge()
	default:
		return &UnexpectedPacketError{Code: code, Want: "a packet whose body the client can parse"}
	}
	return err
}
