package fakeserver

import (
	"encoding/binary"
	"strconv"
	"strings"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/nativeproto"
)

// discarder reads the uncompressed Data blocks of an insert and drops them as fast as it can:
// fixed-width columns are skipped by length and String lengths are walked in the read buffer, so
// the fake server costs the client's benchmark as little as possible. Other types are decoded.
type discarder struct {
	rev  nativeproto.Revision
	cols map[string]columns.Column // decoders for the types it cannot skip
}

// fixedSize returns the byte width of a fixed-width type, or 0.
func fixedSize(typ string) int {
	switch typ {
	case "UInt8", "Int8", "Bool", "Nothing":
		return 1
	case "UInt16", "Int16", "Date", "BFloat16":
		return 2
	case "UInt32", "Int32", "Float32", "DateTime", "Date32", "IPv4":
		return 4
	case "UInt64", "Int64", "Float64":
		return 8
	case "UUID", "Int128", "UInt128", "IPv6":
		return 16
	case "Int256", "UInt256":
		return 32
	}
	if strings.HasPrefix(typ, "FixedString(") && strings.HasSuffix(typ, ")") {
		n, err := strconv.Atoi(typ[len("FixedString(") : len(typ)-1])
		if err == nil && n > 0 {
			return n
		}
	}
	if strings.HasPrefix(typ, "DateTime64(") || strings.HasPrefix(typ, "Decimal64(") {
		return 8
	}
	if strings.HasPrefix(typ, "DateTime(") || strings.HasPrefix(typ, "Decimal32(") {
		return 4
	}
	return 0
}

// block reads one block body (after the table name) and reports whether it was the empty block
// that ends the data.
func (d *discarder) block(r *columns.Reader) (end bool, err error) {
	var info nativeproto.BlockInfo
	if err := info.Decode(r, d.rev); err != nil {
		return false, err
	}
	ncols, err := r.UVarInt()
	if err != nil {
		return false, err
	}
	nrows, err := r.UVarInt()
	if err != nil {
		return false, err
	}
	var name, typ []byte
	for range ncols {
		if name, err = r.StringBytes(name[:0], "column name", 1<<20); err != nil {
			return false, err
		}
		if typ, err = r.StringBytes(typ[:0], "column type", 1<<20); err != nil {
			return false, err
		}
		if d.rev.Has(nativeproto.RevCustomSerialization) {
			if _, err := r.Byte(); err != nil {
				return false, err
			}
		}
		if nrows == 0 {
			continue
		}
		t := string(typ)
		if size := fixedSize(t); size > 0 {
			if err := r.Skip(int(nrows) * size); err != nil {
				return false, err
			}
			continue
		}
		if t == "String" {
			if err := skipStrings(r, int(nrows)); err != nil {
				return false, err
			}
			continue
		}
		col := d.cols[t]
		if col == nil {
			if col, err = columns.New(t); err != nil {
				return false, err
			}
			if d.cols == nil {
				d.cols = map[string]columns.Column{}
			}
			d.cols[t] = col
		}
		if err := col.ReadPrefix(r); err != nil {
			return false, err
		}
		if err := col.Read(r, int(nrows)); err != nil {
			return false, err
		}
	}
	return ncols == 0 && nrows == 0, nil
}

// skipStrings skips rows length-prefixed strings, walking the lengths in the buffered bytes.
func skipStrings(r *columns.Reader, rows int) error {
	for rows > 0 {
		if r.Buffered() < binary.MaxVarintLen64 {
			// Refill (or read a value that straddles the buffer's end) the slow way.
			n, err := r.UVarInt()
			if err != nil {
				return err
			}
			if err := r.Skip(int(n)); err != nil {
				return err
			}
			rows--
			continue
		}
		b, err := r.Peek(r.Buffered())
		if err != nil {
			return err
		}
		p := 0
		for rows > 0 && len(b)-p >= binary.MaxVarintLen64 {
			n, k := binary.Uvarint(b[p:])
			if k <= 0 {
				break
			}
			if uint64(len(b)-p-k) < n {
				break
			}
			p += k + int(n)
			rows--
		}
		if err := r.Skip(p); err != nil {
			return err
		}
		if rows > 0 && p == 0 {
			// The next value does not fit in the buffered bytes.
			n, err := r.UVarInt()
			if err != nil {
				return err
			}
			if err := r.Skip(int(n)); err != nil {
				return err
			}
			rows--
		}
	}
	return nil
}
