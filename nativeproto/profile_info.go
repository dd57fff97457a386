package nativeproto

import (
	"github.com/chnative/chnative/internal/wire"
)

// ProfileInfo is the query statistics packet (server code 6).
type ProfileInfo struct {
	Rows                      uint64
	Blocks                    uint64
	Bytes                     uint64
	AppliedLimit              bool
	RowsBeforeLimit           uint64
	CalculatedRowsBeforeLimit bool
	AppliedAggregation        bool   // RevRowsBeforeAggregation
	RowsBeforeAggregation     uint64 // RevRowsBeforeAggregation
}

// Decode reads the packet body (after the code) for negotiated revision rev.
func (p *ProfileInfo) Decode(r *wire.Reader, rev Revision) (err error) {
	defer func() { err = wrap(err, "profile info") }()
	*p = ProfileInfo{}
	if p.Rows, err = r.UVarInt(); err != nil {
		return err
	}
	if p.Blocks, err = r.UVarInt(); err != nil {
		return err
	}
	if p.Bytes, err = r.UVarInt(); err != nil {
		return err
	}
	if p.AppliedLimit, err = r.Bool(); err != nil {
		return err
	}
	if p.RowsBeforeLimit, err = r.UVarInt(); err != nil {
		return err
	}
	if p.CalculatedRowsBeforeLimit, err = r.Bool(); err != nil {
		return err
	}
	if rev.Has(RevRowsBeforeAggregation) {
		if p.AppliedAggregation, err = r.Bool(); err != nil {
			return err
		}
		if p.RowsBeforeAggregation, err = r.UVarInt(); err != nil {
			return err
		}
	}
	return nil
}

// Encode appends the packet, code included, for negotiated revision rev.
func (p *ProfileInfo) Encode(w *wire.Writer, rev Revision) {
	w.UVarInt(uint64(ServerCodeProfileInfo))
	w.UVarInt(p.Rows)
	w.UVarInt(p.Blocks)
	w.UVarInt(p.Bytes)
	w.Bool(p.AppliedLimit)
	w.UVarInt(p.RowsBeforeLimit)
	w.Bool(p.CalculatedRowsBeforeLimit)
	if rev.Has(RevRowsBeforeAggregation) {
		w.Bool(p.AppliedAggregation)
		w.UVarInt(p.RowsBeforeAggregation)
	}
}
