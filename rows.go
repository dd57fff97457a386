package chnative

import (
	"context"
	"database/sql/driver"
	"io"
	"reflect"
	"strings"
	"sync/atomic"
	"time"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/nativeproto"
)

// rows iterates a result one borrowed block at a time: Next copies row i of each column into dest;
// nothing is buffered beyond the current block.
type rows struct {
	c      *conn
	ctx    context.Context
	stop   func() bool
	header *nativeproto.Block
	block  *nativeproto.Block
	row    int // the next row of block to read
	cur    int // the current row, after advance
	nrows  int // rows of block
	names  []string
	types  []string
	done   bool
	err    error

	totals, extremes *nativeproto.Block

	userLoc *time.Location // WithUserLocation's zone, or nil: the server's (r.c.loc)

	box  boxer       // values boxed a window at a time for Next
	scan textWindows // strings for ScanColumn (Go 1.27), a window at a time

	// Read-ahead of the next packet (rows_ahead.go), and boxing ahead (rows_prebox.go).
	ahead     bool               // a read-ahead runs, or its result waits in aheadCh
	aheadCh   chan aheadResult   // its result
	spare     *nativeproto.Block // the block it decodes into
	usesNext  bool               // the caller reads through Next: the read-ahead boxes too
	aheadBox  boxer              // the read-ahead goroutine's boxer
	aheadStop atomic.Bool        // Close wants the read-ahead's result: stop boxing ahead
	pre       preboxed           // the current block's windows boxed ahead
}

// readHeader reads up to the first Data block, which names the result's columns.
func (r *rows) readHeader() error {
	r.userLoc = userLocation(r.ctx)
	for {
		ev, err := r.c.recv(nil)
		if err != nil {
			return r.finish(err)
		}
		switch ev.code {
		case nativeproto.ServerCodeEndOfStream:
			_ = r.finish(nil)
			return nil
		case nativeproto.ServerCodeData:
			r.block = ev.block
			r.names = make([]string, ev.block.NumColumns())
			r.types = make([]string, ev.block.NumColumns())
			for i := range r.names {
				r.names[i] = ev.block.Name(i)
				r.types[i] = ev.block.Type(i)
			}
			r.prepare(ev.block)
			r.row = 0
			return nil
		default:
			r.keep(ev)
		}
	}
}

// keep stores Totals and Extremes blocks for NextResultSet.
func (r *rows) keep(ev event) {
	switch ev.code {
	case nativeproto.ServerCodeTotals:
		r.totals = ev.block
	case nativeproto.ServerCodeExtremes:
		r.extremes = ev.block
	}
}

// prepare sets per-block column properties (the server time zone of zone-less DateTime).
func (r *rows) prepare(b *nativeproto.Block) {
	r.box.reset()
	r.scan.reset()
	r.nrows = b.Rows()
	for i := 0; i < b.NumColumns(); i++ {
		setLocation(b.Column(i), r.location(), r.userLoc)
	}
}

// location is the zone of zone-less DateTime values: WithUserLocation's, else the server's (Date
// values are in WithUserLocation's zone, or UTC).
func (r *rows) location() *time.Location {
	if r.userLoc != nil {
		return r.userLoc
	}
	return r.c.loc
}

// finish ends the query: nil err means EndOfStream was read.
func (r *rows) finish(err error) error {
	if r.done {
		return err
	}
	r.done = true
	if err == nil {
		r.keepAheadReuse() // after an error the blocks' state is not known
	}
	fired := false
	if r.stop != nil {
		fired = r.stop()
	}
	if err != nil {
		ctx := r.ctx
		if ctx == nil {
			ctx = context.Background()
		}
		err = r.c.fail(ctx, fired, err)
		r.err = err
	}
	r.c.busy = false
	return err
}

// Columns returns the column names.
func (r *rows) Columns() []string { return r.names }

// Next copies the next row into dest. The values are boxed a window of rows at a time (see
// boxer); they belong to the caller and are never changed afterwards.
func (r *rows) Next(dest []driver.Value) error {
	if row := r.row; row < r.box.hi {
		// The row is in the boxed window of the current block.
		r.cur, r.row = row, row+1
		r.box.row(dest, r.block, row)
		return nil
	}
	r.usesNext = true
	if err := r.advance(); err != nil {
		return err
	}
	if !r.pre.take(&r.box, r.cur) {
		r.box.fill(r.block, r.cur, min(r.cur+boxWindow, r.nrows))
	}
	r.box.row(dest, r.block, r.cur)
	return nil
}

