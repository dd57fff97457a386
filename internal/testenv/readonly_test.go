package testenv

import (
	"strings"
	"testing"
)

func TestROEnv(t *testing.T) {
	for _, fn := range []struct {
		env string
		get func(testing.TB) string
	}{{EnvRODSN, RODSN}, {EnvModernRODSN, ModernRODSN}} {
		for _, tc := range []struct {
			ci        string
			wantFatal bool
		}{{"", false}, {"true", true}} {
			t.Run(fn.env+"/CI="+tc.ci, func(t *testing.T) {
				t.Setenv("CI", tc.ci)
				t.Setenv(fn.env, "")
				f := &fakeTB{}
				if got := fn.get(f); got != "" {
					t.Errorf("got %q, want empty", got)
				}
				if f.fatal != tc.wantFatal || f.skipped == tc.wantFatal {
					t.Errorf("fatal=%v skipped=%v, want fatal=%v", f.fatal, f.skipped, tc.wantFatal)
				}
				if !strings.Contains(f.msg, fn.env+" not set") || !strings.Contains(f.msg, "scripts/test.sh") {
					t.Errorf("message %q does not say what is missing and how to fix it", f.msg)
				}
			})
		}
		t.Run(fn.env+"/set", func(t *testing.T) {
			t.Setenv(fn.env, "clickhouse://"+ROUser+"@h:1/default")
			f := &fakeTB{}
			if got := fn.get(f); !strings.Contains(got, ROUser) || f.fatal || f.skipped {
				t.Errorf("got %q (fatal=%v skipped=%v)", got, f.fatal, f.skipped)
			}
		})
	}
}
