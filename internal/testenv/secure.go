package testenv

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// Environment variables of the 18.16 server's TLS port (scripts/clickhouse.sh env).
const (
	EnvSecurePort = "CHNATIVE_SECURE_PORT"
	EnvTLSCA      = "CHNATIVE_TLS_CA"
)

// SecureAddr returns host:port of a TLS endpoint in front of the server CHNATIVE_DSN names,
// and the pool of the CA that signed its certificate (for 127.0.0.1 and localhost):
//
//   - 18.16: the server's own tcp_port_secure (CHNATIVE_SECURE_PORT, CA CHNATIVE_TLS_CA);
//   - 26.7, which has no TLS listener: a TLS front that SecureAddr starts on 127.0.0.1 with
//     CHNATIVE_MODERN_TLS_CERT and CHNATIVE_MODERN_TLS_KEY (CA CHNATIVE_MODERN_TLS_CA), which
//     forwards each connection's bytes to the server's native port after the TLS handshake. It is
//     closed, with every connection through it, when t's test ends (t.Cleanup).
//
// Without the variables SecureAddr fails t in CI and skips it elsewhere, as DSN does.
func SecureAddr(t testing.TB) (addr string, ca *x509.CertPool) {
	t.Helper()
	kind := Server(t)
	host := dsnHost(t)
	if host == "" {
		return "", nil
	}
	switch kind {
	case Legacy:
		port, caFile := os.Getenv(EnvSecurePort), os.Getenv(EnvTLSCA)
		if port == "" || caFile == "" {
			missing(t, EnvSecurePort+"/"+EnvTLSCA+" not set: the 18.16 server has no secure port (scripts/clickhouse.sh needs openssl)")
			return "", nil
		}
		h, _, err := net.SplitHostPort(host)
		if err != nil {
			t.Fatalf("testenv: %s host %q: %v", EnvDSN, host, err)
			return "", nil
		}
		return net.JoinHostPort(h, port), loadCA(t, caFile)
	case Modern:
		cert, key, caFile := os.Getenv(EnvModernTLSCert), os.Getenv(EnvModernTLSKey), os.Getenv(EnvModernTLSCA)
		if cert == "" || key == "" || caFile == "" {
			missing(t, EnvModernTLSCert+"/"+EnvModernTLSKey+"/"+EnvModernTLSCA+
				" not set: the 26.7 server's TLS front needs the files of scripts/modern.sh env (which needs openssl)")
			return "", nil
		}
		pair, err := tls.LoadX509KeyPair(cert, key)
		if err != nil {
			t.Fatalf("testenv: TLS front certificate: %v", err)
			return "", nil
		}
		pool := loadCA(t, caFile)
		f, err := StartTLSFront(host, &tls.Config{Certificates: []tls.Certificate{pair}})
		if err != nil {
			t.Fatalf("testenv: TLS front: %v", err)
			return "", nil
		}
		t.Cleanup(f.Close)
		return f.Addr(), pool
	}
	return "", nil
}

// dsnHost returns the first host:port of CHNATIVE_DSN.
func dsnHost(t testing.TB) string {
	t.Helper()
	dsn := DSN(t)
	if dsn == "" {
		return ""
	}
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatalf("testenv: cannot parse %s=%q: %v", EnvDSN, dsn, err)
		return ""
	}
	host, _, _ := strings.Cut(u.Host, ",")
	return host
}

// loadCA reads a PEM file of CA certificates into a pool.
func loadCA(t testing.TB, file string) *x509.CertPool {
	t.Helper()
	pem, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("testenv: CA file: %v", err)
		return nil
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		t.Fatalf("testenv: no certificate in %s", file)
		return nil
	}
	return pool
}

// TLSFront is a TLS listener on 127.0.0.1 that forwards each connection, once its TLS handshake
// is done, to a plain TCP upstream: the TLS port a server without one would have. A connection
// whose handshake fails (a plain client, a client that rejects the certificate) is closed
// without dialling the upstream, as a server's own TLS port closes it.
type TLSFront struct {
	ln       net.Listener
	upstream string
	wg       sync.WaitGroup

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
}

// frontHandshakeTimeout bounds a client's TLS handshake through the front.
const frontHandshakeTimeout = 10 * time.Second

// StartTLSFront listens on 127.0.0.1 (a free port) with cfg and forwards to upstream.
func StartTLSFront(upstream string, cfg *tls.Config) (*TLSFront, error) {
	ln, err := tls.Listen("tcp", "127.0.0.1:0", cfg)
	if err != nil {
		return nil, err
	}
	f := &TLSFront{ln: ln, upstream: upstream, conns: map[net.Conn]struct{}{}}
	f.wg.Add(1)
	go f.accept()
	return f, nil
}

// Addr is the front's host:port.
func (f *TLSFront) Addr() string { return f.ln.Addr().String() }

// Close stops listening, closes every connection through the front and waits for its
// goroutines to end.
func (f *TLSFront) Close() {
	f.mu.Lock()
	f.closed = true
	for c := range f.conns {
		c.Close()
	}
	f.mu.Unlock()
	f.ln.Close()
	f.wg.Wait()
}

// track records c for Close; false (c closed) when the front is already closed.
func (f *TLSFront) track(c net.Conn) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		c.Close()
		return false
	}
	f.conns[c] = struct{}{}
	return true
}

func (f *TLSFront) untrack(c net.Conn) {
	f.mu.Lock()
	delete(f.conns, c)
	f.mu.Unlock()
	c.Close()
}

func (f *TLSFront) accept() {
	defer f.wg.Done()
	for {
		c, err := f.ln.Accept()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return
		}
		if !f.track(c) {
			return
		}
		f.wg.Add(1)
		go f.serve(c.(*tls.Conn))
	}
}

// serve forwards one client connection until either side ends it.
func (f *TLSFront) serve(c *tls.Conn) {
	defer f.wg.Done()
	defer f.untrack(c)
	if err := c.SetDeadline(time.Now().Add(frontHandshakeTimeout)); err != nil {
		return
	}
	if err := c.Handshake(); err != nil {
		return
	}
	if err := c.SetDeadline(time.Time{}); err != nil {
		return
	}
	up, err := net.DialTimeout("tcp", f.upstream, 5*time.Second)
	if err != nil {
		return
	}
	if !f.track(up) {
		return
	}
	defer f.untrack(up)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = io.Copy(up, c)
		up.Close() // the client ended: end the server side, which ends the copy below
	}()
	_, _ = io.Copy(c, up)
	c.Close() // the server ended: end the client side, which ends the copy above
	<-done
}
