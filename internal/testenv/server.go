package testenv

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// Which test server a DSN names, for the tests whose expectations differ between the two.
//
// Design note: the kind comes from the server itself (its Hello), not from comparing
// environment variables, so a test keyed on it cannot be misled by a CHNATIVE_DSN that was set
// by hand. This package cannot use the driver's own handshake: the packages it would import
// (root, nativeproto) import testenv in their tests. The probe below is the smallest handshake
// there is: a client Hello at revision 54412 (18.16's, which every server accepts, and below
// every revision that adds a handshake step), the server's Hello read up to its revision, and
// the connection closed. No query runs.

// Kind is one of the two test servers.
type Kind int

const (
	// UnknownServer is a server that is neither test server.
	UnknownServer Kind = iota
	// Legacy is ClickHouse 18.16 (protocol revision 54412), Debian's clickhouse-server started
	// by scripts/clickhouse.sh: it has a TLS port, system.query_log and CREATE USER, and it
	// reports an exception raised while executing a SELECT before the result's header block.
	Legacy
	// Modern is ClickHouse 26.7 (protocol revision 54488), chDB's engine run as clickhouse-local
	// by scripts/modern.sh: no TLS listener (see SecureAddr), no system.query_log, CREATE USER
	// refused, an Overlay default database, and the result's header block sent before an
	// exception raised while executing.
	Modern
)

// String returns the server's version, "18.16" or "26.7".
func (k Kind) String() string {
	switch k {
	case Legacy:
		return "18.16"
	case Modern:
		return "26.7"
	}
	return "unknown"
}

// Hello is what a server says of itself in its Hello packet.
type Hello struct {
	Name         string // "ClickHouse" or "ClickHouse server"
	Major, Minor uint64
	Revision     uint64 // the server's protocol revision (DBMS_TCP_PROTOCOL_VERSION)
}

// Kind classifies the server by its version: 18.16 is Legacy, 26.7 is Modern, anything else
// is UnknownServer.
func (h Hello) Kind() Kind {
	switch {
	case h.Major == 18 && h.Minor == 16:
		return Legacy
	case h.Major == 26 && h.Minor == 7:
		return Modern
	}
	return UnknownServer
}

// String is "ClickHouse 26.7 (revision 54488)".
func (h Hello) String() string {
	return fmt.Sprintf("%s %d.%d (revision %d)", h.Name, h.Major, h.Minor, h.Revision)
}

// Server returns which test server CHNATIVE_DSN names. It fails or skips t as DSN does when
// CHNATIVE_DSN is not set, and fails t when the server does not answer or is neither test
// server (a test keyed on the kind must not guess).
func Server(t testing.TB) Kind {
	t.Helper()
	h, ok := serverHello(t, EnvDSN, DSN(t))
	if !ok {
		return UnknownServer
	}
	k := h.Kind()
	if k == UnknownServer {
		t.Fatalf("testenv: %s names %s, which is neither test server (18.16 from scripts/clickhouse.sh, 26.7 from scripts/modern.sh)",
			EnvDSN, h)
	}
	return k
}

// ServerHello returns the Hello of the server CHNATIVE_DSN names, for a test's log or for a
// check keyed on the revision. It fails or skips t as Server does.
func ServerHello(t testing.TB) Hello {
	t.Helper()
	h, _ := serverHello(t, EnvDSN, DSN(t))
	return h
}

// hellos caches a Hello by DSN: the servers do not change during a test binary's run, and every
// keyed test would otherwise open a connection more.
var hellos sync.Map // DSN string -> Hello

func serverHello(t testing.TB, env, dsn string) (Hello, bool) {
	t.Helper()
	if dsn == "" {
		return Hello{}, false
	}
	if h, ok := hellos.Load(dsn); ok {
		return h.(Hello), true
	}
	h, err := ProbeHello(dsn, 5*time.Second)
	if err != nil {
		t.Fatalf("testenv: the server of %s=%q: %v", env, dsn, err)
		return Hello{}, false
	}
	hellos.Store(dsn, h)
	return h, true
}

