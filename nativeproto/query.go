package nativeproto

import (
	"github.com/chnative/chnative/internal/wire"
)

// Stage is the query processing stage the client asks for (QueryProcessingStage).
type Stage uint64

// Query processing stages. Clients send StageComplete.
const (
	StageFetchColumns       Stage = 0
	StageWithMergeableState Stage = 1
	StageComplete           Stage = 2
)

// Query is the client Query packet (client code 1). After it the client must send its external
// tables, if any, and an empty Data block.
type Query struct {
	ID         string // "" lets the server generate one
	ClientInfo ClientInfo
	Settings   []Setting
	// ExtraRoles is sent at RevInterserverExternalRoles: between servers the externally granted
	// roles of the initial user, serialized as a vector of strings; "" for a client.
	ExtraRoles string
	// Stage to process the query up to. The zero value sends StageComplete (a client never asks
	// for StageFetchColumns).
	Stage Stage
	// Compression enables compressed Data blocks in both directions; the codec is chosen by the
	// network_compression_method setting.
	Compression bool
	Body        string // the SQL text; for INSERT without the data
	// Parameters are query parameters ({name:Type} in the SQL), sent at RevParameters and above
	// with the custom flag. Values are Field dumps: quote strings with QuoteParameter.
	Parameters []Setting
}

// maxQueryString caps query strings when decoding (as a server).
const maxQueryString = wire.MaxStringSize

// Encode appends the packet, code included, for negotiated revision rev.
func (q *Query) Encode(w *wire.Writer, rev Revision) error {
	if len(q.Parameters) > 0 && !rev.Has(RevParameters) {
		return protoErr("query parameters need protocol revision %d, the connection uses %d", RevParameters, rev)
	}
	start := len(w.Buf)
	w.UVarInt(uint64(ClientCodeQuery))
	w.String(q.ID)
	if rev.Has(RevClientInfo) {
		if err := q.ClientInfo.Encode(w, rev); err != nil {
			w.Buf = w.Buf[:start]
			return err
		}
	}
	if err := encodeSettings(w, rev, q.Settings); err != nil {
		w.Buf = w.Buf[:start]
		return err
	}
	if rev.Has(RevInterserverExternalRoles) {
		w.String(q.ExtraRoles)
	}
	if rev.Has(RevInterserverSecret) {
		w.String("")
	}
	stage := q.Stage
	if stage == StageFetchColumns {
		stage = StageComplete
	}
	w.UVarInt(uint64(stage))
	w.Bool(q.Compression)
	w.String(q.Body)
	if rev.Has(RevParameters) {
		for _, p := range q.Parameters {
			if p.Key == "" {
				w.Buf = w.Buf[:start]
				return protoErr("query parameter with an empty name")
			}
			w.String(p.Key)
			w.UVarInt(settingFlagCustom)
			w.String(p.Value)
		}
		w.String("")
	}
	return nil
}

// Decode reads the packet body (after the code) for negotiated revision rev, as a server does.
func (q *Query) Decode(r *wire.Reader, rev Revision) (err error) {
	defer func() { err = wrap(err, "query") }()
	*q = Query{}
	if q.ID, err = r.String("query id", maxClientInfoStr); err != nil {
		return err
	}
	if rev.Has(RevClientInfo) {
		if err = q.ClientInfo.Decode(r, rev); err != nil {
			return err
		}
	}
	if q.Settings, err = decodeSettings(r, rev, nil, maxSettingValueSize); err != nil {
		return err
	}
	if rev.Has(RevInterserverExternalRoles) {
		if q.ExtraRoles, err = r.String("external roles", maxClientInfoStr); err != nil {
			return err
		}
	}
	if rev.Has(RevInterserverSecret) {
		if _, err = r.String("interserver secret hash", maxClientInfoStr); err != nil {
			return err
		}
	}
	stage, err := r.UVarInt()
	if err != nil {
		return err
	}
	q.Stage = Stage(stage)
	comp, err := r.UVarInt()
	if err != nil {
		return err
	}
	if comp > 1 {
		return protoErr("query compression flag %d is neither 0 nor 1", comp)
	}
	q.Compression = comp == 1
	if q.Body, err = r.String("query text", maxQueryString); err != nil {
		return err
	}
	if rev.Has(RevParameters) {
		if q.Parameters, err = decodeSettings(r, RevSettingsAsStrings, nil, maxSettingValueSize); err != nil {
			return err
		}
	}
	return nil
}
