package chnative

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"database/sql"
	"errors"
	"math/big"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/chnative/chnative/dsn"
	"github.com/chnative/chnative/internal/testenv"
)

// TLS against the test server: 18.16's own tcp_port_secure, which scripts/clickhouse.sh opens
// with a throw-away CA, or, for 26.7, which has no TLS listener, an in-process TLS front on
// loopback with scripts/modern.sh's certificate (testenv.SecureAddr). Both are on 127.0.0.1 with a
// certificate for 127.0.0.1 and localhost.

// secureEnv returns the TLS port and the CA pool, or skips (fails in CI).
func secureEnv(t *testing.T) (port string, pool *x509.CertPool) {
	t.Helper()
	addr, pool := testenv.SecureAddr(t)
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatalf("testenv.SecureAddr = %q: %v", addr, err)
	}
	return port, pool
}

// tlsDB opens a DB for a DSN with the Connector's TLS config set to tc (when not nil).
func tlsDB(t *testing.T, dsnStr string, tc *tls.Config) *sql.DB {
	t.Helper()
	cfg, err := dsn.Parse(dsnStr)
	if err != nil {
		t.Fatal(err)
	}
	dc, err := NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dc.(*Connector).TLS = tc
	db := sql.OpenDB(dc)
	t.Cleanup(func() { db.Close() })
	return db
}

func TestTLSVerified(t *testing.T) {
	port, pool := secureEnv(t)
	for _, tc := range []struct {
		name, host string
		cfg        *tls.Config
	}{
		{"ip", "127.0.0.1", &tls.Config{RootCAs: pool}},
		{"localhost", "localhost", &tls.Config{RootCAs: pool}},
		{"explicitServerName", "127.0.0.1", &tls.Config{RootCAs: pool, ServerName: "localhost"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := tlsDB(t, "clickhouse://default@"+tc.host+":"+port+"/default?secure=true&compress=lz4&dial_timeout=5s", tc.cfg)
			selectOne(t, db)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			n, err := drainQuery(ctx, db, bigQuery(100_000))
			if err != nil || n != 100_000 {
				t.Fatalf("100000-row result over TLS: %d rows, %v", n, err)
			}
		})
	}
}

func TestTLSSkipVerify(t *testing.T) {
	port, _ := secureEnv(t)
	db := openAt(t, []string{"127.0.0.1:" + port}, "secure=true", "skip_verify=true", "dial_timeout=5s")
	selectOne(t, db)
}

func TestTLSRejected(t *testing.T) {
	port, pool := secureEnv(t)
	otherPool := x509.NewCertPool()
	otherPool.AddCert(selfSignedCA(t))
	addr := "127.0.0.1:" + port
	for _, tc := range []struct {
		name string
		cfg  *tls.Config
		want string
		is   func(error) bool
	}{
		{"wrongName", &tls.Config{RootCAs: pool, ServerName: "wrong.example.com"}, "wrong.example.com",
			func(err error) bool { var e x509.HostnameError; return errors.As(err, &e) }},
		{"untrustedCA", &tls.Config{RootCAs: otherPool}, "unknown authority",
			func(err error) bool { var e x509.UnknownAuthorityError; return errors.As(err, &e) }},
		{"systemRoots", nil, "unknown authority",
			func(err error) bool { var e x509.UnknownAuthorityError; return errors.As(err, &e) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := tlsDB(t, "clickhouse://default@"+addr+"/default?secure=true&dial_timeout=5s", tc.cfg)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			err := db.PingContext(ctx)
			if err == nil {
				t.Fatal("connected despite a certificate that must not verify")
			}
			var de *DialError
			if !errors.As(err, &de) || !tc.is(err) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), addr) {
				t.Fatalf("error %q (%T): want a *DialError naming %s and wrapping the x509 error (%q)", err, err, addr, tc.want)
			}
			t.Log(err)
		})
	}
	t.Run("plainToSecurePort", func(t *testing.T) {
		db := openAt(t, []string{addr}, "dial_timeout=2s", "read_timeout=2s")
		start := time.Now()
		if err := db.Ping(); err == nil {
			t.Fatal("a plain connection to the TLS port succeeded")
		} else {
			t.Logf("after %v: %v", time.Since(start), err)
		}
	})
}

// selfSignedCA makes a CA certificate that signed nothing the server has.
func selfSignedCA(t *testing.T) *x509.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "untrusted test CA"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return cert
}
