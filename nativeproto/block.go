package nativeproto

import (
	"io"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/internal/wire"
)

// Limits applied when decoding a block header, before anything is allocated for it. Column
// decoders grow their storage with the data received, so a large row count alone allocates
// nothing. A column's name and type are capped per string like any String (the server's own
// cap, 1 GiB: 26.7 names a column after its whole expression, a 1 MiB query parameter
// included); what they and the rest of a block make the client allocate is bounded by the
// block's budget (PacketReader.SetBlockMemoryLimit).
const (
	MaxBlockColumns    = 1 << 20
	MaxBlockRows       = 1 << 31
	MaxColumnNameSize  = wire.MaxStringSize
	MaxColumnTypeSize  = wire.MaxStringSize
	maxOutOfOrderBlock = 1 << 20
)

// BlockInfo is the block metadata sent before the columns of a protocol block (not in the Native
// format).
type BlockInfo struct {
	Overflows bool  // field 1: the block holds the rows above max_rows_to_group_by (totals_mode)
	BucketNum int32 // field 2: two-level aggregation bucket, -1 for none
	// OutOfOrderBuckets is field 3, present at RevOutOfOrderBuckets.
	OutOfOrderBuckets []int32
}

// Encode appends the BlockInfo field list for revision rev.
func (i *BlockInfo) Encode(w *wire.Writer, rev Revision) {
	w.UVarInt(1)
	w.Bool(i.Overflows)
	w.UVarInt(2)
	w.Int32(i.BucketNum)
	if rev.Has(RevOutOfOrderBuckets) {
		w.UVarInt(3)
		w.UVarInt(uint64(len(i.OutOfOrderBuckets)))
		for _, b := range i.OutOfOrderBuckets {
			w.Int32(b)
		}
	}
	w.UVarInt(0)
}

// Decode reads the BlockInfo field list for revision rev. An unknown field number is an error.
func (i *BlockInfo) Decode(r *wire.Reader, rev Revision) error {
	i.Overflows, i.BucketNum, i.OutOfOrderBuckets = false, -1, i.OutOfOrderBuckets[:0]
	for {
		field, err := r.UVarInt()
		if err != nil {
			return err
		}
		switch {
		case field == 0:
			return nil
		case field == 1:
			if i.Overflows, err = r.Bool(); err != nil {
				return err
			}
		case field == 2:
			if i.BucketNum, err = r.Int32(); err != nil {
				return err
			}
		case field == 3 && rev.Has(RevOutOfOrderBuckets):
			n, err := r.Count("out-of-order buckets", maxOutOfOrderBlock)
			if err != nil {
				return err
			}
			for range n {
				b, err := r.Int32()
				if err != nil {
					return err
				}
				i.OutOfOrderBuckets = append(i.OutOfOrderBuckets, b)
			}
		default:
			return protoErr("unknown block info field %d", field)
		}
	}
}

// Block is a set of named columns with the same number of rows: the body of Data, Totals,
// Extremes, Log and ProfileEvents packets, and the unit of the Native format.
//
// A Block passed as reuse to a decoder is refilled in place: columns whose name and type match
// the incoming ones are reused, so steady-state decoding allocates nothing. Column data returned
// from a reused block is valid only until the next decode into it.
type Block struct {
	Info  BlockInfo
	names []string
	cols  []columns.Column
	rows  int // rows of a decoded block; used when it has no columns
	// sers[i] decodes column i when the server sends it in a custom serialization (sparse,
	// replicated); kept with its scratch memory for the next block. Indexed like cols, possibly
	// longer or shorter.
	sers   []*columns.Serialization
	custom []bool // custom[i]: column i of the last decode came in sers[i]
	// types[i] is cols[i].Type(), kept beside it (also past len, for the columns truncate
	// keeps): a composite type builds its name anew on every call, and every block decoded and
	// checked against its result's header asks for it.
	types []string
}

// NewBlock returns an empty block with BlockInfo{BucketNum: -1}.
func NewBlock() *Block { return &Block{Info: BlockInfo{BucketNum: -1}} }

// Rows returns the number of rows: the rows of the first column, or for a block without columns
// the row count it was decoded with.
func (b *Block) Rows() int {
	if len(b.cols) > 0 {
		return b.cols[0].Rows()
	}
	return b.rows
}

