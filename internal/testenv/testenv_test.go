package testenv

import (
	"fmt"
	"net"
	"net/url"
	"strings"
	"testing"
	"time"
)

// fakeTB records Fatal and Skip instead of stopping the goroutine. Only the
// methods that this package calls are implemented; any other call panics on
// the nil embedded interface.
type fakeTB struct {
	testing.TB
	fatal, skipped bool
	msg            string
}

func (f *fakeTB) Helper() {}

func (f *fakeTB) Fatal(args ...any) { f.fatal = true; f.msg = fmt.Sprint(args...) }

func (f *fakeTB) Fatalf(format string, args ...any) {
	f.fatal = true
	f.msg = fmt.Sprintf(format, args...)
}

func (f *fakeTB) Skip(args ...any) { f.skipped = true; f.msg = fmt.Sprint(args...) }

func TestDSNMissing(t *testing.T) {
	for _, tc := range []struct {
		ci        string
		wantFatal bool
	}{
		{"", false},
		{"false", false},
		{"true", true},
		{"1", true},
	} {
		t.Run("CI="+tc.ci, func(t *testing.T) {
			t.Setenv("CI", tc.ci)
			t.Setenv(EnvDSN, "")
			f := &fakeTB{}
			if got := DSN(f); got != "" {
				t.Errorf("DSN = %q, want empty", got)
			}
			if f.fatal != tc.wantFatal || f.skipped == tc.wantFatal {
				t.Errorf("fatal=%v skipped=%v, want fatal=%v skipped=%v", f.fatal, f.skipped, tc.wantFatal, !tc.wantFatal)
			}
			if !strings.Contains(f.msg, "CHNATIVE_DSN not set: run scripts/test.sh") {
				t.Errorf("message %q does not say how to fix it", f.msg)
			}
		})
	}
}

func TestDSNSet(t *testing.T) {
	t.Setenv("CI", "true")
	const want = "clickhouse://default@127.0.0.1:9000/default"
	t.Setenv(EnvDSN, want)
	f := &fakeTB{}
	if got := DSN(f); got != want {
		t.Errorf("DSN = %q, want %q", got, want)
	}
	if f.fatal || f.skipped {
		t.Errorf("fatal=%v skipped=%v (%s), want neither", f.fatal, f.skipped, f.msg)
	}
}

func TestAuthDSN(t *testing.T) {
	t.Setenv("CI", "")
	t.Setenv(EnvAuthDSN, "")
	t.Setenv(EnvDSN, "clickhouse://default@127.0.0.1:9000/default")
	f := &fakeTB{}
	want := "clickhouse://chnative:chn_secret@127.0.0.1:9000/default"
	if got := AuthDSN(f); got != want || f.fatal || f.skipped {
		t.Errorf("AuthDSN = %q (fatal=%v skipped=%v), want %q", got, f.fatal, f.skipped, want)
	}

	t.Setenv(EnvAuthDSN, "clickhouse://x:y@h:1/db")
	if got := AuthDSN(f); got != "clickhouse://x:y@h:1/db" {
		t.Errorf("AuthDSN = %q, want the value of %s", got, EnvAuthDSN)
	}

	t.Setenv(EnvAuthDSN, "")
	t.Setenv(EnvDSN, "")
	f = &fakeTB{}
	if got := AuthDSN(f); got != "" || !f.skipped {
		t.Errorf("AuthDSN without server = %q (skipped=%v), want a skip", got, f.skipped)
	}
}

func TestChDBLibWhenUnset(t *testing.T) {
	t.Setenv(EnvChDBLib, "")
	t.Setenv("CI", "true")
	f := &fakeTB{}
	if got := ChDBLib(f); got != "" || !f.fatal {
		t.Errorf("in CI: ChDBLib = %q fatal=%v skipped=%v, want a failure", got, f.fatal, f.skipped)
	}
	t.Setenv("CI", "")
	f = &fakeTB{}
	if got := ChDBLib(f); got != "" || !f.skipped || f.fatal {
		t.Errorf("outside CI: ChDBLib = %q fatal=%v skipped=%v, want a skip", got, f.fatal, f.skipped)
	}
}

// TestServer checks the environment that scripts/test.sh sets up: the DSN
// names a server whose native port accepts TCP connections. It skips without
// a server outside CI, and fails without one in CI.
func TestServer(t *testing.T) {
	dsn := DSN(t)
	u, err := url.Parse(dsn)
	if err != nil || u.Scheme != "clickhouse" || u.Port() == "" {
		t.Fatalf("%s = %q, want clickhouse://user@host:port/db (parse error: %v)", EnvDSN, dsn, err)
	}
	c, err := net.DialTimeout("tcp", u.Host, 5*time.Second)
	if err != nil {
		t.Fatalf("test server %s not reachable: %v", u.Host, err)
	}
	c.Close()
}
