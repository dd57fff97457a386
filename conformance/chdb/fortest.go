package chdb

import (
	"os"
	"sync"
	"testing"
)

var (
	sharedOnce sync.Once
	shared     *Engine
	sharedErr  error
)

// ForTest returns the process-wide shared Engine, opening it on first use
// from $CHNATIVE_CHDB_LIB. When the variable is unset the test is skipped,
// or fails when $CI is "true" (CI must provide the oracle). A failure to
// open the library is always fatal.
//
// The shared engine is never closed by ForTest (chDB runs one engine per
// process); tests must not Close it. Use unique database/table names, or
// stateless queries, since all tests of the process see the same engine.
// A TestMain may call CloseShared after m.Run to remove the data directory.
func ForTest(t testing.TB) *Engine {
	t.Helper()
	lib := os.Getenv(EnvLib)
	if lib == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("chdb: %s is not set (run scripts/chdb.sh); required in CI", EnvLib)
		}
		t.Skipf("chdb: %s is not set; run: export %s=\"$(scripts/chdb.sh | tail -n1)\"", EnvLib, EnvLib)
	}
	sharedOnce.Do(func() { shared, sharedErr = Open(lib) })
	if sharedErr != nil {
		t.Fatalf("chdb: %v", sharedErr)
	}
	return shared
}

// CloseShared closes the engine opened by ForTest, if any.
func CloseShared() error {
	if shared == nil {
		return nil
	}
	return shared.Close()
}
