package nativeproto

import (
	"github.com/chnative/chnative/internal/wire"
)

// maxTablesStatus caps the number of tables in a TablesStatus request or response.
const maxTablesStatus = 1 << 16

// QualifiedTable names a table for TablesStatusRequest.
type QualifiedTable struct {
	Database string
	Table    string
}

// TablesStatusRequest asks for the replication status of tables (client code 5,
// RevTablesStatus).
type TablesStatusRequest struct {
	Tables []QualifiedTable
}

// Encode appends the packet, code included. At RevInterserverSecretTablesStatus an interserver
// connection sends a cluster-secret hash after it; a client connection sends nothing more (the
// 26.7 server reads the next packet there), which is what this package does.
func (q *TablesStatusRequest) Encode(w *wire.Writer) {
	w.UVarInt(uint64(ClientCodeTablesStatusRequest))
	w.UVarInt(uint64(len(q.Tables)))
	for _, t := range q.Tables {
		w.String(t.Database)
		w.String(t.Table)
	}
}

// TableStatus is one entry of a TablesStatusResponse.
type TableStatus struct {
	Database      string
	Table         string
	IsReplicated  bool
	AbsoluteDelay uint64 // only for replicated tables
	IsReadonly    bool   // only for replicated tables, RevTableReadOnlyCheck (a VarUInt on the wire)
}

// TablesStatusResponse answers TablesStatusRequest (server code 9).
type TablesStatusResponse struct {
	Tables []TableStatus
}

// Decode reads the packet body (after the code) for negotiated revision rev.
func (s *TablesStatusResponse) Decode(r *wire.Reader, rev Revision) (err error) {
	defer func() { err = wrap(err, "tables status response") }()
	n, err := r.Count("tables status entries", maxTablesStatus)
	if err != nil {
		return err
	}
	s.Tables = s.Tables[:0]
	for range n {
		var t TableStatus
		if t.Database, err = r.String("database name", maxTableName); err != nil {
			return err
		}
		if t.Table, err = r.String("table name", maxTableName); err != nil {
			return err
		}
		if t.IsReplicated, err = r.Bool(); err != nil {
			return err
		}
		if t.IsReplicated {
			if t.AbsoluteDelay, err = r.UVarInt(); err != nil {
				return err
			}
			if rev.Has(RevTableReadOnlyCheck) {
				ro, err := r.UVarInt()
				if err != nil {
					return err
				}
				t.IsReadonly = ro != 0
			}
		}
		s.Tables = append(s.Tables, t)
	}
	return nil
}

// Encode appends the packet, code included, for negotiated revision rev.
func (s *TablesStatusResponse) Encode(w *wire.Writer, rev Revision) {
	w.UVarInt(uint64(ServerCodeTablesStatusResponse))
	w.UVarInt(uint64(len(s.Tables)))
	for _, t := range s.Tables {
		w.String(t.Database)
		w.String(t.Table)
		w.Bool(t.IsReplicated)
		if t.IsReplicated {
			w.UVarInt(t.AbsoluteDelay)
			if rev.Has(RevTableReadOnlyCheck) {
				var ro uint64
				if t.IsReadonly {
					ro = 1
				}
				w.UVarInt(ro)
			}
		}
	}
}
