package chnative

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"database/sql"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/chnative/chnative/dsn"
	"github.com/chnative/chnative/internal/faketest"
	"github.com/chnative/chnative/internal/testenv"
)

// ClickHouse Cloud's ways in against the test servers: neither has JWT or SSH key
// authentication (JWT is ClickHouse Cloud's; chDB's 26.7 is built without libssh), so these
// tests pin what each answers; the bytes of both methods are checked against fake servers in
// internal/chconn (auth_test.go). Client certificates and the wake-up budget work against both.

// The token goes in the Hello as the JWT marker user: the server refuses it as a login (it
// does not log in the DSN's user), and the error does not show the token.
func TestJWTRefusedByTestServers(t *testing.T) {
	kind := testenv.Server(t)
	db := openDB(t, "jwt=header.payload.signature")
	err := db.PingContext(context.Background())
	var ex *Exception
	if !errors.As(err, &ex) {
		t.Fatalf("Ping with a JWT: %v, want the server's refusal", err)
	}
	want := int32(516) // 26.7: AUTHENTICATION_FAILED for the user " JWT AUTHENTICATION "
	if kind == testenv.Legacy {
		want = 192 // 18.16: UNKNOWN_USER " JWT AUTHENTICATION "
	}
	if ex.Code != want || !strings.Contains(ex.Message, "JWT AUTHENTICATION") {
		t.Errorf("refusal %d %q, want %d naming the JWT marker user", ex.Code, ex.Message, want)
	}
	if strings.Contains(err.Error(), "payload") {
		t.Errorf("the error shows the token: %v", err)
	}
}

// An SSH key: 18.16 does not know the marker (an unknown user); 26.7 built without SSH support
// strips it and answers its Hello without a challenge, which the driver refuses, for the key
// was never checked.
func TestSSHKeyAgainstTestServers(t *testing.T) {
	kind := testenv.Server(t)
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	block, err := ssh.MarshalPrivateKey(key, "")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "id_ed25519")
	if err := os.WriteFile(path, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
	db := openDB(t, "ssh_key="+url.QueryEscape(path))
	err = db.PingContext(context.Background())
	switch kind {
	case testenv.Legacy:
		var ex *Exception
		if !errors.As(err, &ex) || ex.Code != 192 || !strings.Contains(ex.Message, "SSH KEY AUTHENTICATION") {
			t.Errorf("18.16: %v, want unknown user naming the SSH marker", err)
		}
	default:
		var ae *AuthError
		if !errors.As(err, &ae) || ae.Method != "ssh_key" || !strings.Contains(err.Error(), "no SSH key authentication") {
			t.Errorf("26.7: %v, want an *AuthError saying the server has no SSH key authentication", err)
		}
	}
}

// testPKI is a CA with a server certificate for 127.0.0.1 and a client certificate, the
// client's written as PEM files.
type testPKI struct {
	pool             *x509.CertPool
	server           tls.Certificate
	certFile, keyFil string
}

func newTestPKI(t *testing.T) *testPKI {
	t.Helper()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "mtls test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	issue := func(serial int64, usage x509.ExtKeyUsage) ([]byte, *ecdsa.PrivateKey) {
		k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: "chnative test"},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
			ExtKeyUsage: []x509.ExtKeyUsage{usage}, KeyUsage: x509.KeyUsageDigitalSignature,
			IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &k.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		return der, k
	}
	p := &testPKI{pool: x509.NewCertPool()}
	p.pool.AddCert(ca)
	sDER, sKey := issue(2, x509.ExtKeyUsageServerAuth)
	p.server = tls.Certificate{Certificate: [][]byte{sDER}, PrivateKey: sKey}
	cDER, cKey := issue(3, x509.ExtKeyUsageClientAuth)
	keyDER, err := x509.MarshalECPrivateKey(cKey)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	p.certFile, p.keyFil = filepath.Join(dir, "client.crt"), filepath.Join(dir, "client.key")
	if err := os.WriteFile(p.certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p.keyFil, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// A TLS front that requires a client certificate signed by its CA, before the test server's
// native port: tls_cert and tls_key get in, without them the TLS handshake is refused.
func TestTLSClientCertificate(t *testing.T) {
	testenv.Require(t)
	cfg, err := dsn.Parse(testenv.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	p := newTestPKI(t)
	front, err := testenv.StartTLSFront(cfg.Addrs[0], &tls.Config{
		Certificates: []tls.Certificate{p.server}, ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: p.pool,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(front.Close)
	cfg.Addrs = []string{front.Addr()}
	cfg.Secure = true
	cfg.DialTimeout = 5 * time.Second
	open := func(cfg *dsn.Config) *sql.DB {
		dc, err := NewConnector(cfg)
		if err != nil {
			t.Fatal(err)
		}
		dc.(*Connector).TLS = &tls.Config{RootCAs: p.pool}
		db := sql.OpenDB(dc)
		t.Cleanup(func() { db.Close() })
		return db
	}
	without := open(cfg)
	if err := without.Ping(); err == nil {
		t.Fatal("connected without a client certificate through a front that requires one")
	}
	withCert, err := dsn.Parse(cfg.FormatDSN() + "&tls_cert=" + url.QueryEscape(p.certFile) + "&tls_key=" + url.QueryEscape(p.keyFil))
	if err != nil {
		t.Fatal(err)
	}
	var one int
	if err := open(withCert).QueryRow("SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("with tls_cert and tls_key: %d, %v", one, err)
	}

	// A key file that does not match: an *AuthError naming the files, before any dial.
	bad := withCert.Clone()
	bad.TLSKey = bad.TLSCert
	err = open(bad).Ping()
	var ae *AuthError
	if !errors.As(err, &ae) || ae.Method != "tls_cert" || !strings.Contains(err.Error(), p.certFile) {
		t.Errorf("bad key file: %v, want an *AuthError naming the files", err)
	}
}

// A service waking up: its front accepts TCP but answers nothing for a while. With
// wake_up_timeout the first connection waits it out; without, it fails with the timeout.
func TestWakeUpTimeout(t *testing.T) {
	testenv.Require(t)
	cfg, err := dsn.Parse(testenv.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	proxy, err := faketest.NewProxy(cfg.Addrs[0])
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { proxy.Close() })
	cfg.Addrs = []string{proxy.Addr()}
	cfg.DialTimeout = 300 * time.Millisecond
	cfg.HostBackoff = 0

	proxy.SetMode(faketest.Blackhole)
	db := openDBConfig(t, cfg)
	err = db.Ping()
	var ne net.Error
	if err == nil || !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("asleep, no budget: %v, want the handshake's timeout", err)
	}

	cfg.WakeUpTimeout = 10 * time.Second
	db = openDBConfig(t, cfg)
	woke := time.AfterFunc(1200*time.Millisecond, func() { proxy.SetMode(faketest.Forward) })
	defer woke.Stop()
	start := time.Now()
	var one int
	if err := db.QueryRow("SELECT 1").Scan(&one); err != nil {
		t.Fatalf("waking up within wake_up_timeout: %v", err)
	}
	if took := time.Since(start); took < time.Second || took > 8*time.Second {
		t.Errorf("first query took %v: want it to wait for the wake-up (about 1.2 s)", took)
	}
	if n := proxy.Accepts(); n < 3 {
		t.Errorf("%d dials, want the sleeping ones retried", n)
	}
}

func openDBConfig(t *testing.T, cfg *dsn.Config) *sql.DB {
	t.Helper()
	db, err := OpenDB(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
