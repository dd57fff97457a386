package chconn

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/crypto/ssh"

	"github.com/chnative/chnative/nativeproto"
)

// SSH key authentication, ClickHouse's own challenge over the native protocol (TCPHandler's
// receiveHello and Connection::performHandshakeForSSHAuth in ClickHouse's source):
//
//	client: Hello, user " SSH KEY AUTHENTICATION "+user, empty password
//	client: SSHChallengeRequest (11)
//	server: SSHChallenge (18), String challenge   (or an Exception: no such user, no ssh_keys)
//	client: SSHChallengeResponse (12), String signature
//	server: Hello or Exception
//
// The signed text is the client's revision in decimal, the database and the user (without
// the marker) and the challenge, concatenated; the server needs a client revision of at least
// 54466. The signature is an armored SSHSIG (namespace "clickhouse", SHA-256), the form
// ClickHouse signs and verifies since it moved to libssh's sshsig (ssh-keygen -Y sign makes
// the same).

const (
	sshUser      = " SSH KEY AUTHENTICATION "
	sshNamespace = "clickhouse"
)

// LoadSSHKey reads a private key file (OpenSSH or PEM), decrypting it with passphrase when it
// is encrypted. The error names the file, never the passphrase.
func LoadSSHKey(path, passphrase string) (ssh.Signer, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, &AuthError{Method: "ssh_key", Err: err}
	}
	var s ssh.Signer
	if passphrase != "" {
		s, err = ssh.ParsePrivateKeyWithPassphrase(b, []byte(passphrase))
	} else {
		s, err = ssh.ParsePrivateKey(b)
	}
	var missing *ssh.PassphraseMissingError
	if errors.As(err, &missing) {
		return nil, &AuthError{Method: "ssh_key", Err: fmt.Errorf("%s is encrypted: give its passphrase (ssh_key_passphrase)", path)}
	}
	if err != nil {
		return nil, &AuthError{Method: "ssh_key", Err: fmt.Errorf("%s: %w", path, err)}
	}
	return s, nil
}

// sshChallenge runs the challenge after the Hello was written (not yet flushed): the request,
// the server's challenge, the signed answer. The server's Hello follows.
func (c *Conn) sshChallenge(signer ssh.Signer, clientRev nativeproto.Revision, user string) error {
	if !clientRev.Has(nativeproto.RevSSHAuthentication) {
		return &AuthError{Method: "ssh_key", Err: fmt.Errorf("needs protocol revision %d or newer, protocol_revision is %d", nativeproto.RevSSHAuthentication, clientRev)}
	}
	c.pw.WriteSSHChallengeRequest()
	if err := c.pw.Flush(c.nc); err != nil {
		return err
	}
	code, err := c.pr.ReadCode()
	var unknown *nativeproto.UnexpectedPacketError
	if errors.As(err, &unknown) {
		return c.notNative(code)
	}
	if err != nil {
		return err
	}
	switch code {
	case nativeproto.ServerCodeSSHChallenge:
	case nativeproto.ServerCodeException:
		ex, err := c.pr.ReadException()
		if err != nil {
			return err
		}
		return ex
	case nativeproto.ServerCodeHello:
		// A build without SSH support (no USE_SSH: chDB's 26.7) strips the marker and logs the
		// user in by name alone, a user without a password included: refused, for the key was
		// never checked.
		return &AuthError{Method: "ssh_key", Err: errNoSSHSupport}
	default:
		return &ProtocolError{Op: "ssh challenge", Err: &nativeproto.UnexpectedPacketError{Code: code, Want: "SSHChallenge"}}
	}
	challenge, err := c.pr.ReadSSHChallenge()
	if err != nil {
		return &ProtocolError{Op: "ssh challenge", Err: err}
	}
	msg := strconv.FormatUint(uint64(clientRev), 10) + c.cfg.Database + user + challenge
	sig, err := sshSign(signer, []byte(msg))
	if err != nil {
		return &AuthError{Method: "ssh_key", Err: err}
	}
	c.pw.WriteSSHChallengeResponse(sig)
	return c.pw.Flush(c.nc)
}

// sshSign returns the armored SSHSIG signature of msg (PROTOCOL.sshsig of OpenSSH): the
// signer signs a blob holding the namespace and the SHA-256 of msg, and the result carries
// the public key, the namespace and that signature. RSA keys sign with rsa-sha2-512, as
// ssh-keygen does.
func sshSign(signer ssh.Signer, msg []byte) (string, error) {
	sum := sha256.Sum256(msg)
	signed := ssh.Marshal(struct {
		Magic                          [6]byte
		Namespace, Reserved, Hash, Sum string
	}{sshsigMagic, sshNamespace, "", "sha256", string(sum[:])})
	var sig *ssh.Signature
	var err error
	if as, ok := signer.(ssh.AlgorithmSigner); ok && signer.PublicKey().Type() == ssh.KeyAlgoRSA {
		sig, err = as.SignWithAlgorithm(rand.Reader, signed, ssh.KeyAlgoRSASHA512)
	} else {
		sig, err = signer.Sign(rand.Reader, signed)
	}
	if err != nil {
		return "", err
	}
	blob := ssh.Marshal(struct {
		Magic                          [6]byte
		Version                        uint32
		PublicKey                      []byte
		Namespace, Reserved, Hash, Sig string
	}{sshsigMagic, 1, signer.PublicKey().Marshal(), sshNamespace, "", "sha256", string(ssh.Marshal(sig))})
	b64 := base64.StdEncoding.EncodeToString(blob)
	var sb strings.Builder
	sb.WriteString("-----BEGIN SSH SIGNATURE-----\n")
	for len(b64) > 70 {
		sb.WriteString(b64[:70])
		sb.WriteByte('\n')
		b64 = b64[70:]
	}
	sb.WriteString(b64)
	sb.WriteString("\n-----END SSH SIGNATURE-----\n")
	return sb.String(), nil
}

var errNoSSHSupport = errors.New("the server answered the challenge request with its Hello: it has no SSH key authentication (built without it) and did not check the key; the connection is closed")

var sshsigMagic = [6]byte{'S', 'S', 'H', 'S', 'I', 'G'}
