// Package rawreader is the wire's limit for reads: it sends a pre-encoded Query (plus the empty
// Data block, or Ping for servers below 54429, as chnative does) on a warm connection and walks
// the response only as far as needed to find EndOfStream: packet codes, block headers, fixed-width
// column bodies (QBit bit planes included) skipped by size and String bodies skipped by their
// length prefixes. Nothing is decoded into values. Uncompressed only.
//
// It speaks its own protocol revision (Revision), not the driver's nativeproto.ClientRevision: the
// walk knows the packets and block layouts up to that revision, and the server negotiates it
// down for older servers (18.16: 54412), so a rise of the driver's revision changes nothing here.
// ProfileEvents packets, which servers from 54451 send (26.7 does, at the end of every query),
// are walked like Data blocks and not counted as rows. A column with custom (sparse)
// serialization is an error, not walked.
package rawreader

import (
	"fmt"
	"net"
	"strings"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/nativeproto"
)

// Revision is the protocol revision the raw reader sends in its Hello.
const Revision nativeproto.Revision = 54460

// Conn is one raw connection.
type Conn struct {
	nc      net.Conn
	r       *columns.Reader
	rev     nativeproto.Revision
	ping    bool
	queries map[string][]byte
	scratch []byte
}

// Dial connects and completes the handshake.
func Dial(addr, user, password string) (*Conn, error) {
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	c := &Conn{nc: nc, r: columns.NewReaderSize(nc, 1<<20), queries: map[string][]byte{}}
	var w columns.Writer
	h := nativeproto.ClientHello{ClientName: "rawreader", Major: 1, Minor: 0,
		Revision: Revision, User: user, Password: password}
	h.Encode(&w)
	if _, err := nc.Write(w.Buf); err != nil {
		nc.Close()
		return nil, err
	}
	code, err := c.r.UVarInt()
	if err != nil {
		nc.Close()
		return nil, err
	}
	if nativeproto.ServerCode(code) != nativeproto.ServerCodeHello {
		nc.Close()
		return nil, fmt.Errorf("rawreader: handshake got packet %d", code)
	}
	var sh nativeproto.ServerHello
	if err := sh.Decode(c.r, Revision); err != nil {
		nc.Close()
		return nil, err
	}
	c.rev = nativeproto.Negotiate(Revision, sh.Revision)
	c.ping = sh.Revision < nativeproto.RevSettingsAsStrings
	if c.rev.Has(nativeproto.RevAddendum) {
		w.Reset()
		nativeproto.WriteAddendum(&w, c.rev, "")
		if _, err := nc.Write(w.Buf); err != nil {
			nc.Close()
			return nil, err
		}
	}
	return c, nil
}

// Close closes the connection.
func (c *Conn) Close() error { return c.nc.Close() }

func (c *Conn) encode(body string) ([]byte, error) {
	if p, ok := c.queries[body]; ok {
		return p, nil
	}
	pw := nativeproto.NewPacketWriter()
	pw.SetRevision(c.rev)
	q := nativeproto.Query{ID: "", Body: body, ClientInfo: nativeproto.ClientInfo{
		Kind: nativeproto.QueryKindInitial, InitialAddress: "0.0.0.0:0", Interface: nativeproto.InterfaceTCP,
		ClientName: "rawreader", Major: 1, ProtocolVersion: Revision}}
	if err := pw.WriteQuery(&q); err != nil {
		return nil, err
	}
	if c.ping {
		pw.WritePing()
	} else if err := pw.WriteEmptyData(); err != nil {
		return nil, err
	}
	p := append([]byte(nil), pw.Buffer().Buf...)
	c.queries[body] = p
	return p, nil
}

