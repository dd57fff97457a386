package testenv

import (
	"os"
	"testing"
)

// Environment variables of the 26.7 server, printed by `scripts/modern.sh env` and exported by
// scripts/test.sh in every pass (whichever server CHNATIVE_DSN names).
const (
	EnvModernDSN     = "CHNATIVE_MODERN_DSN"
	EnvModernAuthDSN = "CHNATIVE_MODERN_AUTH_DSN"
	EnvModernHTTPURL = "CHNATIVE_MODERN_HTTP_URL"
	EnvModernTLSCA   = "CHNATIVE_MODERN_TLS_CA"
	EnvModernTLSCert = "CHNATIVE_MODERN_TLS_CERT"
	EnvModernTLSKey  = "CHNATIVE_MODERN_TLS_KEY"
)

// missingModern is the message given when a CHNATIVE_MODERN_* variable is not set.
func missingModern(env string) string {
	return env + " not set: run scripts/test.sh (or eval \"$(scripts/modern.sh env)\" after scripts/modern.sh start)"
}

// modernEnv returns the variable env, or fails (in CI) or skips t when it is not set.
func modernEnv(t testing.TB, env string) string {
	t.Helper()
	v := os.Getenv(env)
	if v == "" {
		missing(t, missingModern(env))
	}
	return v
}

// ModernDSN returns the DSN of the ClickHouse 26.7 test server (scripts/modern.sh), user
// default without a password, from CHNATIVE_MODERN_DSN. If it is not set, ModernDSN calls
// t.Fatal in CI (see CI) and t.Skip elsewhere, as DSN does.
//
// Most tests use DSN, which scripts/test.sh points at each server in turn; ModernDSN is for a
// test that needs the 26.7 server whichever server DSN names.
func ModernDSN(t testing.TB) string {
	t.Helper()
	return modernEnv(t, EnvModernDSN)
}

// ModernAuthDSN returns the 26.7 server's DSN as user "chnative" with password "chn_secret",
// from CHNATIVE_MODERN_AUTH_DSN. It fails or skips t as ModernDSN does.
func ModernAuthDSN(t testing.TB) string {
	t.Helper()
	return modernEnv(t, EnvModernAuthDSN)
}

// ModernHTTPURL returns the base URL of the 26.7 server's HTTP interface
// (http://127.0.0.1:PORT/), from CHNATIVE_MODERN_HTTP_URL. It fails or skips t as ModernDSN does.
func ModernHTTPURL(t testing.TB) string {
	t.Helper()
	return modernEnv(t, EnvModernHTTPURL)
}
