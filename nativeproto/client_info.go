package nativeproto

import (
	"github.com/chnative/chnative/internal/wire"
)

// QueryKind is ClientInfo.query_kind.
type QueryKind uint8

// Query kinds.
const (
	QueryKindNone      QueryKind = 0 // NO_QUERY: nothing else of ClientInfo follows
	QueryKindInitial   QueryKind = 1 // a query from a client
	QueryKindSecondary QueryKind = 2 // a query from another server
)

// Interface is ClientInfo.interface.
type Interface uint8

// Client interfaces. Only InterfaceTCP is encoded by this package.
const (
	InterfaceTCP  Interface = 1
	InterfaceHTTP Interface = 2
)

// ClientInfo describes the client and the query origin, inside a Query packet (RevClientInfo).
// The zero value encodes an initial query over TCP.
type ClientInfo struct {
	Kind                  QueryKind // 0 encodes QueryKindInitial
	InitialUser           string    // "" for initial queries
	InitialQueryID        string    // normally the query id
	InitialAddress        string    // "ip:port"; "0.0.0.0:0" if unknown
	InitialQueryStartTime int64     // microseconds since epoch (RevInitialQueryStartTime)
	Interface             Interface // 0 encodes InterfaceTCP
	OSUser                string
	ClientHostname        string
	ClientName            string
	Major, Minor          uint64
	ProtocolVersion       Revision // client_tcp_protocol_version
	QuotaKey              string   // RevQuotaKeyInClientInfo
	DistributedDepth      uint64   // RevDistributedDepth
	Patch                 uint64   // RevVersionPatch
	Trace                 *Trace   // RevOpenTelemetry; nil sends no trace

	// RevParallelReplicas
	CollaborateWithInitiator   uint64
	CountParticipatingReplicas uint64
	NumberOfCurrentReplica     uint64

	// RevQueryAndLineNumbers: the query's number in a multi-query script and its line
	// (clickhouse-client fills them; 0 otherwise).
	ScriptQueryNumber uint64
	ScriptLineNumber  uint64

	// JWT is sent at RevJWTInInterserver as UInt8 has_jwt and, when not empty, the token.
	JWT string

	// ClientAgent names the agent running the client (RevClientAgentInClientInfo);
	// clickhouse-client fills it from the environment, "" says none.
	ClientAgent string

	// The fields below follow the ClientInfo in the Query packet (see the Rev constants); they
	// are encoded and decoded here because nothing comes between.

	// IsInternal is the one-byte internal-query flag (RevInternalQueryFlag).
	IsInternal bool
	// CurrentRoles are the initiator's current roles (RevInterserverCurrentRoles): nil sends
	// the flag 0; a non-nil slice, even empty, sends 1, the count and the names.
	CurrentRoles []string
}

// Limits when decoding a ClientInfo.
const (
	maxClientInfoStr = 1 << 20
	maxCurrentRoles  = 1 << 16
)

// Encode appends the ClientInfo for negotiated revision rev.
func (c *ClientInfo) Encode(w *wire.Writer, rev Revision) error {
	kind := c.Kind
	if kind == QueryKindNone {
		kind = QueryKindInitial
	}
	iface := c.Interface
	if iface == 0 {
		iface = InterfaceTCP
	}
	if iface != InterfaceTCP {
		return protoErr("client info: interface %d is not supported, only TCP (1)", iface)
	}
	if kind > QueryKindSecondary {
		return protoErr("client info: invalid query kind %d", kind)
	}
	w.Byte(byte(kind))
	w.String(c.InitialUser)
	w.String(c.InitialQueryID)
	w.String(c.InitialAddress)
	if rev.Has(RevInitialQueryStartTime) {
		w.Int64(c.InitialQueryStartTime)
	}
	w.Byte(byte(iface))
	w.String(c.OSUser)
	w.String(c.ClientHostname)
	w.String(c.ClientName)
	w.UVarInt(c.Major)
	w.UVarInt(c.Minor)
	w.UVarInt(uint64(c.ProtocolVersion))
	if rev.Has(RevQuotaKeyInClientInfo) {
		w.String(c.QuotaKey)
	}
	if rev.Has(RevDistributedDepth) {
		w.UVarInt(c.DistributedDepth)
	}
	if rev.Has(RevVersionPatch) {
		w.UVarInt(c.Patch)
	}
	if rev.Has(RevOpenTelemetry) {
		if t := c.Trace; t != nil {
			w.Byte(1)
			for i := 7; i >= 0; i-- {
				w.Byte(t.TraceID[i])
			}
			for i := 15; i >= 8; i-- {
				w.Byte(t.TraceID[i])
			}
			for i := 7; i >= 0; i-- {
				w.Byte(t.SpanID[i])
			}
			w.String(t.State)
			w.Byte(t.Flags)
		} else {
			w.Byte(0)
		}
	}
	if rev.Has(RevParallelReplicas) {
		w.UVarInt(c.CollaborateWithInitiator)
		w.UVarInt(c.CountParticipatingReplicas)
		w.UVarInt(c.NumberOfCurrentReplica)
	}
	if rev.Has(RevQueryAndLineNumbers) {
		w.UVarInt(c.ScriptQueryNumber)
		w.UVarInt(c.ScriptLineNumber)
	}
	if rev.Has(RevJWTInInterserver) {
		if c.JWT != "" {
			w.Byte(1)
			w.String(c.JWT)
		} else {
			w.Byte(0)
		}
	}
	if rev.Has(RevClientAgentInClientInfo) {
		w.String(c.ClientAgent)
	}
	if rev.Has(RevInternalQueryFlag) {
		w.Bool(c.IsInternal)
	}
	if rev.Has(RevInterserverCurrentRoles) {
		if c.CurrentRoles == nil {
			w.Byte(0)
		} else {
			w.Byte(1)
			w.UVarInt(uint64(len(c.CurrentRoles)))
			for _, r := range c.CurrentRoles {
				w.String(r)
			}
		}
	}
	return nil
}

