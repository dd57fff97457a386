package dsn

import (
	"context"
	"log/slog"
	"maps"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"time"
)

// Defaults used by [NewConfig] and by [Parse] for keys that are absent.
const (
	DefaultHost        = "localhost"
	DefaultPort        = 9000 // plain TCP native protocol port
	DefaultSecurePort  = 9440 // TLS native protocol port, used when secure=true and no port is given
	DefaultUser        = "default"
	DefaultDialTimeout = 30 * time.Second
	DefaultReadTimeout = 5 * time.Minute
	// DefaultHostBackoff is the default of [Config.HostBackoff].
	DefaultHostBackoff = 30 * time.Second
	// DefaultReadRetries is the default of [Config.ReadRetries].
	DefaultReadRetries = 2
	// DefaultInsertRetries is the default of [Config.InsertRetries].
	DefaultInsertRetries = 0
	// DefaultInsertRetryBuffer is the default of [Config.InsertRetryBuffer]: 64 MiB.
	DefaultInsertRetryBuffer = 64 << 20
	// DefaultBlockMemoryLimit is the default of [Config.BlockMemoryLimit]: 1 GiB.
	DefaultBlockMemoryLimit = 1 << 30
	// DefaultInsertBlockRows is the default of [Config.InsertBlockRows].
	DefaultInsertBlockRows = 1_000_000
	// DefaultInsertBlockBytes is the default of [Config.InsertBlockBytes]: 16 MiB.
	DefaultInsertBlockBytes = 16 << 20
	// DefaultBlockKeepBytes is the default of [Config.BlockKeepBytes]: 2 MiB.
	DefaultBlockKeepBytes = 2 << 20
)

