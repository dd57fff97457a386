package chnative

import (
	"context"
	"crypto/tls"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"

	"golang.org/x/crypto/ssh"

	"github.com/chnative/chnative/dsn"
	"github.com/chnative/chnative/internal/chconn"
)

// DriverName is the name chnative registers with database/sql.
const DriverName = "chnative"

func init() {
	sql.Register(DriverName, &Driver{})
}

// Register registers chnative with database/sql under another name, for tools that hard-code a
// driver name such as "clickhouse" (only when no other driver took that name: database/sql panics
// on a duplicate).
func Register(name string) { sql.Register(name, &Driver{}) }

// Driver is the database/sql driver.
type Driver struct{}

// Open opens one connection for the DSN (database/sql calls OpenConnector instead).
func (d *Driver) Open(name string) (driver.Conn, error) {
	c, err := d.OpenConnector(name)
	if err != nil {
		return nil, err
	}
	return c.Connect(context.Background())
}

// OpenConnector parses the DSN once and returns a Connector. database/sql calls it from
// sql.Open, so a DSN error, and a pool key sql.Open cannot apply (max_open_conns,
// max_idle_conns: see [OpenDB]), fail sql.Open itself.
func (d *Driver) OpenConnector(name string) (driver.Connector, error) {
	cfg, err := dsn.Parse(name)
	if err != nil {
		return nil, err
	}
	if err := poolKeysError(cfg); err != nil {
		return nil, err
	}
	return NewConnector(cfg)
}

// OpenDB returns a *sql.DB for cfg with the pool limits it names applied: MaxOpenConns,
// MaxIdleConns and ConnMaxLifetime (clickhouse-go's DSN keys max_open_conns, max_idle_conns,
// conn_max_lifetime), each when non-zero; the others keep database/sql's defaults (clickhouse-go's
// OpenDB defaults differ: 10 open, 5 idle, 1 h). It is chnative's clickhouse.OpenDB: a driver
// cannot set pool limits through sql.Open, which takes them only from db.SetMaxOpenConns and
// its siblings.
func OpenDB(cfg *dsn.Config) (*sql.DB, error) {
	dc, err := NewConnector(cfg)
	if err != nil {
		return nil, err
	}
	ctr := dc.(*Connector)
	ctr.poolApplied = true
	db := sql.OpenDB(ctr)
	if n := ctr.cfg.MaxOpenConns; n > 0 {
		db.SetMaxOpenConns(n)
	}
	if n := ctr.cfg.MaxIdleConns; n > 0 {
		db.SetMaxIdleConns(n)
	}
	if d := ctr.cfg.ConnMaxLifetime; d > 0 {
		db.SetConnMaxLifetime(d)
	}
	return db, nil
}

// OpenDSN is OpenDB for a DSN string: sql.Open("chnative", name) that also accepts and applies
// max_open_conns and max_idle_conns.
func OpenDSN(name string) (*sql.DB, error) {
	cfg, err := dsn.Parse(name)
	if err != nil {
		return nil, err
	}
	return OpenDB(cfg)
}

// poolKeysError refuses the pool limits that only the *sql.DB can apply, with the way to set
// them. (conn_max_lifetime is enforced by the driver too, so it is accepted everywhere.)
func poolKeysError(cfg *dsn.Config) error {
	for _, k := range []struct {
		key, setter string
		n           int
	}{
		{dsn.KeyMaxOpenConns, "SetMaxOpenConns", cfg.MaxOpenConns},
		{dsn.KeyMaxIdleConns, "SetMaxIdleConns", cfg.MaxIdleConns},
	} {
		if k.n != 0 {
			return &dsn.Error{Key: k.key, Value: fmt.Sprint(k.n), Err: fmt.Errorf(
				"is a database/sql pool limit, which a driver cannot apply through sql.Open: open with chnative.OpenDSN(dsn) or chnative.OpenDB(cfg), which apply it, or drop the key and call db.%s(%d)",
				k.setter, k.n)}
		}
	}
	return nil
}

// Connector opens connections for one configuration.
type Connector struct {
	cfg   *dsn.Config
	hosts *chconn.Hosts // the hosts, their health and the open strategy
	// poolApplied: OpenDB applied the configuration's pool limits to its *sql.DB.
	poolApplied bool
	// debugLog is where debug=true logs when the configuration has no Logger.
	debugLog *slog.Logger
	// TLS, when set, is used for secure connections instead of one built from the DSN; an empty
	// ServerName is filled with the host being dialed.
	TLS *tls.Config
	// Dialer dials the TCP connection; nil uses a net.Dialer with the DSN's dial timeout.
	Dialer func(ctx context.Context, network, addr string) (net.Conn, error)
	// Logger, when set and the configuration has no Logger, gets the debug log (see the package
	// documentation). Setting it needs a type assertion on NewConnector's result: prefer
	// dsn.Config.Logger.
	Logger *slog.Logger
	// Observer gets every connection's events (see Observer); nil observes nothing.
	Observer Observer
	// SSHSigner, when set, authenticates the user by SSH key with it instead of the DSN's
	// ssh_key file (for a key held by an agent, say).
	SSHSigner ssh.Signer
}

// logger returns where the debug log goes: the configuration's Logger, else the Connector's,
// else standard error when debug=true; nil logs nothing.
func (c *Connector) logger() *slog.Logger {
	switch {
	case c.cfg.Logger != nil:
		return c.cfg.Logger
	case c.Logger != nil:
		return c.Logger
	}
	return c.debugLog
}

// NewConnector returns a Connector for cfg (which it copies).
func NewConnector(cfg *dsn.Config) (driver.Connector, error) {
	if cfg == nil {
		cfg = dsn.NewConfig()
	}
	cfg = cfg.Clone()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	c := &Connector{cfg: cfg, hosts: chconn.NewHosts(cfg)}
	if cfg.Debug {
		c.debugLog = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return c, nil
}

// Driver returns the chnative Driver.
func (c *Connector) Driver() driver.Driver { return &Driver{} }

// Format prints the connector as its configuration's String, with the password redacted, for
// every verb: fmt's default printing of the struct would show the unexported config in full
// (%s and %q print a field they cannot format with %v, password included).
func (c *Connector) Format(f fmt.State, verb rune) {
	if c == nil || c.cfg == nil {
		_, _ = io.WriteString(f, "chnative.Connector(<nil>)")
		return
	}
	_, _ = fmt.Fprintf(f, "chnative.Connector(%q)", c.cfg.String())
}

// Config returns a copy of the connector's configuration.
func (c *Connector) Config() *dsn.Config { return c.cfg.Clone() }

// Connect opens a connection, trying the configured addresses in the order the
// connection_open_strategy says, passing over hosts that back off after failing
// (dsn.Config.HostBackoff: 1 s after a host's first failure, doubling up to it; a host that
// answers is trusted again at once; when every host backs off, all are tried, soonest back
// first), and failing over on dial and handshake errors (chconn.Hosts). A read retried or an
// insert resumed after its connection broke dials its new connection the same way, to another
// host first.
func (c *Connector) Connect(ctx context.Context) (driver.Conn, error) {
	if !c.poolApplied {
		if err := poolKeysError(c.cfg); err != nil {
			return nil, err // sql.OpenDB(NewConnector(cfg)) with pool limits nothing applies
		}
	}
	cc, err := c.hosts.Dial(ctx, chconn.Dialer{TLS: c.TLS, Dial: c.Dialer, Log: c.logger(),
		Observer: c.Observer, SSHSigner: c.SSHSigner}, "")
	if err != nil {
		return nil, err
	}
	return &conn{cc: cc}, nil
}
