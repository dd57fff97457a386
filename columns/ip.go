package columns

import (
	"net"
	"net/netip"
	"reflect"
)

// IPv4 is a column of IPv4: each address as a UInt32 whose big-endian bytes are the address
// (127.0.0.1 is 0x7f000001, on the wire 01 00 00 7f). Values are borrowed as []uint32; Append
// appends that number.
type IPv4 struct{ Fixed[uint32] }

// NewIPv4 returns an empty IPv4 column.
func NewIPv4() *IPv4 { return &IPv4{Fixed[uint32]{name: "IPv4"}} }

// Addr returns row i.
func (c *IPv4) Addr(i int) netip.Addr {
	x := c.data[i]
	return netip.AddrFrom4([4]byte{byte(x >> 24), byte(x >> 16), byte(x >> 8), byte(x)})
}

// Value returns row i as a netip.Addr.
func (c *IPv4) Value(i int) any { return c.Addr(i) }

func (c *IPv4) sliceValue(lo, hi int) any {
	out := make([]netip.Addr, hi-lo)
	for j := range out {
		out[j] = c.Addr(lo + j)
	}
	return out
}

// ScanType returns netip.Addr.
func (c *IPv4) ScanType() reflect.Type { return reflect.TypeFor[netip.Addr]() }

// sqlType: database/sql gets a 4-byte net.IP, as from clickhouse-go (a netip.Addr would not
// reach a *net.IP).
func (c *IPv4) sqlType(bool) reflect.Type { return reflect.TypeFor[net.IP]() }

func (c *IPv4) sqlValue(i int, _ bool) any {
	x := c.data[i]
	return net.IP{byte(x >> 24), byte(x >> 16), byte(x >> 8), byte(x)}
}

// scanValue stores row i into *string ("1.2.3.4"), *uint32 (0x01020304) and *[4]byte.
func (c *IPv4) scanValue(i int, dest any) (bool, error) {
	switch d := dest.(type) {
	case *string:
		*d = c.Addr(i).String()
	case *uint32:
		*d = c.data[i]
	case *[4]byte:
		*d = c.Addr(i).As4()
	default:
		return false, nil
	}
	return true, nil
}

// AppendAddr appends a, an IPv4 address or an IPv4-mapped IPv6 address (::ffff:a.b.c.d).
func (c *IPv4) AppendAddr(a netip.Addr) error {
	a = a.Unmap()
	if !a.Is4() {
		return mismatch(c, a, "not an IPv4 address")
	}
	b := a.As4()
	c.data = append(c.data, uint32(b[0])<<24|uint32(b[1])<<16|uint32(b[2])<<8|uint32(b[3]))
	return nil
}

// AppendValue appends a netip.Addr, a net.IP, a [4]byte (or 4-byte []byte), an address string
// ("1.2.3.4"; IPv4-mapped IPv6 addresses are unmapped), or the address as a number (0x7f000001).
func (c *IPv4) AppendValue(v any) error {
	a, ok, err := addrArg(c, v)
	if err != nil {
		return err
	}
	if ok {
		if a = a.Unmap(); !a.Is4() {
			return mismatch(c, v, "not an IPv4 address") // the value as given
		}
		return c.AppendAddr(a)
	}
	return c.Fixed.AppendValue(v)
}

// IPv6 is a column of IPv6: 16 bytes per address in network order. Values are borrowed as
// [][16]byte.
type IPv6 struct {
	data [][16]byte
}

// NewIPv6 returns an empty IPv6 column.
func NewIPv6() *IPv6 { return &IPv6{} }

// Type returns "IPv6".
func (c *IPv6) Type() string { return "IPv6" }

// Rows returns the number of values.
func (c *IPv6) Rows() int { return len(c.data) }

// Values returns the addresses (borrowed).
func (c *IPv6) Values() [][16]byte { return c.data }

// Append appends the 16 bytes of an address.
func (c *IPv6) Append(a [16]byte) { c.data = append(c.data, a) }

// AppendAddr appends a; an IPv4 address is stored IPv4-mapped (::ffff:a.b.c.d), as the server does.
func (c *IPv6) AppendAddr(a netip.Addr) error {
	if !a.IsValid() {
		return mismatch(c, a, "not an IP address")
	}
	c.data = append(c.data, a.As16())
	return nil
}

// Addr returns row i (an IPv4-mapped address stays mapped: ::ffff:1.2.3.4).
func (c *IPv6) Addr(i int) netip.Addr { return netip.AddrFrom16(c.data[i]) }

