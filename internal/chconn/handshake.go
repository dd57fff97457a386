package chconn

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"syscall"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/chnative/chnative/dsn"
	"github.com/chnative/chnative/nativeproto"
)

// handshake exchanges Hello packets and sets the negotiated revision. Chunked packets are
// declined (see nativeproto.CheckNotChunked): a server that requires them is refused here,
// before the addendum.
//
// user and password are what the Hello carries (credentials: a token in the password's place
// for JWT); with signer, the user authenticates by SSH key instead (auth_ssh.go).
func (c *Conn) handshake(user, password string, signer ssh.Signer) error {
	clientRev := c.ClientRevision()
	hello := nativeproto.ClientHello{
		ClientName: c.ClientName(),
		Major:      ClientMajor,
		Minor:      ClientMinor,
		Revision:   clientRev,
		Database:   c.cfg.Database,
		User:       user,
		Password:   password,
	}
	if signer != nil {
		hello.User, hello.Password = sshUser+user, ""
	}
	c.pw.WriteHello(&hello)
	if signer != nil {
		if err := c.sshChallenge(signer, clientRev, user); err != nil {
			return err
		}
	} else if err := c.pw.Flush(c.nc); err != nil {
		return err
	}
	code, err := c.pr.ReadCode()
	var unknown *nativeproto.UnexpectedPacketError
	if errors.As(err, &unknown) {
		return c.notNative(code) // a code beyond the protocol's: an HTTP response, a TLS alert?
	}
	if err != nil {
		return err
	}
	switch code {
	case nativeproto.ServerCodeHello:
		if err := c.pr.ReadHello(&c.hello, clientRev); err != nil {
			if c.transport(err) {
				return err
			}
			return &ProtocolError{Op: "handshake", Err: err} // a Hello that lies (a limit, a revision)
		}
	case nativeproto.ServerCodeException:
		ex, err := c.pr.ReadException()
		if err != nil {
			return err
		}
		return ex
	default:
		return c.notNative(code)
	}
	c.rev = nativeproto.Negotiate(clientRev, c.hello.Revision)
	c.pingEndsTables = c.hello.Revision < revEagerExternalTables
	c.pr.SetRevision(c.rev)
	c.pw.SetRevision(c.rev)
	if err := nativeproto.CheckNotChunked(&c.hello, c.rev); err != nil {
		return err
	}
	c.sessLoc = c.helloLocation()
	c.loc = c.sessLoc
	if c.rev.Has(nativeproto.RevAddendum) {
		c.pw.WriteAddendum(c.cfg.QuotaKey)
		if err := c.pw.Flush(c.nc); err != nil {
			return err
		}
	}
	switch c.cfg.Compress {
	case dsn.CompressionLZ4:
		// Plain LZ4 has no levels (as in clickhouse-go, compress_level applies to lz4hc and zstd).
		c.comp, err = nativeproto.NewCompressor(nativeproto.MethodLZ4, 0)
	case dsn.CompressionLZ4HC:
		level := c.cfg.CompressLevel
		if level <= 0 {
			level = 3 // what clickhouse-go's DSN parser gives compress=lz4hc without a level
		}
		c.comp, err = nativeproto.NewCompressor(nativeproto.MethodLZ4, min(level, nativeproto.MaxLZ4Level))
	case dsn.CompressionZSTD:
		c.comp, err = nativeproto.NewCompressor(nativeproto.MethodZSTD, c.cfg.CompressLevel)
	}
	return err
}

// notNative is the error for a first server packet that is neither Hello nor Exception: when the
// bytes are an HTTP response or a TLS alert, the error says which service answered.
func (c *Conn) notNative(code nativeproto.ServerCode) error {
	err := &nativeproto.UnexpectedPacketError{Code: code, Want: "Hello"}
	next, _ := c.pr.Reader().Peek(3)
	switch {
	case code == 'H' && string(next) == "TTP":
		return &notNativeError{err: err, hint: "this port speaks HTTP (ClickHouse's HTTP interface, 8123 by default): use the native port (9000, or 9440 with secure=true)"}
	case code == 0x15 && len(next) > 0 && next[0] == 0x03:
		return &notNativeError{err: err, hint: "this port speaks TLS: add secure=true"}
	}
	return err
}

// notNativeError is a handshake answered by something other than the native protocol.
type notNativeError struct {
	err  error
	hint string
}

func (e *notNativeError) Error() string { return e.err.Error() }

func (e *notNativeError) Unwrap() error { return e.err }

// revEagerExternalTables is the server revision from which chnative ends a query's external
// tables with an empty Data block; older servers (such as 18.16, revision 54412) read them
// only after parsing the query, and get a Ping instead.
const revEagerExternalTables = nativeproto.RevSettingsAsStrings

// Dialer is how Dial reaches a server: the TLS configuration and the TCP dialer to use, and
// where the debug log goes.
type Dialer struct {
	// TLS, when set, is used for secure connections instead of one built from the
	// configuration; an empty ServerName is filled with the host being dialed.
	TLS *tls.Config
	// Dial dials the TCP connection; nil uses a net.Dialer bounded by the dial timeout.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// Log gets the connection's debug log (debuglog.go); nil logs nothing.
	Log *slog.Logger
	// Observer gets the connection's events (observe.go); the debug log (Log) is added to it.
	Observer Observer
	// SSHSigner, when set, authenticates the user by SSH key (auth_ssh.go) instead of the
	// configuration's ssh_key file.
	SSHSigner ssh.Signer

	cert *tls.Certificate // the configuration's tls_cert and tls_key, loaded (Hosts caches it)
}

