package chconn

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestRowLoopInlines checks that the compiler still inlines the per-row checks of an insert
// (startRow, endRow) into the row loops that call them (Insert.Append, the root's prepared
// statements): out of line they cost BenchmarkInsertAppendBoxedRow a visible share of its time.
func TestRowLoopInlines(t *testing.T) {
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	out, err := exec.Command(goTool, "build", "-gcflags=-m", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build -gcflags=-m: %v\n%s", err, out)
	}
	for _, fn := range []string{"(*Insert).startRow", "(*Insert).endRow"} {
		if !strings.Contains(string(out), "inlining call to "+fn+"\n") {
			t.Errorf("Insert.Append no longer inlines %s (go build -gcflags=-m)", fn)
		}
	}
}