// What the process keeps besides its connections: the blocks and buffers statements grew past
// [Config.BlockKeepBytes] wait, for the next big statement of any connection, up to SpareBudget
// bytes in all, each freed after SpareIdle unused: long enough for the next of big statements that
// come one after another, short enough that memory held for a burst of them (live heap, which also
// raises the garbage collector's goal) goes soon. Not settings: every connection shares them.
const (
	SpareBudget = 128 << 20
	SpareIdle   = 2 * time.Second
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

	// HostBackoff (key host_backoff) bounds how long a host that failed to dial or to complete
	// the handshake is passed over by new connections while other hosts answer: 1 s after its
	// first failure, doubling with each failure after that, up to HostBackoff; a host that
	// answers again is trusted again at once. When every host is backing off, each is tried
	// anyway. 0 turns the back-off off (every connection tries every host in order).
	HostBackoff time.Duration

	// ReadRetries (key read_retries) is how many times a read-only statement (SELECT, WITH,
	// SHOW, DESCRIBE, EXISTS, EXPLAIN) whose connection broke before any row reached the caller
	// is run again, on a new connection to another host where there is one. Once a row was
	// delivered, the caller gets the error: a result never restarts. 0 means no retry.
	ReadRetries int

	// InsertRetries (key insert_retries) is how many times a native insert (a Batch, a prepared
	// insert in a transaction, a multi-row Exec) whose connection broke, or whose server answered
	// an exception that blames the replica rather than the data, is resumed on a new connection
	// to another host: the same blocks are sent again, byte for byte, so that a Replicated
	// table's deduplication drops those the failed attempt had committed. 0 (the default) means
	// no retry: the driver cannot know that the table deduplicates (a plain MergeTree or a Memory
	// table would keep both copies of what the failed attempt committed), so the caller who
	// inserts into Replicated tables turns it on.
	InsertRetries int

	// InsertRetryBuffer (key insert_retry_buffer, bytes) bounds the copies of its sent blocks an
	// insert keeps until the server confirms it, for a retry (InsertRetries). An insert that
	// sends more drops its copies and is no longer retried automatically. 0 keeps nothing (no
	// automatic insert retry).
	InsertRetryBuffer int

	// BlockMemoryLimit (key block_memory_limit, bytes; 0 means the default, so that a Config
	// built by hand gets it) is the most one block the server sends may make the client
	// allocate: its bytes as decoded (after decompression, so a frame that expands counts at
	// its expanded size), the rows sparse and replicated columns expand to, and the per-row
	// storage of its columns and of their names and types. A block past it ends the query
	// with an error that errors.As finds as *chnative.ProtocolError and as
	// *columns.LimitError (its What names block_memory_limit); the connection is closed and
	// the query is not retried. What a query holds at once is bounded by the blocks in flight
	// (the one being decoded, the one read ahead, the one the caller holds) times this limit.
	BlockMemoryLimit int64

	// TLSServerName (key tls_server_name) is the name the server's certificate is verified
	// against and sent as SNI, for every address; "" means the host being dialed. It needs
	// Secure, as in clickhouse-go.
	TLSServerName string

	// InsertBlockRows (key insert_block_rows) is the number of rows per block the driver sends
	// for inserts (prepared and multi-row inserts, Batch.Append); > 0. It is not sent to the
	// server; max_block_size is the server setting of that name, as in clickhouse-go (it goes to
	// Settings).
	InsertBlockRows int

	// InsertBlockBytes (key insert_block_bytes) bounds an insert block by size: a block is sent
	// when it holds InsertBlockRows rows or its columns hold this many bytes of data, whichever
	// comes first, so wide rows do not build a block of hundreds of MB. 0 means rows only.
	InsertBlockBytes int

	// BlockKeepBytes (key block_keep_bytes) bounds the memory a connection keeps between
	// queries: a block (read, read-ahead or insert) whose retained memory is above it is not kept
	// once its query ends (it goes to a process-wide spare cache of bounded size), and buffers
	// grown by a big result shrink back. An idle connection so keeps about 3 x BlockKeepBytes
	// plus its usual buffers (the README's Memory section). 0 keeps no block in the connection.
	BlockKeepBytes int

	// JWT (key jwt) is a static token sent instead of user and password, as ClickHouse Cloud
	// takes it (user " JWT AUTHENTICATION ", the token in the password's place); GetJWT, when
	// set, gives the token for each new connection instead. Never printed by String or errors.
	JWT string
	// GetJWT returns the token for each new connection (a refreshed one), as clickhouse-go's
	// Options.GetJWT. It is not part of the DSN: Parse leaves it nil and FormatDSN does not
	// write it. An error fails the connection.
	GetJWT func(ctx context.Context) (string, error)
	// SSHKey (key ssh_key) is the path of a private key file (OpenSSH or PEM) the user
	// authenticates with by ClickHouse's SSH challenge (users with ssh_keys; the password is not
	// sent); SSHKeyPassphrase (key ssh_key_passphrase, never printed) decrypts it.
	SSHKey           string
	SSHKeyPassphrase string
	// TLSCert and TLSKey (keys tls_cert, tls_key) are PEM files of a client certificate and its
	// key, presented to servers that require one (mTLS); both or neither, and they need Secure.
	TLSCert, TLSKey string
	// WakeUpTimeout (key wake_up_timeout) is how long a dial or handshake that times out (an
	// idle cloud service waking up) is retried, with back-off, before the connection fails;
	// 0 (the default) tries once.
	WakeUpTimeout time.Duration

	ClientName string // reported to the server as the client name; "" = driver default
	// ClientProducts (key client_info_product, clickhouse-go's: "app/1.2,lib/0.3") are put
	// before the driver's own name in the client name the server records (system.query_log's
	// client_name, system.processes), as "app/1.2 lib/0.3 chnative/0.1.0 (...)".
	ClientProducts []ClientProduct
	QuotaKey       string // quota key sent with the client info; "" = none

	// Debug (key debug) turns on the driver's debug log: connects, failovers, every query's
	// id, blocks, rows, bytes and timings, cancels, drains and connections given up. It goes to
	// Logger, or, when Logger is nil, to standard error as text at debug level.
	Debug bool
	// Logger receives the debug log (at slog.LevelDebug) whether or not Debug is set, as
	// clickhouse-go's Options.Logger does. It is not part of the DSN: Parse leaves it nil and
	// FormatDSN does not write it.
	Logger *slog.Logger

	// Pool limits, clickhouse-go's keys max_open_conns, max_idle_conns and conn_max_lifetime;
	// 0 means unset (database/sql's default). database/sql takes pool limits only from the
	// *sql.DB, never from a driver: chnative.OpenDB applies all three. ConnMaxLifetime is also
	// enforced by the driver itself (a connection older than it is not reused), so it works
	// with sql.Open too; max_open_conns and max_idle_conns cannot, and sql.Open refuses them
	// with an error that says how to set them.
	MaxOpenConns    int
	MaxIdleConns    int
	ConnMaxLifetime time.Duration

	// BlockBufferSize (key block_buffer_size, 1..255; 0 = unset) is clickhouse-go's bound on
	// the decoded blocks buffered ahead of the reader. chnative decodes at most one block
	// ahead, within every value the key allows, so the bound always holds; the key is checked
	// and kept for compatibility.
	BlockBufferSize int
	// MaxCompressionBuffer (key max_compression_buffer, bytes; 0 = unset) is clickhouse-go's
	// size at which it writes out a partly encoded insert block. chnative encodes each column
	// of a block straight into the outgoing buffer and writes the block whole; the key is
	// checked and kept for compatibility and changes nothing.
	MaxCompressionBuffer int

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
		Addrs:           []string{net.JoinHostPort(DefaultHost, strconv.Itoa(DefaultPort))},
		User:            DefaultUser,
		DialTimeout:     DefaultDialTimeout,
		ReadTimeout:     DefaultReadTimeout,
		HostBackoff:     DefaultHostBackoff,
		ReadRetries:     DefaultReadRetries,
		InsertRetries:   DefaultInsertRetries,
		InsertBlockRows: DefaultInsertBlockRows,

		InsertBlockBytes: DefaultInsertBlockBytes,
		BlockKeepBytes:   DefaultBlockKeepBytes,

		InsertRetryBuffer: DefaultInsertRetryBuffer,
		BlockMemoryLimit:  DefaultBlockMemoryLimit,
	}
}

