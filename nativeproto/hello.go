package nativeproto

import (
	"fmt"

	"github.com/chnative/chnative/internal/wire"
)

// MaxHelloStringSize caps every string of a server Hello (DBMS_MAX_HELLO_STRING_SIZE).
const MaxHelloStringSize = 4096

// Limits for Hello lists: the password rules are capped as the server caps them
// (DBMS_MAX_PASSWORD_COMPLEXITY_RULES); server settings are capped like query settings, each
// value at 1 MiB (the Hello string cap, DBMS_MAX_HELLO_STRING_SIZE, covers names, time zone and
// rules, not setting values).
const (
	MaxPasswordRules  = 256
	maxClientHelloStr = 1 << 20
)

// ClientHello is the first packet of a connection (client code 0).
type ClientHello struct {
	ClientName string // e.g. "chnative"; clickhouse-client sends "ClickHouse client"
	Major      uint64
	Minor      uint64
	Revision   Revision // the revision the client advertises, normally ClientRevision
	Database   string   // "" for the server default
	User       string
	Password   string
}

// Encode appends the packet, code included.
func (h *ClientHello) Encode(w *wire.Writer) {
	w.UVarInt(uint64(ClientCodeHello))
	w.String(h.ClientName)
	w.UVarInt(h.Major)
	w.UVarInt(h.Minor)
	w.UVarInt(uint64(h.Revision))
	w.String(h.Database)
	w.String(h.User)
	w.String(h.Password)
}

// Decode reads the packet body (after the code), as a server does.
func (h *ClientHello) Decode(r *wire.Reader) (err error) {
	defer func() { err = wrap(err, "client hello") }()
	if h.ClientName, err = r.String("client name", maxClientHelloStr); err != nil {
		return err
	}
	if h.Major, err = r.UVarInt(); err != nil {
		return err
	}
	if h.Minor, err = r.UVarInt(); err != nil {
		return err
	}
	rev, err := r.UVarInt()
	if err != nil {
		return err
	}
	h.Revision = Revision(rev)
	if h.Database, err = r.String("database", maxClientHelloStr); err != nil {
		return err
	}
	if h.User, err = r.String("user", maxClientHelloStr); err != nil {
		return err
	}
	h.Password, err = r.String("password", maxClientHelloStr)
	return err
}

// PasswordRule is a password complexity rule the server announces (RevPasswordComplexityRules).
type PasswordRule struct {
	Pattern string
	Message string
}

// ServerHello is the server's answer to ClientHello (server code 0). Which fields are present
// depends on the client revision the server was sent and on the server's own revision.
type ServerHello struct {
	Name     string // "ClickHouse"; older servers "ClickHouse server"
	Major    uint64
	Minor    uint64
	Revision Revision // the server's DBMS_TCP_PROTOCOL_VERSION

	ParallelReplicasVersion uint64         // RevVersionedParallelReplicas
	Timezone                string         // RevServerTimezone
	DisplayName             string         // RevServerDisplayName
	Patch                   uint64         // RevVersionPatch; older servers: set to Revision by Decode
	ChunkedSend             string         // RevChunkedPackets: server send caps, e.g. "notchunked" (see CheckNotChunked)
	ChunkedRecv             string         // RevChunkedPackets: server receive caps
	PasswordRules           []PasswordRule // RevPasswordComplexityRules, at most MaxPasswordRules
	Nonce                   uint64         // RevInterserverSecretV2: UInt64 LE, for interserver hashes
	// Settings are the settings of the user's session that differ from the defaults
	// (RevServerSettings), sent when the user's apply_settings_from_server is on (the
	// default); an empty list otherwise, and always between servers.
	Settings               []Setting
	QueryPlanVersion       uint64 // RevQueryPlanSerialization: DBMS_QUERY_PLAN_SERIALIZATION_VERSION
	ClusterFunctionVersion uint64 // RevVersionedClusterFunction
}

