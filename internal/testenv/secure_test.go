package testenv

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// testPKI writes a throw-away CA and a server certificate for 127.0.0.1 and localhost signed by
// it into dir, as scripts/modern.sh does with openssl, and returns the files' paths.
func testPKI(t *testing.T, dir string) (caFile, certFile, keyFile string) {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	caTmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "testenv CA"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		t.Fatal(err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2),
		Subject:      pkix.Name{CommonName: "localhost"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames:     []string{"localhost"},
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		KeyUsage:     x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name, typ string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: b}), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	return write("ca.crt", "CERTIFICATE", caDER), write("server.crt", "CERTIFICATE", der), write("server.key", "EC PRIVATE KEY", keyDER)
}

func TestSecureAddrModern(t *testing.T) {
	t.Setenv("CI", "true")
	s := newFakeServer(t, serverHelloBytes("ClickHouse", 26, 7, 54488))
	t.Setenv(EnvDSN, s.dsn("default"))
	caFile, certFile, keyFile := testPKI(t, t.TempDir())
	t.Setenv(EnvModernTLSCA, caFile)
	t.Setenv(EnvModernTLSCert, certFile)
	t.Setenv(EnvModernTLSKey, keyFile)
	// CHNATIVE_SECURE_PORT (18.16's) must not be used for a 26.7 server.
	t.Setenv(EnvSecurePort, "1")

	var addr string
	var pool *x509.CertPool
	t.Run("front", func(t *testing.T) {
		addr, pool = SecureAddr(t)
		if pool == nil || !strings.HasPrefix(addr, "127.0.0.1:") || addr == "127.0.0.1:1" {
			t.Fatalf("SecureAddr = %q, %v; want a front on 127.0.0.1", addr, pool)
		}
		before := len(s.hellos()) // Server's probe
		for _, host := range []string{"127.0.0.1", "localhost"} {
			_, port, _ := net.SplitHostPort(addr)
			c, err := tls.Dial("tcp", net.JoinHostPort(host, port), &tls.Config{RootCAs: pool})
			if err != nil {
				t.Fatalf("TLS to the front as %s: %v", host, err)
			}
			_ = c.SetDeadline(time.Now().Add(5 * time.Second))
			h, err := HelloOver(c, "", "default", "")
			c.Close()
			if err != nil || h.Kind() != Modern {
				t.Fatalf("Hello through the front as %s: %+v, %v", host, h, err)
			}
		}

		// A client that does not trust the certificate, and a plain client: the handshake
		// fails, and nothing reaches the server.
		if c, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: x509.NewCertPool()}); err == nil {
			c.Close()
			t.Fatal("a client without the CA verified the front's certificate")
		}
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		_ = c.SetDeadline(time.Now().Add(5 * time.Second))
		if h, err := HelloOver(c, "", "default", ""); err == nil {
			t.Fatalf("a plain Hello to the front was answered: %+v", h)
		}
		c.Close()
		if n := len(s.hellos()) - before; n != 2 {
			t.Fatalf("the server read %d Hellos through the front, want 2 (the verified TLS clients only)", n)
		}
	})
	// The subtest's Cleanup closed the front.
	if c, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: pool}); err == nil {
		c.Close()
		t.Fatal("the front still accepts after its test ended")
	}
}

func TestTLSFrontCloseEndsConnections(t *testing.T) {
	s := newFakeServer(t, serverHelloBytes("ClickHouse", 26, 7, 54488))
	s.hold = true
	caFile, certFile, keyFile := testPKI(t, t.TempDir())
	pair, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}
	f, err := StartTLSFront(s.ln.Addr().String(), &tls.Config{Certificates: []tls.Certificate{pair}})
	if err != nil {
		t.Fatal(err)
	}
	c, err := tls.Dial("tcp", f.Addr(), &tls.Config{RootCAs: loadCA(t, caFile)})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := HelloOver(c, "", "default", ""); err != nil {
		t.Fatal(err)
	}
	f.Close() // returns once its goroutines ended, with the connection open until now
	if _, err := c.Read(make([]byte, 1)); err == nil {
		t.Fatal("a connection through the front is still open after Close")
	} else if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatal("Close did not end the connection through the front")
	}
}

func TestSecureAddrLegacy(t *testing.T) {
	s := newFakeServer(t, serverHelloBytes("ClickHouse server", 18, 16, 54412))
	t.Setenv(EnvDSN, s.dsn("default"))
	caFile, _, _ := testPKI(t, t.TempDir())
	t.Setenv(EnvSecurePort, "4443")
	t.Setenv(EnvTLSCA, caFile)
	t.Setenv(EnvModernTLSCert, "") // not needed for 18.16
	f := &fakeTB{}
	addr, pool := SecureAddr(f)
	if f.fatal || f.skipped || pool == nil || addr != "127.0.0.1:4443" {
		t.Fatalf("SecureAddr = %q, %v (fatal=%v skipped=%v %s), want the secure port", addr, pool, f.fatal, f.skipped, f.msg)
	}

	t.Setenv(EnvSecurePort, "")
	for _, ci := range []string{"", "true"} {
		t.Setenv("CI", ci)
		f := &fakeTB{}
		if addr, _ := SecureAddr(f); addr != "" || f.fatal != (ci == "true") || f.skipped == (ci == "true") ||
			!strings.Contains(f.msg, EnvSecurePort) {
			t.Errorf("CI=%q without %s: %q (fatal=%v skipped=%v %q)", ci, EnvSecurePort, addr, f.fatal, f.skipped, f.msg)
		}
	}
}

// TestSecureAddrServer checks the real environment: a native Hello over TLS through SecureAddr
// reaches the server CHNATIVE_DSN names (18.16's own TLS port, or the front before 26.7).
func TestSecureAddrServer(t *testing.T) {
	kind := Server(t)
	addr, pool := SecureAddr(t)
	c, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: pool})
	if err != nil {
		t.Fatalf("TLS to %s (%v): %v", addr, kind, err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	h, err := HelloOver(c, "default", "default", "")
	if err != nil || h.Kind() != kind {
		t.Fatalf("Hello over TLS to %s: %+v, %v; want the %v server", addr, h, err, kind)
	}
}