// advance moves to the next row, decoding the next block when the current one is used up; r.cur
// is then the row's index in r.block.
func (r *rows) advance() error {
	for r.block == nil || r.row >= r.nrows {
		if r.done {
			if r.err != nil {
				return r.err
			}
			return io.EOF
		}
		ev, err := r.recvNext()
		if err != nil {
			return r.finish(err)
		}
		switch ev.code {
		case nativeproto.ServerCodeEndOfStream:
			if err := r.finish(nil); err != nil {
				return err
			}
			return io.EOF
		case nativeproto.ServerCodeData:
			if ev.block.NumColumns() == 0 {
				continue
			}
			if ev.block.NumColumns() != len(r.names) {
				return r.finish(&ProtocolError{Op: "result", Err: io.ErrUnexpectedEOF})
			}
			r.swapBlock(ev.block)
			r.prepare(ev.block)
			r.row = 0
		default:
			r.keep(ev)
		}
	}
	if r.row == 0 {
		// The first row of a block: read the next packet while the caller scans this one.
		r.startAhead()
	}
	r.cur = r.row
	r.row++
	return nil
}

// Close ends the result: an unfinished query is cancelled and drained.
func (r *rows) Close() error {
	r.box.reset()
	r.nrows = 0
	if r.done {
		return nil
	}
	cancelled := false
	if r.ahead {
		// First, while the context is still watched: the read-ahead reads under its deadline.
		res, sent, ok := r.awaitAheadOnClose()
		if !ok {
			if r.stop != nil {
				r.stop()
				r.stop = nil
			}
			r.done = true // the connection was closed and marked bad
			r.c.busy = false
			return nil
		}
		cancelled = sent
		if _, end := r.closeEvent(res.ev, res.err); end {
			return nil
		}
	}
	if r.stop != nil {
		r.stop()
		r.stop = nil
	}
	// A short result (QueryRow, LIMIT 1) has usually arrived in full by now: reading its end
	// costs less than the Cancel round trip. Read on while packets keep coming promptly and
	// little data is left; otherwise cancel. When the query's context has ended (database/sql
	// closes the rows then, holding the lock the caller's Close waits for), the cancel and the
	// drain run off the caller's path (drain.go).
	ctxDone := r.ctx != nil && r.ctx.Err() != nil
	seen := 0
	for !cancelled && !ctxDone && seen <= closeReadAheadRows && r.c.packetWithin(closeGrace) {
		n, end := r.closeEvent(r.c.recv(r.block))
		if end {
			return nil
		}
		seen += n
	}
	r.done = true
	r.keepAheadReuse()
	switch {
	case ctxDone:
		r.c.cancelOffPath(r.ctx.Err(), cancelled)
	case cancelled:
		r.c.drainAfterCancel()
	default:
		r.c.cancelAndDrain()
	}
	r.c.busy = false
	return nil
}

// closeEvent handles one event read while closing: n is the rows of a Data block, end whether
// the query has ended (EndOfStream or an error; finish was called).
func (r *rows) closeEvent(ev event, err error) (n int, end bool) {
	if err != nil {
		_ = r.finish(err)
		return 0, true
	}
	switch ev.code {
	case nativeproto.ServerCodeEndOfStream:
		_ = r.finish(nil)
		return 0, true
	case nativeproto.ServerCodeData:
		if ev.block.NumColumns() == len(r.names) {
			r.swapBlock(ev.block)
		}
		return ev.block.Rows(), false
	default:
		r.keep(ev)
	}
	return 0, false
}

// Close reads at most this many further rows, and waits at most closeGrace for each packet,
// before it cancels the query instead.
const (
	closeReadAheadRows = 1 << 16
	closeGrace         = 2 * time.Millisecond
)

// HasNextResultSet reports whether Totals or Extremes follow.
func (r *rows) HasNextResultSet() bool {
	return r.done && (r.totals != nil || r.extremes != nil)
}

// NextResultSet moves to the Totals block, then to the Extremes block.
func (r *rows) NextResultSet() error {
	if !r.done {
		// Read to the end to reach the Totals and Extremes packets.
		dest := make([]driver.Value, len(r.names))
		for {
			if err := r.Next(dest); err != nil {
				if err == io.EOF {
					break
				}
				return err
			}
		}
	}
	switch {
	case r.totals != nil:
		r.block, r.totals = r.totals, nil
	case r.extremes != nil:
		r.block, r.extremes = r.extremes, nil
	default:
		return io.EOF
	}
	r.prepare(r.block)
	r.row = 0
	return nil
}