// helloRev is the revision that gates the fields of a server Hello: the server writes what the
// client revision allows and what it has itself.
func helloRev(clientRev, serverRev Revision) Revision { return min(clientRev, serverRev) }

// Decode reads the packet body (after the code). clientRev is the revision sent in ClientHello.
// Every string is capped at MaxHelloStringSize bytes.
func (h *ServerHello) Decode(r *wire.Reader, clientRev Revision) (err error) {
	defer func() { err = wrap(err, "server hello") }()
	str := func(dst *string, what string) error {
		s, err := r.String("server hello "+what, MaxHelloStringSize)
		*dst = s
		return err
	}
	if err = str(&h.Name, "server name"); err != nil {
		return err
	}
	if h.Major, err = r.UVarInt(); err != nil {
		return err
	}
	if h.Minor, err = r.UVarInt(); err != nil {
		return err
	}
	srv, err := r.UVarInt()
	if err != nil {
		return err
	}
	h.Revision = Revision(srv)
	if h.Revision < OldestRevision {
		// The client would speak a protocol the server never had: refused before any field of
		// the revision's is read.
		return &ProtocolError{Op: fmt.Sprintf("server revision %d is below %d (ClickHouse 18.16), the oldest revision the driver speaks", srv, OldestRevision)}
	}
	rev := helloRev(clientRev, h.Revision)
	h.ParallelReplicasVersion, h.Timezone, h.DisplayName, h.Patch = 0, "", "", uint64(h.Revision)
	h.ChunkedSend, h.ChunkedRecv, h.PasswordRules, h.Nonce = "", "", h.PasswordRules[:0], 0
	h.Settings, h.QueryPlanVersion, h.ClusterFunctionVersion = h.Settings[:0], 0, 0
	if rev.Has(RevVersionedParallelReplicas) {
		if h.ParallelReplicasVersion, err = r.UVarInt(); err != nil {
			return err
		}
	}
	if rev.Has(RevServerTimezone) {
		if err = str(&h.Timezone, "timezone"); err != nil {
			return err
		}
	}
	if rev.Has(RevServerDisplayName) {
		if err = str(&h.DisplayName, "display name"); err != nil {
			return err
		}
	}
	if rev.Has(RevVersionPatch) {
		if h.Patch, err = r.UVarInt(); err != nil {
			return err
		}
	}
	if rev.Has(RevChunkedPackets) {
		if err = str(&h.ChunkedSend, "chunked send caps"); err != nil {
			return err
		}
		if err = str(&h.ChunkedRecv, "chunked receive caps"); err != nil {
			return err
		}
	}
	if rev.Has(RevPasswordComplexityRules) {
		n, err := r.Count("server hello password rules", MaxPasswordRules)
		if err != nil {
			return err
		}
		for range n {
			var pr PasswordRule
			if err = str(&pr.Pattern, "password rule pattern"); err != nil {
				return err
			}
			if err = str(&pr.Message, "password rule message"); err != nil {
				return err
			}
			h.PasswordRules = append(h.PasswordRules, pr)
		}
	}
	if rev.Has(RevInterserverSecretV2) {
		if h.Nonce, err = r.Uint64(); err != nil {
			return err
		}
	}
	if rev.Has(RevServerSettings) {
		if h.Settings, err = decodeSettings(r, RevSettingsAsStrings, h.Settings, maxSettingValueSize); err != nil {
			return err
		}
	}
	if rev.Has(RevQueryPlanSerialization) {
		if h.QueryPlanVersion, err = r.UVarInt(); err != nil {
			return err
		}
	}
	if rev.Has(RevVersionedClusterFunction) {
		if h.ClusterFunctionVersion, err = r.UVarInt(); err != nil {
			return err
		}
	}
	if len(h.PasswordRules) == 0 {
		h.PasswordRules = nil
	}
	if len(h.Settings) == 0 {
		h.Settings = nil
	}
	return nil
}