// NumColumns returns the number of columns.
func (b *Block) NumColumns() int { return len(b.cols) }

// Name returns the name of column i.
func (b *Block) Name(i int) string { return b.names[i] }

// Type returns the ClickHouse type of column i.
func (b *Block) Type(i int) string { return b.types[i] }

// Column returns column i.
func (b *Block) Column(i int) columns.Column { return b.cols[i] }

// Serialization returns how column i of the last decoded block was serialized when the server
// sent it in a custom serialization (sparse, replicated, or a Tuple with such elements), or nil
// when it came in its type's own encoding. Column(i) holds the decoded values either way. The
// Serialization is reused by the next decode into the block.
func (b *Block) Serialization(i int) *columns.Serialization {
	if i < len(b.custom) && b.custom[i] {
		return b.sers[i]
	}
	return nil
}

// Index returns the index of the first column named name, or -1.
func (b *Block) Index(name string) int {
	for i, n := range b.names {
		if n == name {
			return i
		}
	}
	return -1
}

// Add appends a column named name.
func (b *Block) Add(name string, col columns.Column) {
	b.names = append(b.names, name)
	b.cols = append(b.cols, col)
	b.types = append(b.types, col.Type())
	if i := len(b.cols) - 1; i < len(b.custom) {
		b.custom[i] = false
	}
}

// Reset removes all rows from every column, keeping the columns, their names and their memory,
// so the block can be refilled (for example between INSERT batches).
func (b *Block) Reset() {
	for _, c := range b.cols {
		c.Reset()
	}
	b.rows = 0
}

// Clear removes all columns and resets Info to BlockInfo{BucketNum: -1}.
func (b *Block) Clear() {
	clear(b.names)
	clear(b.cols[:cap(b.cols)]) // also the columns truncate kept for reuse
	clear(b.types[:cap(b.types)])
	clear(b.sers)
	clear(b.custom)
	b.names, b.cols, b.types, b.rows, b.sers = b.names[:0], b.cols[:0], b.types[:0], 0, b.sers[:0]
	b.Info = BlockInfo{BucketNum: -1, OutOfOrderBuckets: b.Info.OutOfOrderBuckets[:0]}
}

// ReadBlock decodes a block for revision rev: BlockInfo when withInfo, then the column count, the
// row count and the columns. Blocks in protocol packets have withInfo; the Native format has not
// (use revision 0). If reuse is not nil the block is decoded into it and reuse is returned;
// columns of reuse whose name and type match are reused. New columns are made by columns.New.
//
// The end of input before the first byte of the block is io.ErrUnexpectedEOF.
func ReadBlock(r *wire.Reader, rev Revision, withInfo bool, reuse *Block) (*Block, error) {
	b, err := readBlock(r, rev, withInfo, reuse, nil)
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return b, err
}

