package dsn

import (
	"errors"
	"strconv"
	"strings"
)

// Compression is the block compression codec used on the native protocol.
type Compression uint8

// Compression codecs. The zero value is CompressionNone.
//
// As in clickhouse-go, CompressLevel applies to LZ4HC (1..12, higher levels clamped to 12; 0 means
// 3, what clickhouse-go's DSN parser gives compress=lz4hc) and ZSTD (0 = the codec default); plain
// LZ4 has no levels.
const (
	CompressionNone Compression = iota
	CompressionLZ4
	CompressionZSTD
	CompressionLZ4HC // LZ4 frames made by the high-compression encoder; the server reads them as LZ4
)

var compressionNames = [...]string{
	CompressionNone:  "none",
	CompressionLZ4:   "lz4",
	CompressionZSTD:  "zstd",
	CompressionLZ4HC: "lz4hc",
}

// String returns the DSN spelling: "none", "lz4", "zstd" or "lz4hc".
func (c Compression) String() string {
	if int(c) < len(compressionNames) {
		return compressionNames[c]
	}
	return "Compression(" + strconv.Itoa(int(c)) + ")"
}

// ParseCompression parses "none", "lz4", "zstd" or "lz4hc" (case-insensitive).
// It does not accept the boolean spellings the compress key also allows;
// see the package documentation.
func ParseCompression(s string) (Compression, error) {
	for i, n := range compressionNames {
		if strings.EqualFold(s, n) {
			return Compression(i), nil
		}
	}
	return 0, errUnknownCompression
}

// MarshalText implements encoding.TextMarshaler.
func (c Compression) MarshalText() ([]byte, error) {
	if int(c) >= len(compressionNames) {
		return nil, errUnknownCompression
	}
	return []byte(c.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (c *Compression) UnmarshalText(b []byte) error {
	v, err := ParseCompression(string(b))
	if err != nil {
		return err
	}
	*c = v
	return nil
}

// ConnOpenStrategy selects the order in which Addrs are tried when opening a
// connection.
type ConnOpenStrategy uint8

// Connection open strategies. The zero value is ConnOpenInOrder.
const (
	ConnOpenInOrder    ConnOpenStrategy = iota // try Addrs in the given order
	ConnOpenRoundRobin                         // rotate the starting address for each new connection
	ConnOpenRandom                             // start from a random address
)

var strategyNames = [...]string{
	ConnOpenInOrder:    "in_order",
	ConnOpenRoundRobin: "round_robin",
	ConnOpenRandom:     "random",
}

// String returns the DSN spelling: "in_order", "round_robin" or "random".
func (s ConnOpenStrategy) String() string {
	if int(s) < len(strategyNames) {
		return strategyNames[s]
	}
	return "ConnOpenStrategy(" + strconv.Itoa(int(s)) + ")"
}

// ParseConnOpenStrategy parses "in_order", "round_robin" or "random"
// (case-insensitive).
func ParseConnOpenStrategy(s string) (ConnOpenStrategy, error) {
	for i, n := range strategyNames {
		if strings.EqualFold(s, n) {
			return ConnOpenStrategy(i), nil
		}
	}
	return 0, errUnknownStrategy
}

// MarshalText implements encoding.TextMarshaler.
func (s ConnOpenStrategy) MarshalText() ([]byte, error) {
	if int(s) >= len(strategyNames) {
		return nil, errUnknownStrategy
	}
	return []byte(s.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (s *ConnOpenStrategy) UnmarshalText(b []byte) error {
	v, err := ParseConnOpenStrategy(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

var (
	errUnknownCompression = errors.New("unknown compression (want none, lz4, lz4hc or zstd; true/1 mean lz4, false/0 mean none)")
	errHTTPCompression    = errors.New("is an HTTP compression (clickhouse-go uses it only over HTTP); the native protocol compresses with lz4, lz4hc or zstd")
	errUnknownStrategy    = errors.New("unknown connection open strategy (want in_order, round_robin or random)")
)
