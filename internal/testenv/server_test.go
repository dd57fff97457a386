package testenv

import (
	"bufio"
	"encoding/binary"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// clientHello is what the fake server read of a client Hello.
type clientHello struct {
	name                   string
	major, minor, revision uint64
	db, user, password     string
}

// fakeServer answers every connection's Hello with reply and closes the connection (or, when
// hold is set, keeps it open until the client closes it), and records the client Hellos it read.
type fakeServer struct {
	ln    net.Listener
	reply []byte
	hold  bool
	mu    sync.Mutex
	seen  []clientHello
}

func newFakeServer(t *testing.T, reply []byte) *fakeServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &fakeServer{ln: ln, reply: reply}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				_ = c.SetDeadline(time.Now().Add(10 * time.Second))
				h, err := readClientHello(bufio.NewReader(c))
				if err != nil {
					return
				}
				s.mu.Lock()
				s.seen = append(s.seen, h)
				s.mu.Unlock()
				_, _ = c.Write(s.reply)
				if s.hold {
					_, _ = io.Copy(io.Discard, c) // until the client closes
				}
			}()
		}
	}()
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	return s
}

func (s *fakeServer) dsn(userinfo string) string {
	return "clickhouse://" + userinfo + "@" + s.ln.Addr().String() + "/somedb"
}

func (s *fakeServer) hellos() []clientHello {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]clientHello(nil), s.seen...)
}

func readClientHello(r *bufio.Reader) (clientHello, error) {
	var h clientHello
	code, err := binary.ReadUvarint(r)
	if err != nil || code != 0 {
		return h, io.ErrUnexpectedEOF
	}
	if h.name, err = readString(r); err != nil {
		return h, err
	}
	for _, p := range []*uint64{&h.major, &h.minor, &h.revision} {
		if *p, err = binary.ReadUvarint(r); err != nil {
			return h, err
		}
	}
	for _, p := range []*string{&h.db, &h.user, &h.password} {
		if *p, err = readString(r); err != nil {
			return h, err
		}
	}
	return h, nil
}

// serverHelloBytes is a server Hello as a server answers a client at revision 54412.
func serverHelloBytes(name string, major, minor, rev uint64) []byte {
	b := binary.AppendUvarint(nil, 0)
	b = appendString(b, name)
	b = binary.AppendUvarint(b, major)
	b = binary.AppendUvarint(b, minor)
	b = binary.AppendUvarint(b, rev)
	b = appendString(b, "UTC")     // timezone
	b = appendString(b, "fake")    // display name
	b = binary.AppendUvarint(b, 1) // patch
	return b
}

func exceptionBytes(code int32, name, msg string) []byte {
	b := binary.AppendUvarint(nil, 2)
	b = binary.LittleEndian.AppendUint32(b, uint32(code))
	b = appendString(b, name)
	b = appendString(b, msg)
	b = appendString(b, "")
	return append(b, 0)
}

func TestProbeHello(t *testing.T) {
	for _, tc := range []struct {
		name     string
		reply    []byte
		want     Hello
		kind     Kind
		errWants string
	}{
		{"18.16", serverHelloBytes("ClickHouse server", 18, 16, 54412), Hello{"ClickHouse server", 18, 16, 54412}, Legacy, ""},
		{"26.7", serverHelloBytes("ClickHouse", 26, 7, 54488), Hello{"ClickHouse", 26, 7, 54488}, Modern, ""},
		{"other", serverHelloBytes("ClickHouse", 24, 8, 54472), Hello{"ClickHouse", 24, 8, 54472}, UnknownServer, ""},
		{"exception", exceptionBytes(516, "DB::Exception", "chnative: Authentication failed"), Hello{}, 0,
			"server exception 516 (DB::Exception): chnative: Authentication failed"},
		{"otherPacket", []byte{4}, Hello{}, 0, "answered Hello with packet 4"},
		{"closed", nil, Hello{}, 0, "reading the server's answer to Hello"},
		{"truncated", serverHelloBytes("ClickHouse", 26, 7, 54488)[:8], Hello{}, 0, "server Hello"},
		// A length the cap refuses, before allocating it.
		{"hugeName", append([]byte{0}, binary.AppendUvarint(nil, 1<<40)...), Hello{}, 0, "more than the 65536 allowed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newFakeServer(t, tc.reply)
			h, err := ProbeHello(s.dsn("alice:s3cret"), 5*time.Second)
			if tc.errWants != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errWants) {
					t.Fatalf("ProbeHello = %+v, %v; want an error with %q", h, err, tc.errWants)
				}
				return
			}
			if err != nil || h != tc.want || h.Kind() != tc.kind {
				t.Fatalf("ProbeHello = %+v (%v), %v; want %+v (%v)", h, h.Kind(), err, tc.want, tc.kind)
			}
			seen := s.hellos()
			want := clientHello{"chnative-testenv", 1, 0, probeRevision, "somedb", "alice", "s3cret"}
			if len(seen) != 1 || seen[0] != want {
				t.Fatalf("the server read %+v, want one Hello %+v", seen, want)
			}
		})
	}
}