// ProbeHello connects to the first address of dsn (clickhouse://user:password@host:port/db),
// sends a client Hello with its credentials and returns the server's Hello. The whole exchange
// is bounded by timeout. A server that answers with an exception (wrong password) gives an error
// with its message.
func ProbeHello(dsn string, timeout time.Duration) (Hello, error) {
	u, err := url.Parse(dsn)
	if err != nil {
		return Hello{}, err
	}
	host, _, _ := strings.Cut(u.Host, ",")
	if host == "" {
		return Hello{}, fmt.Errorf("no host in %q", dsn)
	}
	user := u.User.Username()
	if user == "" {
		user = "default"
	}
	password, _ := u.User.Password()
	c, err := net.DialTimeout("tcp", host, timeout)
	if err != nil {
		return Hello{}, err
	}
	defer c.Close()
	if err := c.SetDeadline(time.Now().Add(timeout)); err != nil {
		return Hello{}, err
	}
	return HelloOver(c, strings.TrimPrefix(u.Path, "/"), user, password)
}

// probeRevision is the revision the probe's Hello gives: 18.16's, the newest one whose handshake
// is only the two Hello packets.
const probeRevision = 54412

// maxHelloString caps every string read from the server's Hello (the server's own cap for them,
// DBMS_MAX_HELLO_STRING_SIZE, is 4096; an exception message may be longer).
const maxHelloString = 1 << 16

// HelloOver runs the Hello exchange over an open connection c (plain or TLS) and returns the
// server's Hello; it does not close c.
func HelloOver(c io.ReadWriter, db, user, password string) (Hello, error) {
	var b []byte
	b = binary.AppendUvarint(b, 0) // Hello
	b = appendString(b, "chnative-testenv")
	b = binary.AppendUvarint(b, 1)
	b = binary.AppendUvarint(b, 0)
	b = binary.AppendUvarint(b, probeRevision)
	b = appendString(b, db)
	b = appendString(b, user)
	b = appendString(b, password)
	if _, err := c.Write(b); err != nil {
		return Hello{}, fmt.Errorf("sending Hello: %w", err)
	}
	r := bufio.NewReader(c)
	code, err := binary.ReadUvarint(r)
	if err != nil {
		return Hello{}, fmt.Errorf("reading the server's answer to Hello: %w", err)
	}
	switch code {
	case 0: // Hello
	case 2: // Exception
		return Hello{}, readException(r)
	default:
		return Hello{}, fmt.Errorf("the server answered Hello with packet %d", code)
	}
	var h Hello
	if h.Name, err = readString(r); err != nil {
		return Hello{}, fmt.Errorf("server Hello name: %w", err)
	}
	for _, p := range []*uint64{&h.Major, &h.Minor, &h.Revision} {
		if *p, err = binary.ReadUvarint(r); err != nil {
			return Hello{}, fmt.Errorf("server Hello version: %w", err)
		}
	}
	return h, nil
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// readString reads a length-prefixed string of at most maxHelloString bytes.
func readString(r *bufio.Reader) (string, error) {
	n, err := binary.ReadUvarint(r)
	if err != nil {
		return "", err
	}
	if n > maxHelloString {
		return "", fmt.Errorf("string of %d bytes, more than the %d allowed", n, maxHelloString)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		return "", err
	}
	return string(b), nil
}

// readException reads an Exception packet's first record (code, name, message) as an error.
func readException(r *bufio.Reader) error {
	var code [4]byte
	if _, err := io.ReadFull(r, code[:]); err != nil {
		return fmt.Errorf("reading the server's exception: %w", err)
	}
	name, err := readString(r)
	if err != nil {
		return fmt.Errorf("reading the server's exception: %w", err)
	}
	msg, err := readString(r)
	if err != nil {
		return fmt.Errorf("reading the server's exception: %w", err)
	}
	return fmt.Errorf("server exception %d (%s): %s", int32(binary.LittleEndian.Uint32(code[:])), name, msg)
}
