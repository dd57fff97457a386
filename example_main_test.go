package chnative_test

import (
	"flag"
	"fmt"
	"os"
	"testing"

	"github.com/chnative/chnative/internal/testenv"
)

// TestMain lets the examples, which query the test server named by CHNATIVE_DSN, run wherever
// the other server tests run: in CI (where scripts/test.sh always sets it) a missing DSN is
// said here and the examples fail; elsewhere they are skipped with that line, as
// testenv.DSN skips a test.
func TestMain(m *testing.M) {
	flag.Parse()
	if os.Getenv(testenv.EnvDSN) == "" {
		if testenv.CI() {
			fmt.Fprintln(os.Stderr, "examples: "+testenv.MissingDSNMessage+"; the examples need it and fail")
		} else {
			fmt.Fprintln(os.Stderr, "examples skipped: "+testenv.MissingDSNMessage)
			skip := "^Example"
			if s := flag.Lookup("test.skip").Value.String(); s != "" {
				skip = s + "|" + skip
			}
			if err := flag.Set("test.skip", skip); err != nil {
				fmt.Fprintln(os.Stderr, "examples:", err)
				os.Exit(2)
			}
		}
	}
	os.Exit(m.Run())
}
