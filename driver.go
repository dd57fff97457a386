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
	if err := cfg.PoolKeysError(); err != nil {
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

// Connector opens connections for one configuration.
type Connector struct {
	cfg   *dsn.Config
	hosts chconn.Hosts // the hosts, their health and the open strategy
	// poolApplied: OpenDB applied the configuration's pool limits to its *sql.DB.
	poolApplied bool
	// log is where the debug log goes: the configuration's Logger, else standard error when
	// debug=true; nil logs nothing.
	log *slog.Logger
	// TLS, when set, is used for secure connections instead of one built from the DSN; an empty
	// ServerName is filled with the host being dialed.
	TLS *tls.Config
	// Dialer dials the TCP connection; nil uses a net.Dialer with the DSN's dial timeout.
	Dialer func(ctx context.Context, network, addr string) (net.Conn, error)
	// Observer gets every connection's events (see Observer); nil observes nothing.
	Observer Observer
	// SSHSigner, when set, authenticates the user by SSH key with it instead of the DSN's
	// ssh_key file (for a key held by an agent, say).
	SSHSigner ssh.Signer
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
	c := &Connector{cfg: cfg, hosts: chconn.Hosts{Config: cfg}, log: cfg.Logger}
	if cfg.Debug && c.log == nil {
		c.log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
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

// Connect opens a connection to the first host that answers, in the order of
// connection_open_strategy, passing over hosts that back off after failing (host_backoff); a
// read retried or an insert resumed dials its new connection the same way.
func (c *Connector) Connect(ctx context.Context) (driver.Conn, error) {
	if !c.poolApplied {
		if err := c.cfg.PoolKeysError(); err != nil {
			return nil, err // sql.OpenDB(NewConnector(cfg)) with pool limits nothing applies
		}
	}
	cc, err := c.hosts.Dial(ctx, chconn.Dialer{TLS: c.TLS, Dial: c.Dialer, Log: c.log,
		Observer: c.Observer, SSHSigner: c.SSHSigner}, "")
	if err != nil {
		return nil, err
	}
	return &conn{cc: cc}, nil
}
