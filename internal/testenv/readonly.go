package testenv

import (
	"os"
	"testing"
)

// The read-only user of both test servers: user chn_ro, no password, in a profile with the
// default profile's settings and readonly=1 (reads only; a query may change no setting). The
// scripts print its DSNs with `env`, and scripts/test.sh exports both in every pass.
const (
	ROUser          = "chn_ro"
	EnvRODSN        = "CHNATIVE_RO_DSN"        // the 18.16 server (scripts/clickhouse.sh)
	EnvModernRODSN  = "CHNATIVE_MODERN_RO_DSN" // the 26.7 server (scripts/modern.sh)
	missingROFormat = " not set: run scripts/test.sh (or eval \"$(scripts/clickhouse.sh env)\" and \"$(scripts/modern.sh env)\" after their start)"
)

// RODSN returns the 18.16 server's DSN as the read-only user, from CHNATIVE_RO_DSN. If it is
// not set, RODSN calls t.Fatal in CI (see CI) and t.Skip elsewhere, as DSN does.
func RODSN(t testing.TB) string {
	t.Helper()
	return roEnv(t, EnvRODSN)
}

// ModernRODSN returns the 26.7 server's DSN as the read-only user, from
// CHNATIVE_MODERN_RO_DSN. It fails or skips t as RODSN does.
func ModernRODSN(t testing.TB) string {
	t.Helper()
	return roEnv(t, EnvModernRODSN)
}

func roEnv(t testing.TB, env string) string {
	t.Helper()
	v := os.Getenv(env)
	if v == "" {
		missing(t, env+missingROFormat)
	}
	return v
}