// readBlock is ReadBlock returning a bare io.EOF when the input ends before the first byte.
// scratch, if not nil, is reused for reading names and types.
func readBlock(r *wire.Reader, rev Revision, withInfo bool, reuse *Block, scratch *[]byte) (*Block, error) {
	b := reuse
	if b == nil {
		b = NewBlock()
	}
	var buf []byte
	if scratch != nil {
		buf = (*scratch)[:0]
		defer func() { *scratch = buf[:0] }()
	}
	first := true
	if withInfo {
		if err := b.Info.Decode(r, rev); err != nil {
			if err == io.EOF {
				return b, err
			}
			return b, wrap(err, "block info")
		}
		first = false
	} else {
		b.Info = BlockInfo{BucketNum: -1, OutOfOrderBuckets: b.Info.OutOfOrderBuckets[:0]}
	}
	ncols, err := r.UVarInt()
	if err != nil {
		if err == io.EOF && first {
			return b, io.EOF
		}
		return b, wrap(err, "block column count")
	}
	if ncols > MaxBlockColumns {
		return b, wrap(&wire.LimitError{What: "block columns", Value: ncols, Max: MaxBlockColumns}, "block")
	}
	nrows, err := r.Count("block rows", MaxBlockRows)
	if err != nil {
		return b, wrap(err, "block row count")
	}
	if ncols == 0 && nrows != 0 {
		// ClickHouse counts a block's rows by its columns: none, no rows. A tier that believed
		// the count would make rows from nothing (or loop over 2^31 of them).
		b.truncate(0)
		return b, protoErr("block of no columns claims %d rows", nrows)
	}
	b.rows = nrows
	old := len(b.cols)
	n := int(ncols)
	for i := range n {
		buf, err = readStringBytes(r, buf, "column name", MaxColumnNameSize)
		if err != nil {
			b.truncate(i)
			return b, wrap(err, "column name")
		}
		if i >= old {
			b.names = append(b.names, string(buf))
			// A column hidden by an earlier, narrower block (truncate keeps it past len) is
			// offered for reuse: results end with an empty block without columns, and the next
			// result's columns should not grow from nothing again.
			var spare columns.Column
			var spareType string
			if i < cap(b.cols) {
				spare = b.cols[:i+1][i]
			}
			if i < cap(b.types) {
				spareType = b.types[:i+1][i]
			}
			if spare != nil && spareType == "" {
				spareType = spare.Type() // the two backing arrays were not grown together
			}
			b.cols = append(b.cols, spare)
			b.types = append(b.types, spareType)
		} else if b.names[i] != string(buf) {
			b.names[i] = string(buf)
		}
		name := b.names[i]
		buf, err = readStringBytes(r, buf, "column type", MaxColumnTypeSize)
		if err != nil {
			b.truncate(i)
			return b, wrap(err, "column "+name+" type")
		}
		// A column of the same type is reused whatever its name: it holds no name.
		if b.cols[i] == nil || b.types[i] != string(buf) {
			col, err := columns.New(string(buf))
			if err != nil {
				b.truncate(i)
				return b, wrap(err, "column "+name)
			}
			b.cols[i], b.types[i] = col, col.Type()
		}
		col := b.cols[i]
		var ser *columns.Serialization // nil: the type's own encoding
		if rev.Has(RevCustomSerialization) {
			if ser, err = b.readSerialization(r, i, col); err != nil {
				b.truncate(i + 1)
				return b, wrap(err, "column "+name+" serialization")
			}
		}
		for len(b.custom) <= i {
			b.custom = append(b.custom, false)
		}
		b.custom[i] = ser != nil
		if nrows == 0 {
			col.Reset()
			continue
		}
		if ser != nil {
			err = ser.ReadPrefix(r)
		} else {
			err = col.ReadPrefix(r)
		}
		if err != nil {
			b.truncate(i + 1)
			return b, wrap(err, "column "+name+" state prefix")
		}
		if ser != nil {
			err = ser.Read(r, nrows)
		} else {
			err = col.Read(r, nrows)
		}
		if err != nil {
			b.truncate(i + 1)
			return b, wrap(err, "column "+name+" data")
		}
		if col.Rows() != nrows {
			b.truncate(i + 1)
			return b, protoErr("column %s decoded %d rows, want %d", name, col.Rows(), nrows)
		}
	}
	b.truncate(n)
	return b, nil
}

// readSerialization reads the has_custom byte of column i (col) and, when it is 1, the kind
// stacks that follow it (SerializationInfo::serialializeKindStackBinary: one stack per column,
// for a Tuple then one per element, recursively). It returns nil for the type's own encoding,
// else the Serialization that decodes the column's prefix and data; that is kept in b.sers for
// reuse by the next block.
//
// Servers send has_custom = 1 to clients of revision 54454 and above whenever a column is not in
// its default serialization; at revisions below RevSparseSerialization (54465) they convert
// sparse columns to full ones first, below RevReplicatedSerialization (54482) replicated ones,
// and below RevNullableSparseSerialization (54483) sparse Nullable columns. Those conversions
// look at the column's top only: 26.7 sends a Tuple's Nullable elements sparse from 54465, and a
// replicated column whose rows are sparse as a sparse one below 54482. Whatever kinds arrive are
// decoded: the stream says what it holds.
func (b *Block) readSerialization(r *wire.Reader, i int, col columns.Column) (*columns.Serialization, error) {
	custom, err := r.Byte()
	if err != nil {
		return nil, err
	}
	switch custom {
	case 0:
		return nil, nil
	case 1:
	default:
		return nil, protoErr("has_custom_serialization byte %d, want 0 or 1", custom)
	}
	for len(b.sers) <= i {
		b.sers = append(b.sers, nil)
	}
	s := b.sers[i]
	if s == nil {
		s = new(columns.Serialization)
		b.sers[i] = s
	}
	if err := s.ReadKinds(r, col); err != nil {
		return nil, err
	}
	if s.IsDefault() {
		return nil, nil
	}
	return s, nil
}

