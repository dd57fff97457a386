package nativeproto

import (
	"github.com/chnative/chnative/internal/wire"
)

// maxTableColumnsDescription caps the column description text of a TableColumns packet.
const maxTableColumnsDescription = 64 << 20

// maxTableName caps external table names before blocks.
const maxTableName = 1 << 20

// TableColumns describes the columns of the table an INSERT writes to (server code 11,
// RevColumnDefaults), sent before the header block.
type TableColumns struct {
	Table       string // "" for the INSERT table
	Description string // "columns format version: 1\n<N> columns:\n`name` Type ..."
}

// Decode reads the packet body (after the code).
func (t *TableColumns) Decode(r *wire.Reader) (err error) {
	defer func() { err = wrap(err, "table columns") }()
	if t.Table, err = r.String("table name", maxTableName); err != nil {
		return err
	}
	t.Description, err = r.String("columns description", maxTableColumnsDescription)
	return err
}

// Encode appends the packet, code included.
func (t *TableColumns) Encode(w *wire.Writer) {
	w.UVarInt(uint64(ServerCodeTableColumns))
	w.String(t.Table)
	w.String(t.Description)
}