// Value returns row i as a netip.Addr.
func (c *IPv6) Value(i int) any { return c.Addr(i) }

func (c *IPv6) sliceValue(lo, hi int) any {
	out := make([]netip.Addr, hi-lo)
	for j := range out {
		out[j] = c.Addr(lo + j)
	}
	return out
}

// ScanType returns netip.Addr.
func (c *IPv6) ScanType() reflect.Type { return reflect.TypeFor[netip.Addr]() }

// sqlType: database/sql gets a 16-byte net.IP, as from clickhouse-go.
func (c *IPv6) sqlType(bool) reflect.Type { return reflect.TypeFor[net.IP]() }

func (c *IPv6) sqlValue(i int, _ bool) any { return net.IP(append([]byte(nil), c.data[i][:]...)) }

// scanValue stores row i into *string ("2001:db8::1", "::ffff:1.2.3.4") and *[16]byte.
func (c *IPv6) scanValue(i int, dest any) (bool, error) {
	switch d := dest.(type) {
	case *string:
		*d = c.Addr(i).String()
	case *[16]byte:
		*d = c.data[i]
	default:
		return false, nil
	}
	return true, nil
}

// AppendValue appends a netip.Addr, a net.IP, a [16]byte or [4]byte (or a 16- or 4-byte []byte),
// or an address string; IPv4 addresses are stored IPv4-mapped.
func (c *IPv6) AppendValue(v any) error {
	a, ok, err := addrArg(c, v)
	if err != nil {
		return err
	}
	if !ok {
		return mismatch(c, v, "")
	}
	return c.AppendAddr(a)
}

func (c *IPv6) appendRaw(src Column) bool {
	s, ok := src.(*IPv6)
	if ok {
		c.data = append(c.data, s.data...)
	}
	return ok
}

// AppendDefault appends ::.
func (c *IPv6) AppendDefault() { c.data = append(c.data, [16]byte{}) }

// Truncate keeps the first n values.
func (c *IPv6) Truncate(n int) { c.data = c.data[:n] }

// Reset removes all values.
func (c *IPv6) Reset() { c.data = c.data[:0] }

// ReadPrefix reads nothing.
func (c *IPv6) ReadPrefix(*Reader) error { return nil }

// WritePrefix writes nothing.
func (c *IPv6) WritePrefix(*Writer) {}

// Read replaces the values with rows addresses from r.
func (c *IPv6) Read(r *Reader, rows int) error {
	var err error
	c.data, err = readFixed(r, c.data[:0], rows)
	if err != nil {
		c.data = c.data[:0]
		return decodeErr(c, "%v", err)
	}
	return nil
}

// Write appends the addresses.
func (c *IPv6) Write(w *Writer) { w.Buf = appendFixed(w.Buf, c.data) }

// addrArg recognises IP address values: netip.Addr, net.IP, [4]byte, [16]byte, 4- or 16-byte
// []byte, and address strings. ok is false for other types (numbers, ...).
func addrArg(col Column, v any) (netip.Addr, bool, error) {
	if a, ok := v.(netip.Addr); ok {
		return a, true, nil
	}
	x, isNil, err := deref(v)
	if err != nil {
		return netip.Addr{}, false, err
	}
	if isNil {
		return netip.Addr{}, false, mismatch(col, nil, "NULL in a non-Nullable column")
	}
	var b []byte
	switch t := x.(type) {
	case netip.Addr:
		return t, true, nil
	case string:
		a, err := netip.ParseAddr(t)
		if err != nil || a.Zone() != "" {
			return netip.Addr{}, false, mismatch(col, v, "not an IP address")
		}
		return a, true, nil
	case net.IP:
		b = t
	case []byte:
		b = t
	case [4]byte:
		return netip.AddrFrom4(t), true, nil
	case [16]byte:
		return netip.AddrFrom16(t), true, nil
	default:
		rv := reflect.ValueOf(x)
		switch {
		case rv.Kind() == reflect.Slice && rv.Type().Elem().Kind() == reflect.Uint8:
			b = rv.Bytes()
		case rv.Kind() == reflect.Array && rv.Type().Elem().Kind() == reflect.Uint8 && (rv.Len() == 4 || rv.Len() == 16):
			b = make([]byte, rv.Len())
			reflect.Copy(reflect.ValueOf(b), rv)
		default:
			return netip.Addr{}, false, nil
		}
	}
	a, ok := netip.AddrFromSlice(b)
	if !ok {
		return netip.Addr{}, false, mismatch(col, v, "not 4 or 16 bytes")
	}
	return a, true, nil
}