// truncate keeps the first n columns. After a failed decode the block is left consistent: every
// remaining column has a name and a column object. The column objects past n stay in the backing
// array, out of reach of the caller, for the next decode into the block to reuse (see readBlock);
// Clear drops them.
func (b *Block) truncate(n int) {
	if n > len(b.cols) {
		n = len(b.cols)
	}
	// A column slot appended in this call but never filled is nil: drop it.
	for n > 0 && b.cols[n-1] == nil {
		n--
	}
	clear(b.names[n:])
	b.names, b.cols, b.types = b.names[:n], b.cols[:n], b.types[:n]
}

// WriteBlock encodes b for revision rev: BlockInfo when withInfo, the counts, and per column its
// name, type, [RevCustomSerialization] a zero serialization byte and, when the block has rows,
// the state prefix and data. All columns must have the same number of rows.
func WriteBlock(w *wire.Writer, rev Revision, withInfo bool, b *Block) error {
	return writeBlock(w, rev, withInfo, b, nil, nil)
}

// writeBlock is WriteBlock that, when borrow is not nil, hands the data of fixed-width columns of
// at least MinBorrow bytes to borrow (at the point of w where it belongs) instead of copying it,
// and, when written is not nil, writes each column in pieces of about writeRun bytes
// (columns.WritePieces) and calls it after each (so that the caller can take the bytes w holds
// so far).
func writeBlock(w *wire.Writer, rev Revision, withInfo bool, b *Block, borrow func([]byte), written func()) error {
	rows := 0
	if len(b.cols) > 0 {
		rows = b.cols[0].Rows()
		for i, c := range b.cols {
			if c.Rows() != rows {
				return protoErr("block column %s has %d rows, column %s has %d", b.names[i], c.Rows(), b.names[0], rows)
			}
		}
	}
	if withInfo {
		b.Info.Encode(w, rev)
	}
	w.UVarInt(uint64(len(b.cols)))
	w.UVarInt(uint64(rows))
	for i, c := range b.cols {
		w.String(b.names[i])
		w.String(c.Type())
		if rev.Has(RevCustomSerialization) {
			w.Byte(0)
		}
		if rows > 0 {
			c.WritePrefix(w)
			if borrow != nil {
				if wb, ok := c.(columns.WireByteser); ok {
					if data := wb.WireBytes(); len(data) >= MinBorrow {
						borrow(data)
						continue
					}
				}
			}
			if written != nil {
				columns.WritePieces(c, w, writeRun, written)
				continue
			}
			c.Write(w)
		}
	}
	return nil
}

// writeRun is about how many bytes of a column writeBlock writes between calls of written.
const writeRun = 64 << 10

// writeEmptyBlock appends a block with no columns and no rows, BlockInfo{BucketNum: -1}.
func writeEmptyBlock(w *wire.Writer, rev Revision) {
	info := BlockInfo{BucketNum: -1}
	info.Encode(w, rev)
	w.UVarInt(0)
	w.UVarInt(0)
}

// readStringBytes reads a length-prefixed string into dst[:0] like wire.Reader.StringBytes,
// without allocating on the success path. Growth is bounded by the bytes actually received.
func readStringBytes(r *wire.Reader, dst []byte, what string, limit int) ([]byte, error) {
	dst = dst[:0]
	v, err := r.UVarInt()
	if err != nil {
		return dst, err
	}
	if v > uint64(limit) {
		return dst, &wire.LimitError{What: what + " length", Value: v, Max: uint64(limit)}
	}
	n := int(v)
	if lim := r.InputLimit(); lim >= 0 && int64(n) > lim {
		return dst, io.ErrUnexpectedEOF
	}
	for n > 0 {
		chunk, err := r.Next(min(n, 4096))
		if err != nil {
			return dst, err
		}
		dst = append(dst, chunk...)
		n -= len(chunk)
	}
	return dst, nil
}