// Dial opens a connection to addr for cfg: TCP, TLS when cfg.Secure, and the handshake, all
// bounded by cfg.DialTimeout and ctx. A failure is a *DialError naming the address (with a hint
// at the usual DSN mistake), or the server's *Exception (a refused login), or ctx's error.
//
// The dialer's Observer hears of each dial (ConnOpen), connected or not.
func Dial(ctx context.Context, cfg *dsn.Config, addr string, d Dialer) (*Conn, error) {
	if d.Observer == nil {
		return dial(ctx, cfg, addr, d)
	}
	began := time.Now()
	cc, err := dial(ctx, cfg, addr, d)
	e := ConnEvent{Addr: addr, Elapsed: time.Since(began), Err: err}
	if err == nil {
		h := cc.Hello()
		e.ID, e.Revision = cc.id, cc.rev
		e.Server = fmt.Sprintf("%d.%d.%d", h.Major, h.Minor, h.Patch)
	}
	d.Observer.ConnOpen(ctx, &e)
	return cc, err
}

func dial(ctx context.Context, cfg *dsn.Config, addr string, d Dialer) (*Conn, error) {
	user, password, err := credentials(ctx, cfg)
	if err != nil {
		return nil, err
	}
	signer := d.SSHSigner
	if signer == nil && cfg.SSHKey != "" {
		if signer, err = LoadSSHKey(cfg.SSHKey, cfg.SSHKeyPassphrase); err != nil {
			return nil, err
		}
	}
	if cfg.Secure && cfg.TLSCert != "" && d.cert == nil {
		if d.cert, err = loadClientCert(cfg); err != nil {
			return nil, err
		}
	}
	dctx := ctx
	if cfg.DialTimeout > 0 {
		var cancel context.CancelFunc
		dctx, cancel = context.WithTimeout(ctx, cfg.DialTimeout)
		defer cancel()
	}
	var nc net.Conn
	if d.Dial != nil {
		nc, err = d.Dial(dctx, "tcp", addr)
	} else {
		var d net.Dialer
		nc, err = d.DialContext(dctx, "tcp", addr)
	}
	if err != nil {
		return nil, &DialError{Addr: addr, Err: err}
	}
	if cfg.Secure {
		tc := d.TLS
		host, _, _ := net.SplitHostPort(addr)
		if cfg.TLSServerName != "" {
			host = cfg.TLSServerName // tls_server_name: every address is checked under this name
		}
		if tc == nil {
			tc = &tls.Config{ServerName: host, InsecureSkipVerify: cfg.SkipVerify} //nolint:gosec // the caller asked for skip_verify
		} else if tc.ServerName == "" && !tc.InsecureSkipVerify {
			// Verify each host under its own name, as when no TLS config is given (crypto/tls
			// refuses a config with neither).
			tc = tc.Clone()
			tc.ServerName = host
		}
		if d.cert != nil {
			tc = tc.Clone()
			tc.Certificates = []tls.Certificate{*d.cert}
		}
		tlsConn := tls.Client(nc, tc)
		if err := tlsConn.HandshakeContext(dctx); err != nil {
			nc.Close()
			de := &DialError{Addr: addr, Err: err}
			var rh tls.RecordHeaderError
			if errors.As(err, &rh) {
				de.Hint = "secure=true, but this port does not speak TLS: drop secure, or use the server's secure port (9440 by default)"
			}
			return nil, de
		}
		nc = tlsConn
	}
	cn := newConn(cfg, nc, addr, d.Log, d.observer())
	if dl, ok := dctx.Deadline(); ok {
		_ = nc.SetDeadline(dl)
	}
	stop := context.AfterFunc(dctx, func() { _ = nc.SetDeadline(aLongTimeAgo) })
	err = cn.handshake(user, password, signer)
	stop()
	_ = nc.SetDeadline(time.Time{})
	if err != nil {
		nc.Close()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var ex *Exception
		var ae *AuthError
		if errors.As(err, &ex) || errors.As(err, &ae) {
			return nil, err
		}
		return nil, &DialError{Addr: addr, Err: err, Hint: handshakeHint(err, cfg.Secure)}
	}
	return cn, nil
}

// handshakeHint names the usual mistake behind a handshake that failed before the server said
// anything in the native protocol: the DSN names ClickHouse's HTTP port, or its TLS port
// without secure=true.
func handshakeHint(err error, secure bool) string {
	var np *notNativeError
	var ne net.Error
	switch {
	case errors.As(err, &np):
		return np.hint
	case errors.As(err, &ne) && ne.Timeout():
		return "the server answered nothing to the native Hello: is this ClickHouse's native port (9000 by default)? its HTTP port (8123) waits like this"
	case !secure && (errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET)):
		return "the server closed the connection at the native Hello: if this is ClickHouse's secure port (9440 by default), add secure=true"
	}
	return ""
}

// loadClientCert loads the client certificate and key files of cfg (tls_cert, tls_key).
func loadClientCert(cfg *dsn.Config) (*tls.Certificate, error) {
	cert, err := tls.LoadX509KeyPair(cfg.TLSCert, cfg.TLSKey)
	if err != nil {
		return nil, &AuthError{Method: "tls_cert", Err: fmt.Errorf("%s, %s: %w", cfg.TLSCert, cfg.TLSKey, err)}
	}
	return &cert, nil
}
