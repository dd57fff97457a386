package nativeproto

import (
	"github.com/chnative/chnative/internal/wire"
)

// Progress is a progress delta since the previous Progress packet (server code 3).
type Progress struct {
	ReadRows     uint64
	ReadBytes    uint64
	TotalRows    uint64 // total_rows_to_read
	TotalBytes   uint64 // total_bytes_to_read (RevTotalBytesInProgress)
	WrittenRows  uint64 // RevClientWriteInfo
	WrittenBytes uint64 // RevClientWriteInfo
	ElapsedNS    uint64 // RevServerQueryTimeInProgress
}

// Decode reads the packet body (after the code) for negotiated revision rev.
func (p *Progress) Decode(r *wire.Reader, rev Revision) (err error) {
	defer func() { err = wrap(err, "progress") }()
	*p = Progress{}
	fields := [...]struct {
		v   *uint64
		rev Revision
	}{
		{&p.ReadRows, 0}, {&p.ReadBytes, 0}, {&p.TotalRows, 0},
		{&p.TotalBytes, RevTotalBytesInProgress},
		{&p.WrittenRows, RevClientWriteInfo}, {&p.WrittenBytes, RevClientWriteInfo},
		{&p.ElapsedNS, RevServerQueryTimeInProgress},
	}
	for _, f := range fields {
		if !rev.Has(f.rev) {
			continue
		}
		if *f.v, err = r.UVarInt(); err != nil {
			return err
		}
	}
	return nil
}

// Encode appends the packet, code included, for negotiated revision rev.
func (p *Progress) Encode(w *wire.Writer, rev Revision) {
	w.UVarInt(uint64(ServerCodeProgress))
	w.UVarInt(p.ReadRows)
	w.UVarInt(p.ReadBytes)
	w.UVarInt(p.TotalRows)
	if rev.Has(RevTotalBytesInProgress) {
		w.UVarInt(p.TotalBytes)
	}
	if rev.Has(RevClientWriteInfo) {
		w.UVarInt(p.WrittenRows)
		w.UVarInt(p.WrittenBytes)
	}
	if rev.Has(RevServerQueryTimeInProgress) {
		w.UVarInt(p.ElapsedNS)
	}
}

// Add accumulates delta into p.
func (p *Progress) Add(delta Progress) {
	p.ReadRows += delta.ReadRows
	p.ReadBytes += delta.ReadBytes
	p.TotalRows += delta.TotalRows
	p.TotalBytes += delta.TotalBytes
	p.WrittenRows += delta.WrittenRows
	p.WrittenBytes += delta.WrittenBytes
	p.ElapsedNS += delta.ElapsedNS
}