func TestProbeHelloDefaultUser(t *testing.T) {
	s := newFakeServer(t, serverHelloBytes("ClickHouse", 26, 7, 54488))
	if _, err := ProbeHello("clickhouse://"+s.ln.Addr().String(), 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if seen := s.hellos(); len(seen) != 1 || seen[0].user != "default" || seen[0].password != "" || seen[0].db != "" {
		t.Fatalf("the server read %+v, want user default, no password, no database", seen)
	}
	if _, err := ProbeHello("clickhouse:///db", time.Second); err == nil {
		t.Fatal("ProbeHello of a DSN without a host succeeded")
	}
}

func TestServerKind(t *testing.T) {
	t.Setenv("CI", "")
	for _, tc := range []struct {
		major, minor uint64
		want         Kind
		name         string
	}{
		{18, 16, Legacy, "18.16"},
		{26, 7, Modern, "26.7"},
	} {
		s := newFakeServer(t, serverHelloBytes("ClickHouse", tc.major, tc.minor, 54412))
		t.Setenv(EnvDSN, s.dsn("default"))
		f := &fakeTB{}
		if got := Server(f); got != tc.want || f.fatal || f.skipped || got.String() != tc.name {
			t.Errorf("Server = %v (fatal=%v skipped=%v %s), want %v", got, f.fatal, f.skipped, f.msg, tc.want)
		}
		// Cached: a second call does not connect again.
		if got := Server(f); got != tc.want || len(s.hellos()) != 1 {
			t.Errorf("second Server = %v after %d connections, want %v from the cache", got, len(s.hellos()), tc.want)
		}
		if h := ServerHello(f); h.Major != tc.major || h.Minor != tc.minor {
			t.Errorf("ServerHello = %+v", h)
		}
	}

	// A server that is neither: a failure naming it, never a guess.
	s := newFakeServer(t, serverHelloBytes("ClickHouse", 24, 8, 54472))
	t.Setenv(EnvDSN, s.dsn("default"))
	f := &fakeTB{}
	if got := Server(f); got != UnknownServer || !f.fatal || !strings.Contains(f.msg, "ClickHouse 24.8 (revision 54472)") ||
		!strings.Contains(f.msg, "neither test server") {
		t.Errorf("Server of 24.8 = %v (fatal=%v %q), want a failure naming the server", got, f.fatal, f.msg)
	}

	// A server that does not answer: a failure (CHNATIVE_DSN is set, so this is not a skip).
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	t.Setenv(EnvDSN, "clickhouse://default@"+addr+"/default")
	f = &fakeTB{}
	if got := Server(f); got != UnknownServer || !f.fatal || f.skipped || !strings.Contains(f.msg, addr) {
		t.Errorf("Server of a closed port = %v (fatal=%v skipped=%v %q), want a failure", got, f.fatal, f.skipped, f.msg)
	}

	// No server: as DSN does.
	t.Setenv(EnvDSN, "")
	f = &fakeTB{}
	if got := Server(f); got != UnknownServer || !f.skipped {
		t.Errorf("Server without CHNATIVE_DSN = %v (skipped=%v), want a skip", got, f.skipped)
	}
}

func TestKindString(t *testing.T) {
	if UnknownServer.String() != "unknown" || Legacy.String() != "18.16" || Modern.String() != "26.7" {
		t.Fatal(UnknownServer, Legacy, Modern)
	}
	if s := (Hello{"ClickHouse", 26, 7, 54488}).String(); s != "ClickHouse 26.7 (revision 54488)" {
		t.Fatal(s)
	}
}

// TestServerIsTestServer checks the real environment: CHNATIVE_DSN names one of the two test
// servers, and CHNATIVE_MODERN_DSN (exported by scripts/test.sh in every pass) names 26.7.
func TestServerIsTestServer(t *testing.T) {
	kind := Server(t)
	t.Logf("%s names %s", EnvDSN, ServerHello(t))
	if kind != Legacy && kind != Modern {
		t.Fatalf("Server = %v", kind)
	}
	h, err := ProbeHello(ModernDSN(t), 5*time.Second)
	if err != nil {
		t.Fatalf("%s: %v", EnvModernDSN, err)
	}
	if h.Kind() != Modern || h.Revision < 54488 {
		t.Fatalf("%s names %s, want ClickHouse 26.7 at revision 54488 or later", EnvModernDSN, h)
	}
	// Its HTTP interface is the same server.
	cl := &http.Client{Timeout: 10 * time.Second}
	resp, err := cl.Get(ModernHTTPURL(t) + "?query=" + url.QueryEscape("SELECT version()"))
	if err != nil {
		t.Fatalf("%s: %v", EnvModernHTTPURL, err)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<10))
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK || !strings.HasPrefix(string(body), "26.7.") {
		t.Fatalf("%s: SELECT version() = %d %q, %v; want 26.7.*", EnvModernHTTPURL, resp.StatusCode, body, err)
	}
	// The password-protected user exists on the 26.7 server too.
	if _, err := ProbeHello(ModernAuthDSN(t), 5*time.Second); err != nil {
		t.Fatalf("%s: %v", EnvModernAuthDSN, err)
	}
	if _, err := ProbeHello(AuthDSN(t), 5*time.Second); err != nil {
		t.Fatalf("%s: %v", EnvAuthDSN, err)
	}
}