// Encode appends the packet, code included, as a server answering a client of revision clientRev
// does (used by fake servers in tests).
func (h *ServerHello) Encode(w *wire.Writer, clientRev Revision) error {
	rev := helloRev(clientRev, h.Revision)
	w.UVarInt(uint64(ServerCodeHello))
	w.String(h.Name)
	w.UVarInt(h.Major)
	w.UVarInt(h.Minor)
	w.UVarInt(uint64(h.Revision))
	if rev.Has(RevVersionedParallelReplicas) {
		w.UVarInt(h.ParallelReplicasVersion)
	}
	if rev.Has(RevServerTimezone) {
		w.String(h.Timezone)
	}
	if rev.Has(RevServerDisplayName) {
		w.String(h.DisplayName)
	}
	if rev.Has(RevVersionPatch) {
		w.UVarInt(h.Patch)
	}
	if rev.Has(RevChunkedPackets) {
		w.String(h.ChunkedSend)
		w.String(h.ChunkedRecv)
	}
	if rev.Has(RevPasswordComplexityRules) {
		w.UVarInt(uint64(len(h.PasswordRules)))
		for _, pr := range h.PasswordRules {
			w.String(pr.Pattern)
			w.String(pr.Message)
		}
	}
	if rev.Has(RevInterserverSecretV2) {
		w.Uint64(h.Nonce)
	}
	if rev.Has(RevServerSettings) {
		if err := encodeSettings(w, RevSettingsAsStrings, h.Settings); err != nil {
			return err
		}
	}
	if rev.Has(RevQueryPlanSerialization) {
		w.UVarInt(h.QueryPlanVersion)
	}
	if rev.Has(RevVersionedClusterFunction) {
		w.UVarInt(h.ClusterFunctionVersion)
	}
	return nil
}

// Addendum is what the client sends right after receiving the server Hello, without a packet
// code, when the negotiated revision is at least RevAddendum.
type Addendum struct {
	QuotaKey                string // RevQuotaKey
	ChunkedSend             string // RevChunkedPackets: "chunked" or "notchunked" ("" sends "notchunked")
	ChunkedRecv             string // RevChunkedPackets ("" sends "notchunked")
	ParallelReplicasVersion uint64 // RevVersionedParallelReplicas (0 sends ParallelReplicasProtocolVersion)
}

// Encode appends the addendum for negotiated revision rev; below RevAddendum it appends nothing.
func (a *Addendum) Encode(w *wire.Writer, rev Revision) {
	if !rev.Has(RevAddendum) {
		return
	}
	w.String(a.QuotaKey)
	if rev.Has(RevChunkedPackets) {
		w.String(orDefault(a.ChunkedSend, "notchunked"))
		w.String(orDefault(a.ChunkedRecv, "notchunked"))
	}
	if rev.Has(RevVersionedParallelReplicas) {
		v := a.ParallelReplicasVersion
		if v == 0 {
			v = ParallelReplicasProtocolVersion
		}
		w.UVarInt(v)
	}
}

// Decode reads the addendum for negotiated revision rev, as a server does.
func (a *Addendum) Decode(r *wire.Reader, rev Revision) (err error) {
	defer func() { err = wrap(err, "addendum") }()
	*a = Addendum{}
	if !rev.Has(RevAddendum) {
		return nil
	}
	if a.QuotaKey, err = r.String("quota key", maxClientHelloStr); err != nil {
		return err
	}
	if rev.Has(RevChunkedPackets) {
		if a.ChunkedSend, err = r.String("chunked send", MaxHelloStringSize); err != nil {
			return err
		}
		if a.ChunkedRecv, err = r.String("chunked recv", MaxHelloStringSize); err != nil {
			return err
		}
	}
	if rev.Has(RevVersionedParallelReplicas) {
		a.ParallelReplicasVersion, err = r.UVarInt()
	}
	return err
}

// WriteAddendum appends the addendum carrying quotaKey for negotiated revision rev (nothing below
// RevAddendum).
func WriteAddendum(w *wire.Writer, rev Revision, quotaKey string) {
	a := Addendum{QuotaKey: quotaKey}
	a.Encode(w, rev)
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