func (r *rows) column(i int) columns.Column {
	if r.block != nil && i < r.block.NumColumns() {
		return r.block.Column(i)
	}
	return nil
}

// ColumnTypeDatabaseTypeName returns the ClickHouse type name.
func (r *rows) ColumnTypeDatabaseTypeName(i int) string { return r.types[i] }

// ColumnTypeScanType returns the Go type of the values Next hands over (columns.SQLScanType: the
// type clickhouse-go names, or one database/sql fills as well), a pointer to it for Nullable
// columns: a variable of it can always be scanned into.
func (r *rows) ColumnTypeScanType(i int) reflect.Type {
	if c := r.column(i); c != nil {
		t := columns.SQLScanType(c)
		if columnNullable(c) && t.Kind() != reflect.Interface && t.Kind() != reflect.Pointer {
			return reflect.PointerTo(t)
		}
		return t
	}
	return reflect.TypeFor[any]()
}

// ColumnTypeNullable reports whether the column is Nullable or LowCardinality(Nullable), also
// inside SimpleAggregateFunction(f, T), whose values are T's.
func (r *rows) ColumnTypeNullable(i int) (nullable, ok bool) {
	if c := r.column(i); c != nil {
		return columnNullable(c), true
	}
	return false, false
}

func columnNullable(c columns.Column) bool {
	switch x := c.(type) {
	case *columns.Nullable:
		return true
	case *columns.LowCardinality:
		return x.Nullable()
	case *columns.SimpleAggregateFunction:
		return columnNullable(x.Inner())
	}
	return false
}

// ColumnTypePrecisionScale returns a Decimal's precision and scale, and a DateTime64's precision
// (scale 0), as clickhouse-go does; for an Array, its innermost element's.
func (r *rows) ColumnTypePrecisionScale(i int) (precision, scale int64, ok bool) {
	n, err := columns.ParseType(r.types[i])
	if err != nil {
		return 0, 0, false
	}
	for n.Name == "Nullable" || n.Name == "LowCardinality" || n.Name == "SimpleAggregateFunction" || n.Name == "Array" {
		if n.Name == "SimpleAggregateFunction" { // (f, T): T is the second argument
			if len(n.Args) < 2 || n.Args[1].Type == nil {
				return 0, 0, false
			}
			n = n.Args[1].Type
			continue
		}
		if len(n.Args) != 1 || n.Args[0].Type == nil {
			return 0, 0, false
		}
		n = n.Args[0].Type
	}
	atoi := func(s string) int64 {
		var v int64
		for _, ch := range s {
			v = v*10 + int64(ch-'0')
		}
		return v
	}
	switch n.Name {
	case "Decimal":
		if len(n.Args) == 2 {
			return atoi(n.Args[0].Number), atoi(n.Args[1].Number), true
		}
	case "Decimal32", "Decimal64", "Decimal128", "Decimal256":
		if len(n.Args) == 1 {
			p := map[string]int64{"Decimal32": 9, "Decimal64": 18, "Decimal128": 38, "Decimal256": 76}[n.Name]
			return p, atoi(n.Args[0].Number), true
		}
	case "DateTime64":
		if len(n.Args) >= 1 && n.Args[0].Number != "" {
			return atoi(n.Args[0].Number), 0, true
		}
	}
	return 0, 0, false
}

// ColumnTypeLength returns the size of a FixedString and "unbounded" for String.
func (r *rows) ColumnTypeLength(i int) (length int64, ok bool) {
	t := r.types[i]
	t = strings.TrimSuffix(strings.TrimPrefix(t, "Nullable("), ")")
	if c, ok := r.column(i).(*columns.FixedString); ok {
		return int64(c.Size()), true
	}
	if t == "String" || strings.HasPrefix(t, "LowCardinality(") && strings.Contains(t, "String") {
		return 1<<63 - 1, true
	}
	return 0, false
}

// setLocation gives zone-less DateTime and DateTime64 columns, at any depth, the server's time
// zone (or WithUserLocation's), loc, and Date and Date32 columns dateLoc: WithUserLocation's zone,
// in which they are midnight as in clickhouse-go (nil: UTC). Both are set for every block, since
// blocks' columns are reused from query to query.
func setLocation(c columns.Column, loc, dateLoc *time.Location) {
	columns.SetLocation(c, loc)
	columns.SetDateLocation(c, dateLoc)
}
