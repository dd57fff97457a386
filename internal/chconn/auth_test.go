package chconn

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"

	"github.com/chnative/chnative/dsn"
	"github.com/chnative/chnative/internal/faketest"
	"github.com/chnative/chnative/internal/wire"
	"github.com/chnative/chnative/nativeproto"
)

// JWT and SSH key authentication against fake servers that follow ClickHouse's TCPHandler
// (receiveHello): the bytes of the Hello, the SSH challenge and its signature.

// helloServer is a fake server that records the client Hello of each connection and answers
// with a modern Hello.
func helloServer(t *testing.T) (*faketest.Server, chan nativeproto.ClientHello) {
	t.Helper()
	hellos := make(chan nativeproto.ClientHello, 8)
	srv, err := faketest.NewServer(func(s *faketest.Session) {
		if s.HandshakeHello(faketest.ModernHello()) != nil {
			return
		}
		hellos <- s.Hello
		s.Drain(faketest.DrainAfterScript)
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv, hellos
}

func TestJWTInHello(t *testing.T) {
	srv, hellos := helloServer(t)
	cfg, err := dsn.Parse("clickhouse://alice:pw@" + srv.Addr() + "/db?jwt=static.token.x")
	if err != nil {
		t.Fatal(err)
	}
	if s := cfg.String(); strings.Contains(s, "static.token") {
		t.Errorf("Config.String shows the token: %s", s)
	}
	c, err := Dial(context.Background(), cfg, srv.Addr(), Dialer{})
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	h := <-hellos
	if h.User != " JWT AUTHENTICATION " || h.Password != "static.token.x" || h.Database != "db" {
		t.Errorf("hello user %q password %q database %q; want the JWT marker, the token and db", h.User, h.Password, h.Database)
	}

	// GetJWT is asked for each new connection, and wins over the static token.
	n := 0
	cfg.GetJWT = func(context.Context) (string, error) { n++; return "fresh-" + strconv.Itoa(n), nil }
	for i := 1; i <= 2; i++ {
		c, err := Dial(context.Background(), cfg, srv.Addr(), Dialer{})
		if err != nil {
			t.Fatal(err)
		}
		c.Close()
		if h := <-hellos; h.User != jwtUser || h.Password != "fresh-"+strconv.Itoa(i) {
			t.Errorf("connection %d: hello user %q password %q", i, h.User, h.Password)
		}
	}

	// A failing callback fails the connection before anything is sent, as an *AuthError.
	before := srv.Accepts()
	cfg.GetJWT = func(context.Context) (string, error) { return "", errors.New("token service down") }
	h2 := &Hosts{Config: cfg}
	_, err = h2.Dial(context.Background(), Dialer{}, "")
	var ae *AuthError
	if !errors.As(err, &ae) || ae.Method != "jwt" || !strings.Contains(err.Error(), "token service down") {
		t.Errorf("GetJWT failing: %v, want an *AuthError naming jwt and the cause", err)
	}
	if srv.Accepts() != before {
		t.Errorf("a connection was dialed although the token could not be had")
	}
}

// sshServer answers the SSH challenge as ClickHouse's TCPHandler does and checks the
// signature against pub: the Hello when it verifies, an exception otherwise.
func sshServer(t *testing.T, pub ssh.PublicKey) (*faketest.Server, chan error) {
	t.Helper()
	verdicts := make(chan error, 4)
	srv, err := faketest.NewServer(func(s *faketest.Session) {
		err := answerSSH(s, pub)
		verdicts <- err
		var w []byte
		if err != nil {
			w = faketest.Exception(nil, 516, "Authentication failed: "+err.Error(), 1)
			_ = s.Write(w)
			return
		}
		var hw wire.Writer
		h := faketest.ModernHello()
		if h.Encode(&hw, s.Hello.Revision) != nil || s.Write(hw.Buf) != nil {
			return
		}
		s.Drain(faketest.DrainAfterScript)
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv, verdicts
}

// answerSSH is TCPHandler::receiveHello's SSH branch: the marker, an empty password, the
// client revision, SSHChallengeRequest, the challenge, SSHChallengeResponse, and the check of
// the signature over revision + database + user + challenge.
func answerSSH(s *faketest.Session, pub ssh.PublicKey) error {
	code, err := s.R.UVarInt()
	if err != nil || nativeproto.ClientCode(code) != nativeproto.ClientCodeHello {
		return fmt.Errorf("want Hello, got %d (%v)", code, err)
	}
	if err := s.Hello.Decode(s.R); err != nil {
		return err
	}
	user, ok := strings.CutPrefix(s.Hello.User, " SSH KEY AUTHENTICATION ")
	if !ok || s.Hello.Password != "" {
		return fmt.Errorf("hello user %q with password %q: want the SSH marker and none", s.Hello.User, s.Hello.Password)
	}
	if s.Hello.Revision < 54466 {
		return fmt.Errorf("client revision %d is below 54466", s.Hello.Revision)
	}
	if code, err = s.R.UVarInt(); err != nil || code != 11 {
		return fmt.Errorf("want SSHChallengeRequest (11), got %d (%v)", code, err)
	}
	var seed [8]byte
	_, _ = rand.Read(seed[:])
	challenge := fmt.Sprintf("%x", sha256.Sum256(seed[:])) // encodeSHA256 of a random UInt64
	if err := s.Write(appendString(faketest.UVarInt(nil, 18), challenge)); err != nil {
		return err
	}
	if code, err = s.R.UVarInt(); err != nil || code != 12 {
		return fmt.Errorf("want SSHChallengeResponse (12), got %d (%v)", code, err)
	}
	sig, err := s.R.String("signature", 1<<16)
	if err != nil {
		return err
	}
	msg := strconv.FormatUint(uint64(s.Hello.Revision), 10) + s.Hello.Database + user + challenge
	return verifySSHSIG(pub, sig, []byte(msg))
}

// verifySSHSIG checks an armored SSHSIG signature (OpenSSH's PROTOCOL.sshsig) of msg by pub in
// namespace "clickhouse", as libssh's sshsig_verify does for ClickHouse.
func verifySSHSIG(pub ssh.PublicKey, armored string, msg []byte) error {
	body, ok := strings.CutPrefix(armored, "-----BEGIN SSH SIGNATURE-----\n")
	body, ok2 := strings.CutSuffix(body, "\n-----END SSH SIGNATURE-----\n")
	if !ok || !ok2 {
		return fmt.Errorf("not an armored SSH signature: %q", armored)
	}
	blob, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(body, "\n", ""))
	if err != nil {
		return err
	}
	var sig struct {
		Magic     [6]byte
		Version   uint32
		PublicKey []byte
		Namespace string
		Reserved  string
		Hash      string
		Sig       []byte
	}
	if err := ssh.Unmarshal(blob, &sig); err != nil {
		return err
	}
	if string(sig.Magic[:]) != "SSHSIG" || sig.Version != 1 || sig.Namespace != "clickhouse" || sig.Hash != "sha256" {
		return fmt.Errorf("SSHSIG header %q v%d namespace %q hash %q", sig.Magic, sig.Version, sig.Namespace, sig.Hash)
	}
	if !bytes.Equal(sig.PublicKey, pub.Marshal()) {
		return errors.New("signed by another key")
	}
	var s ssh.Signature
	if err := ssh.Unmarshal(sig.Sig, &s); err != nil {
		return err
	}
	sum := sha256.Sum256(msg)
	signed := ssh.Marshal(struct {
		Magic                          [6]byte
		Namespace, Reserved, Hash, Sum string
	}{sshsigMagic, "clickhouse", "", "sha256", string(sum[:])})
	return pub.Verify(signed, &s)
}

func appendString(dst []byte, s string) []byte {
	return append(faketest.UVarInt(dst, uint64(len(s))), s...)
}

// writeKey writes key to a new file in dir, encrypted with passphrase when it is not "".
func writeKey(t *testing.T, key ed25519.PrivateKey, passphrase string) string {
	t.Helper()
	var block *pem.Block
	var err error
	if passphrase == "" {
		block, err = ssh.MarshalPrivateKey(key, "test key")
	} else {
		block, err = ssh.MarshalPrivateKeyWithPassphrase(key, "test key", []byte(passphrase))
	}
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "id_ed25519")
	if err := os.WriteFile(path, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestSSHKeyChallenge(t *testing.T) {
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := ssh.NewSignerFromKey(key)
	if err != nil {
		t.Fatal(err)
	}
	srv, verdicts := sshServer(t, signer.PublicKey())
	path := writeKey(t, key, "s3cret pass")
	cfg, err := dsn.Parse("clickhouse://alice@" + srv.Addr() + "/analytics?ssh_key=" + path + "&ssh_key_passphrase=s3cret+pass")
	if err != nil {
		t.Fatal(err)
	}
	if s := cfg.String(); strings.Contains(s, "s3cret") {
		t.Errorf("Config.String shows the passphrase: %s", s)
	}
	c, err := (&Hosts{Config: cfg}).Dial(context.Background(), Dialer{}, "")
	if err != nil {
		t.Fatalf("dial: %v (server: %v)", err, <-verdicts)
	}
	c.Close()
	if err := <-verdicts; err != nil {
		t.Fatalf("server: %v", err)
	}

	// The same through a signer given by the program (Dialer.SSHSigner), at the oldest revision
	// that has the challenge.
	cfg2 := cfg.Clone()
	cfg2.SSHKey, cfg2.SSHKeyPassphrase, cfg2.ProtocolRevision = "", "", 54466
	c, err = Dial(context.Background(), cfg2, srv.Addr(), Dialer{SSHSigner: signer})
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if err := <-verdicts; err != nil {
		t.Fatalf("server at 54466: %v", err)
	}

	// Another key: the server's exception comes back as the *Exception.
	_, other, _ := ed25519.GenerateKey(rand.Reader)
	otherSigner, _ := ssh.NewSignerFromKey(other)
	_, err = Dial(context.Background(), cfg2, srv.Addr(), Dialer{SSHSigner: otherSigner})
	var ex *Exception
	if !errors.As(err, &ex) || ex.Code != 516 {
		t.Errorf("wrong key: %v, want the server's exception 516", err)
	}
	<-verdicts

	// Below revision 54466 the server would refuse the method: refused before the challenge.
	cfg2.ProtocolRevision = 54465
	_, err = Dial(context.Background(), cfg2, srv.Addr(), Dialer{SSHSigner: signer})
	var ae *AuthError
	if !errors.As(err, &ae) || !strings.Contains(err.Error(), "54466") {
		t.Errorf("revision 54465: %v, want an *AuthError naming 54466", err)
	}
}

func TestSSHKeyFileErrors(t *testing.T) {
	_, key, _ := ed25519.GenerateKey(rand.Reader)
	enc := writeKey(t, key, "pp")
	for _, tc := range []struct{ path, pass, want string }{
		{enc, "", "is encrypted: give its passphrase"},
		{enc, "wrong", enc},
		{filepath.Join(t.TempDir(), "missing"), "", "no such file"},
	} {
		_, err := LoadSSHKey(tc.path, tc.pass)
		var ae *AuthError
		if !errors.As(err, &ae) || ae.Method != "ssh_key" || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("LoadSSHKey(%s, %q) = %v, want an *AuthError with %q", tc.path, tc.pass, err, tc.want)
		}
		if tc.pass != "" && strings.Contains(err.Error(), tc.pass+" ") {
			t.Errorf("the error shows the passphrase: %v", err)
		}
	}
}

// The signature is what OpenSSH's own tool accepts: ssh-keygen -Y verify, namespace clickhouse.
func TestSSHSignatureVerifiedBySSHKeygen(t *testing.T) {
	keygen, err := exec.LookPath("ssh-keygen")
	if err != nil {
		t.Log("ssh-keygen not installed: the SSHSIG bytes are checked by verifySSHSIG only")
		return
	}
	_, key, _ := ed25519.GenerateKey(rand.Reader)
	signer, _ := ssh.NewSignerFromKey(key)
	msg := "54488analyticsalice" + strings.Repeat("ab", 32)
	sig, err := sshSign(signer, []byte(msg))
	if err != nil {
		t.Fatal(err)
	}
	if err := verifySSHSIG(signer.PublicKey(), sig, []byte(msg)); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	allowed := filepath.Join(dir, "allowed")
	sigFile := filepath.Join(dir, "msg.sig")
	if err := os.WriteFile(allowed, []byte("alice "+string(ssh.MarshalAuthorizedKey(signer.PublicKey()))), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(sigFile, []byte(sig), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(keygen, "-Y", "verify", "-f", allowed, "-I", "alice", "-n", "clickhouse", "-s", sigFile)
	cmd.Stdin = strings.NewReader(msg)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen -Y verify: %v\n%s", err, out)
	}
}