// ClientProduct is one "name/version" entry of [Config.ClientProducts].
type ClientProduct struct {
	Name    string // no space, '/' or ','
	Version string // no space or ','; may be empty
}

// String returns "name/version", or "name" when Version is empty.
func (p ClientProduct) String() string {
	if p.Version == "" {
		return p.Name
	}
	return p.Name + "/" + p.Version
}

// Clone returns a deep copy of c (Addrs, ClientProducts and Settings are copied; a nil slice or
// map stays nil; Logger is shared).
func (c *Config) Clone() *Config {
	if c == nil {
		return nil
	}
	cp := *c
	cp.Addrs = slices.Clone(c.Addrs)
	cp.ClientProducts = slices.Clone(c.ClientProducts)
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
	if c.JWT != "" {
		c.JWT = Redacted
	}
	if c.SSHKeyPassphrase != "" {
		c.SSHKeyPassphrase = Redacted
	}
	return c.FormatDSN()
}

// GoString implements fmt.GoStringer with the password redacted.
func (c Config) GoString() string {
	return "dsn.Config(" + strconv.Quote(c.String()) + ")"
}

// Validate reports whether c can be formatted and parsed back unchanged (but
// for Logger, see [Config.FormatDSN]) and
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
	if c.HostBackoff < 0 {
		return &Error{Key: KeyHostBackoff, Value: c.HostBackoff.String(), Err: errNegative}
	}
	if c.ReadRetries < 0 {
		return &Error{Key: KeyReadRetries, Value: strconv.Itoa(c.ReadRetries), Err: errNegative}
	}
	if c.InsertRetries < 0 {
		return &Error{Key: KeyInsertRetries, Value: strconv.Itoa(c.InsertRetries), Err: errNegative}
	}
	if c.InsertBlockBytes < 0 {
		return &Error{Key: KeyInsertBlockBytes, Value: strconv.Itoa(c.InsertBlockBytes), Err: errNegative}
	}
	if c.BlockKeepBytes < 0 {
		return &Error{Key: KeyBlockKeepBytes, Value: strconv.Itoa(c.BlockKeepBytes), Err: errNegative}
	}
	if c.BlockMemoryLimit < 0 {
		return &Error{Key: KeyBlockMemoryLimit, Value: strconv.FormatInt(c.BlockMemoryLimit, 10), Err: errNegative}
	}
	if c.InsertRetryBuffer < 0 {
		return &Error{Key: KeyInsertRetryBuffer, Value: strconv.Itoa(c.InsertRetryBuffer), Err: errNegative}
	}
	if _, err := ParseCompression(c.Compress.String()); err != nil {
		return &Error{Key: KeyCompress, Value: c.Compress.String(), Err: errUnknownCompression}
	}
	if _, err := ParseConnOpenStrategy(c.ConnOpenStrategy.String()); err != nil {
		return &Error{Key: KeyConnOpenStrategy, Value: c.ConnOpenStrategy.String(), Err: errUnknownStrategy}
	}
	if c.InsertBlockRows <= 0 {
		return &Error{Key: KeyInsertBlockRows, Value: strconv.Itoa(c.InsertBlockRows), Err: errNotPositive}
	}
	if c.TLSServerName != "" && !c.Secure {
		return &Error{Key: KeyTLSServerName, Value: c.TLSServerName, Err: errServerNameNeedsSecure}
	}
	if c.WakeUpTimeout < 0 {
		return &Error{Key: KeyWakeUpTimeout, Value: c.WakeUpTimeout.String(), Err: errNegative}
	}
	if (c.TLSCert == "") != (c.TLSKey == "") {
		return &Error{Key: KeyTLSCert, Err: errCertKeyPair}
	}
	if c.TLSCert != "" && !c.Secure {
		return &Error{Key: KeyTLSCert, Err: errCertNeedsSecure}
	}
	if c.SSHKeyPassphrase != "" && c.SSHKey == "" {
		return &Error{Key: KeySSHKeyPassphrase, Err: errPassphraseNeedsKey}
	}
	if c.TLSServerName != "" && !validServerName(c.TLSServerName) {
		return &Error{Key: KeyTLSServerName, Value: c.TLSServerName, Err: errServerName}
	}
	for _, p := range c.ClientProducts {
		if err := checkProduct(p); err != nil {
			return &Error{Key: KeyClientInfoProduct, Value: p.String(), Err: err}
		}
	}
	for _, f := range []struct {
		key string
		n   int64
	}{
		{KeyMaxOpenConns, int64(c.MaxOpenConns)}, {KeyMaxIdleConns, int64(c.MaxIdleConns)},
		{KeyConnMaxLifetime, int64(c.ConnMaxLifetime)}, {KeyMaxCompressionBuffer, int64(c.MaxCompressionBuffer)},
	} {
		if f.n < 0 {
			return &Error{Key: f.key, Value: strconv.FormatInt(f.n, 10), Err: errNegative}
		}
	}
	if c.BlockBufferSize < 0 || c.BlockBufferSize > 255 {
		return &Error{Key: KeyBlockBufferSize, Value: strconv.Itoa(c.BlockBufferSize), Err: errBlockBufferSize}
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