// Decode reads a ClientInfo for negotiated revision rev, as a server does. Only the TCP interface
// is supported.
func (c *ClientInfo) Decode(r *wire.Reader, rev Revision) (err error) {
	defer func() { err = wrap(err, "client info") }()
	*c = ClientInfo{}
	kind, err := r.Byte()
	if err != nil {
		return err
	}
	if kind > byte(QueryKindSecondary) {
		return protoErr("invalid query kind %d", kind)
	}
	c.Kind = QueryKind(kind)
	if c.Kind == QueryKindNone {
		return nil
	}
	str := func(dst *string, what string) error {
		s, err := r.String(what, maxClientInfoStr)
		*dst = s
		return err
	}
	if err = str(&c.InitialUser, "initial user"); err != nil {
		return err
	}
	if err = str(&c.InitialQueryID, "initial query id"); err != nil {
		return err
	}
	if err = str(&c.InitialAddress, "initial address"); err != nil {
		return err
	}
	if rev.Has(RevInitialQueryStartTime) {
		if c.InitialQueryStartTime, err = r.Int64(); err != nil {
			return err
		}
	}
	iface, err := r.Byte()
	if err != nil {
		return err
	}
	c.Interface = Interface(iface)
	if c.Interface != InterfaceTCP {
		return protoErr("client info: interface %d is not supported, only TCP (1)", iface)
	}
	if err = str(&c.OSUser, "os user"); err != nil {
		return err
	}
	if err = str(&c.ClientHostname, "client hostname"); err != nil {
		return err
	}
	if err = str(&c.ClientName, "client name"); err != nil {
		return err
	}
	if c.Major, err = r.UVarInt(); err != nil {
		return err
	}
	if c.Minor, err = r.UVarInt(); err != nil {
		return err
	}
	pv, err := r.UVarInt()
	if err != nil {
		return err
	}
	c.ProtocolVersion = Revision(pv)
	if rev.Has(RevQuotaKeyInClientInfo) {
		if err = str(&c.QuotaKey, "quota key"); err != nil {
			return err
		}
	}
	if rev.Has(RevDistributedDepth) {
		if c.DistributedDepth, err = r.UVarInt(); err != nil {
			return err
		}
	}
	if rev.Has(RevVersionPatch) {
		if c.Patch, err = r.UVarInt(); err != nil {
			return err
		}
	}
	if rev.Has(RevOpenTelemetry) {
		has, err := r.Bool()
		if err != nil {
			return err
		}
		if has {
			t := new(Trace)
			var b [24]byte
			if err := r.ReadFull(b[:]); err != nil {
				return err
			}
			for i := range 8 {
				t.TraceID[7-i] = b[i]
				t.TraceID[15-i] = b[8+i]
				t.SpanID[7-i] = b[16+i]
			}
			if t.State, err = r.String("trace state", maxClientInfoStr); err != nil {
				return err
			}
			if t.Flags, err = r.Byte(); err != nil {
				return err
			}
			c.Trace = t
		}
	}
	if rev.Has(RevParallelReplicas) {
		for _, p := range []*uint64{&c.CollaborateWithInitiator, &c.CountParticipatingReplicas, &c.NumberOfCurrentReplica} {
			if *p, err = r.UVarInt(); err != nil {
				return err
			}
		}
	}
	if rev.Has(RevQueryAndLineNumbers) {
		if c.ScriptQueryNumber, err = r.UVarInt(); err != nil {
			return err
		}
		if c.ScriptLineNumber, err = r.UVarInt(); err != nil {
			return err
		}
	}
	if rev.Has(RevJWTInInterserver) {
		has, err := r.Byte() // the server takes any value but 0 as set
		if err != nil {
			return err
		}
		if has != 0 {
			if c.JWT, err = r.String("jwt", maxClientInfoStr); err != nil {
				return err
			}
		}
	}
	if rev.Has(RevClientAgentInClientInfo) {
		if c.ClientAgent, err = r.String("client agent", maxClientInfoStr); err != nil {
			return err
		}
	}
	if rev.Has(RevInternalQueryFlag) {
		// The server reads the flag as a byte and takes any value but 0 as set.
		b, err := r.Byte()
		if err != nil {
			return err
		}
		c.IsInternal = b != 0
	}
	if rev.Has(RevInterserverCurrentRoles) {
		has, err := r.Byte()
		if err != nil {
			return err
		}
		if has != 0 {
			n, err := r.Count("current roles", maxCurrentRoles)
			if err != nil {
				return err
			}
			c.CurrentRoles = []string{} // grown by the names received, not by n
			for range n {
				role, err := r.String("current role", maxClientInfoStr)
				if err != nil {
					return err
				}
				c.CurrentRoles = append(c.CurrentRoles, role)
			}
		}
	}
	return nil
}
