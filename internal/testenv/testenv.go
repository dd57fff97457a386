package testenv

import (
	"net/url"
	"os"
	"testing"
)

// Environment variables read by this package.
const (
	EnvDSN     = "CHNATIVE_DSN"
	EnvAuthDSN = "CHNATIVE_AUTH_DSN"
	EnvChDBLib = "CHNATIVE_CHDB_LIB"
)

// Credentials of the password-protected user that scripts/clickhouse.sh creates.
const (
	AuthUser     = "chnative"
	AuthPassword = "chn_secret"
)

// MissingDSNMessage is the message given when CHNATIVE_DSN is not set.
const MissingDSNMessage = EnvDSN + " not set: run scripts/test.sh (or see scripts/clickhouse.sh)"

// CI reports whether the tests run in CI, that is CI is "true" or "1".
// There a missing server is a failure rather than a reason to skip.
func CI() bool {
	switch os.Getenv("CI") {
	case "true", "TRUE", "True", "1":
		return true
	}
	return false
}

// DSN returns the DSN of the test server from CHNATIVE_DSN. If it is not
// set, DSN calls t.Fatal in CI (see CI) and t.Skip elsewhere.
func DSN(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv(EnvDSN)
	if dsn == "" {
		missing(t, MissingDSNMessage)
		return ""
	}
	return dsn
}

// Require fails or skips t, as DSN does, when there is no test server.
func Require(t testing.TB) {
	t.Helper()
	DSN(t)
}

// AuthDSN returns a DSN for the same server as DSN but as user "chnative"
// with password "chn_secret": CHNATIVE_AUTH_DSN if set, else DSN with its
// user info replaced. It fails or skips t as DSN does.
func AuthDSN(t testing.TB) string {
	t.Helper()
	if dsn := os.Getenv(EnvAuthDSN); dsn != "" {
		return dsn
	}
	dsn := DSN(t)
	if dsn == "" {
		return ""
	}
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatalf("testenv: cannot parse %s=%q: %v", EnvDSN, dsn, err)
		return ""
	}
	u.User = url.UserPassword(AuthUser, AuthPassword)
	return u.String()
}

// ChDBLib returns the path of the chDB shared library from
// CHNATIVE_CHDB_LIB. If it is not set, ChDBLib calls t.Fatal in CI (see CI;
// scripts/test.sh fetches chDB and sets it) and t.Skip elsewhere.
func ChDBLib(t testing.TB) string {
	t.Helper()
	p := os.Getenv(EnvChDBLib)
	if p == "" {
		missing(t, EnvChDBLib+" not set: chDB tests need scripts/chdb.sh (run via scripts/test.sh)")
		return ""
	}
	return p
}

func missing(t testing.TB, msg string) {
	t.Helper()
	if CI() {
		t.Fatal(msg)
		return
	}
	t.Skip(msg)
}
