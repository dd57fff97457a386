package dsn

import (
	"maps"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"time"
)

// Defaults used by [NewConfig] and by [Parse] for keys that are absent.
const (
	DefaultHost         = "localhost"
	DefaultPort         = 9000 // plain TCP native protocol port
	DefaultSecurePort   = 9440 // TLS native protocol port, used when secure=true and no port is given
	DefaultUser         = "default"
	DefaultDialTimeout  = 30 * time.Second
	DefaultReadTimeout  = 5 * time.Minute
	DefaultMaxBlockSize = 1_000_000
)

// Bounds of [Config.ProtocolRevision]: the oldest revision the driver is tested against
// (ClickHouse 18.16) and the highest one whose every field it implements. They equal
// nativeproto.OldestRevision and nativeproto.LatestRevision (a test of the driver checks it;
// package dsn does not import the protocol package).
const (
	MinProtocolRevision = 54412
	MaxProtocolRevision = 54488
)

// Redacted replaces a non-empty password in [Config.String].
const Redacted = "xxxxx"

// Config is a parsed ClickHouse DSN. The zero value is not ready for use;
// start from [NewConfig] or [Parse].
//
// A Config returned by Parse always satisfies [Config.Validate], and
// Parse(c.FormatDSN()) returns a Config equal to c.
type Config struct {
	// Addrs lists the servers as host:port (IPv6 as [addr]:port, with an
	// optional zone: [fe80::1%eth0]:9000). Parse always fills in the port.
	Addrs []string

	User     string // default "default"
	Password string // never printed by String, GoString or any error
	Database string // "" means the user's default database on the server

	DialTimeout time.Duration // 0 means no timeout
	ReadTimeout time.Duration // 0 means no timeout

	Compress      Compression
	CompressLevel int // 0 means the codec's default level

	Secure     bool // use TLS
	SkipVerify bool // do not verify the server certificate (TLS only)

	ConnOpenStrategy ConnOpenStrategy

	MaxBlockSize int // rows per block for inserts; > 0

	ClientName string // reported to the server as the client name; "" = driver default
	QuotaKey   string // quota key sent with the client info; "" = none
	Debug      bool

	// ProtocolRevision caps the native protocol revision the driver advertises (key
	// protocol_revision), for a server or proxy that mishandles newer ones; the connection
	// uses the lower of it and the server's. 0 means the driver's default revision. Other
	// values must lie within [MinProtocolRevision, MaxProtocolRevision]; a value above the
	// default advertises it (for testing newer protocol fields).
	ProtocolRevision uint64

	// Settings holds every query key that is not a driver option; they are
	// sent to the server as ClickHouse settings for every query. Parse leaves
	// it nil when there are none.
	Settings map[string]string
}

// NewConfig returns a Config with every default filled in.
func NewConfig() *Config {
	return &Config{
		Addrs:        []string{net.JoinHostPort(DefaultHost, strconv.Itoa(DefaultPort))},
		User:         DefaultUser,
		DialTimeout:  DefaultDialTimeout,
		ReadTimeout:  DefaultReadTimeout,
		MaxBlockSize: DefaultMaxBlockSize,
	}
}

// Clone returns a deep copy of c (Addrs and Settings are copied; a nil
// slice or map stays nil).
func (c *Config) Clone() *Config {
	if c == nil {
		return nil
	}
	cp := *c
	cp.Addrs = slices.Clone(c.Addrs)
	cp.Settings = maps.Clone(c.Settings)
	return &cp
}

// String returns the DSN like [Config.FormatDSN], with a non-empty password
// replaced by [Redacted]. It is safe to log.
//
// String and GoString have value receivers so that fmt never prints the
// password, whether it is given a Config or a *Config (%v, %+v, %s, %#v).
func (c Config) String() string {
	if c.Password != "" {
		c.Password = Redacted
	}
	return c.FormatDSN()
}

// GoString implements fmt.GoStringer with the password redacted.
func (c Config) GoString() string {
	return "dsn.Config(" + strconv.Quote(c.String()) + ")"
}

// Validate reports whether c can be formatted and parsed back unchanged and
// holds usable values. It is useful for a Config built by hand; a Config
// returned by Parse is always valid. The error is a *Error and never contains
// the password.
func (c *Config) Validate() error {
	if len(c.Addrs) == 0 {
		return &Error{Key: "host", Err: errNoAddrs}
	}
	for _, a := range c.Addrs {
		if err := validateAddr(a); err != nil {
			return err
		}
	}
	if c.User == "" {
		return &Error{Key: "user", Err: errEmptyUser}
	}
	if c.DialTimeout < 0 {
		return &Error{Key: KeyDialTimeout, Value: c.DialTimeout.String(), Err: errNegative}
	}
	if c.ReadTimeout < 0 {
		return &Error{Key: KeyReadTimeout, Value: c.ReadTimeout.String(), Err: errNegative}
	}
	if _, err := ParseCompression(c.Compress.String()); err != nil {
		return &Error{Key: KeyCompress, Value: c.Compress.String(), Err: errUnknownCompression}
	}
	if _, err := ParseConnOpenStrategy(c.ConnOpenStrategy.String()); err != nil {
		return &Error{Key: KeyConnOpenStrategy, Value: c.ConnOpenStrategy.String(), Err: errUnknownStrategy}
	}
	if c.MaxBlockSize <= 0 {
		return &Error{Key: KeyMaxBlockSize, Value: strconv.Itoa(c.MaxBlockSize), Err: errNotPositive}
	}
	if err := checkRevision(c.ProtocolRevision); err != nil {
		return &Error{Key: KeyProtocolRevision, Value: strconv.FormatUint(c.ProtocolRevision, 10), Err: err}
	}
	for _, k := range slices.Sorted(maps.Keys(c.Settings)) {
		if isReservedKey(k) {
			return &Error{Key: k, Err: errReservedSetting}
		}
		if !validSettingName(k) {
			return &Error{Key: "setting", Value: k, Err: errSettingName}
		}
	}
	return nil
}

// validateAddr checks one host:port entry as Parse would produce it.
func validateAddr(a string) error {
	host, port, err := net.SplitHostPort(a)
	if err != nil {
		return &Error{Key: "host", Value: a, Err: errAddrForm}
	}
	if _, err := parsePort(port); err != nil {
		return &Error{Key: "port", Value: port, Err: err}
	}
	if host == "" {
		return &Error{Key: "host", Value: a, Err: errEmptyHost}
	}
	if containsColon(host) {
		ip, err := netip.ParseAddr(host)
		if err != nil || !ip.Is6() {
			return &Error{Key: "host", Value: a, Err: errBadIPv6}
		}
		return nil
	}
	if !validHostname(host) {
		return &Error{Key: "host", Value: a, Err: errHostChars}
	}
	return nil
}

func containsColon(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == ':' {
			return true
		}
	}
	return false
}