// Query sends body and walks the response to EndOfStream, returning the rows seen.
func (c *Conn) Query(body string) (rows int, err error) {
	p, err := c.encode(body)
	if err != nil {
		return 0, err
	}
	if _, err := c.nc.Write(p); err != nil {
		return 0, err
	}
	r := c.r
	for {
		code, err := r.UVarInt()
		if err != nil {
			return rows, err
		}
		switch nativeproto.ServerCode(code) {
		case nativeproto.ServerCodeData, nativeproto.ServerCodeTotals, nativeproto.ServerCodeExtremes, nativeproto.ServerCodeProfileEvents:
			n, err := c.block()
			if err != nil {
				return rows, err
			}
			if nativeproto.ServerCode(code) == nativeproto.ServerCodeData {
				rows += n
			}
		case nativeproto.ServerCodeProgress:
			var p nativeproto.Progress
			if err := p.Decode(r, c.rev); err != nil {
				return rows, err
			}
		case nativeproto.ServerCodeProfileInfo:
			var p nativeproto.ProfileInfo
			if err := p.Decode(r, c.rev); err != nil {
				return rows, err
			}
		case nativeproto.ServerCodePong:
		case nativeproto.ServerCodeEndOfStream:
			return rows, nil
		case nativeproto.ServerCodeException:
			var e nativeproto.Exception
			if err := e.Decode(r); err != nil {
				return rows, err
			}
			return rows, &e
		default:
			return rows, fmt.Errorf("rawreader: unexpected packet %d", code)
		}
	}
}

func (c *Conn) skipString() error {
	n, err := c.r.UVarInt()
	if err != nil {
		return err
	}
	return c.r.Skip(int(n))
}

func (c *Conn) str() (string, error) {
	var err error
	c.scratch, err = c.r.StringBytes(c.scratch[:0], "s", 1<<20)
	return string(c.scratch), err
}

// block walks the table name and one uncompressed block.
func (c *Conn) block() (int, error) {
	r := c.r
	if err := c.skipString(); err != nil {
		return 0, err
	}
	var info nativeproto.BlockInfo
	if err := info.Decode(r, c.rev); err != nil {
		return 0, err
	}
	ncols, err := r.UVarInt()
	if err != nil {
		return 0, err
	}
	nrows, err := r.UVarInt()
	if err != nil {
		return 0, err
	}
	for range ncols {
		if err := c.skipString(); err != nil {
			return 0, err
		}
		typ, err := c.str()
		if err != nil {
			return 0, err
		}
		if c.rev.Has(nativeproto.RevCustomSerialization) {
			custom, err := r.Byte()
			if err != nil {
				return 0, err
			}
			if custom != 0 {
				return 0, fmt.Errorf("rawreader: column of type %s has custom serialization", typ)
			}
		}
		if nrows == 0 {
			continue
		}
		if typ == "String" {
			for range nrows {
				if err := c.skipString(); err != nil {
					return 0, err
				}
			}
			continue
		}
		w := width(typ)
		if w == 0 {
			return 0, fmt.Errorf("rawreader: cannot skip type %s", typ)
		}
		if err := r.Skip(w * int(nrows)); err != nil {
			return 0, err
		}
	}
	return int(nrows), nil
}

func width(t string) int {
	switch {
	case t == "UInt8" || t == "Int8" || strings.HasPrefix(t, "Enum8"):
		return 1
	case t == "UInt16" || t == "Int16" || t == "Date" || strings.HasPrefix(t, "Enum16"):
		return 2
	case t == "UInt32" || t == "Int32" || t == "Float32" || strings.HasPrefix(t, "DateTime"):
		return 4
	case t == "UInt64" || t == "Int64" || t == "Float64":
		return 8
	case t == "UUID":
		return 16
	case strings.HasPrefix(t, "FixedString("):
		var n int
		fmt.Sscanf(t, "FixedString(%d)", &n)
		return n
	case strings.HasPrefix(t, "QBit("):
		// Bit planes of ceil(stride/8) bytes per row: a fixed number of bytes per row.
		if c, err := columns.New(t); err == nil {
			if q, ok := c.(*columns.QBit); ok {
				return q.NumPlanes() * q.RowBytes()
			}
		}
	}
	return 0
}
