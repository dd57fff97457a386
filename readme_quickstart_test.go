package chnative

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/chnative/chnative/internal/testenv"
)

// TestREADMEQuickStart builds the program of the README's Quick start against this checkout
// and runs it against the test server (its DSN put in place of the README's), and checks that
// the Go version the README names is the go line of go.mod.
func TestREADMEQuickStart(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	goLine := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindSubmatch(gomod)
	if goLine == nil {
		t.Fatal("no go line in go.mod")
	}
	qs := string(readme)
	start := strings.Index(qs, "## Quick start")
	end := strings.Index(qs[start+1:], "\n## ")
	if start < 0 || end < 0 {
		t.Fatal("no Quick start section in README.md")
	}
	qs = qs[start : start+1+end]
	if !strings.Contains(qs, "go get github.com/chnative/chnative") || !strings.Contains(qs, "Go "+string(goLine[1])+" or newer") {
		t.Fatalf("the Quick start does not say go get and Go %s or newer:\n%s", goLine[1], qs)
	}
	if !strings.Contains(qs, "allow_experimental_low_cardinality_type=1") {
		t.Fatal("the Quick start lacks the LowCardinality note for 18.16")
	}
	m := regexp.MustCompile("(?s)```go\n(.*?)```").FindStringSubmatch(qs)
	if m == nil {
		t.Fatal("no Go program in the Quick start")
	}
	const readmeDSN = `"clickhouse://default@127.0.0.1:9000/default"`
	if !strings.Contains(m[1], readmeDSN) {
		t.Fatalf("the program does not open %s", readmeDSN)
	}
	prog := strings.Replace(m[1], readmeDSN, `os.Getenv("CHNATIVE_DSN")`, 1)
	prog = strings.Replace(prog, "import (\n", "import (\n\t\"os\"\n", 1)
	root, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sum, err := os.ReadFile("go.sum")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"main.go": prog,
		"go.mod":  "module quickstart\n\ngo " + string(goLine[1]) + "\n\nrequire github.com/chnative/chnative v0.0.0\n\nreplace github.com/chnative/chnative => " + root + "\n",
		"go.sum":  string(sum),
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := append(os.Environ(), "CHNATIVE_DSN="+testenv.DSN(t), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "run", ".")
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go run of the Quick start program: %v\n%s\n%s", err, out, prog)
	}
	if !regexp.MustCompile(`^ClickHouse (18\.16|26\.7)\.\d+(\.\d+)? with \d+ tables\n$`).Match(out) {
		t.Fatalf("the program printed %q", out)
	}
}

// TestREADMELowCardinalityNote checks the Quick start's note on both servers: 18.16 refuses a
// LowCardinality table unless allow_experimental_low_cardinality_type=1 (the test server's
// profile sets it, so the DSN turns it off to show the refusal, then on); 26.7 creates one
// without the setting and refuses the setting itself as unknown, at Ping.
func TestREADMELowCardinalityNote(t *testing.T) {
	create := func(param string) error {
		db := openDB(t, param)
		name := tableName("readme_lc")
		_, err := db.Exec("CREATE TABLE " + name + " (s LowCardinality(String)) ENGINE = Memory")
		if err == nil {
			_, _ = db.Exec("DROP TABLE " + name)
		}
		return err
	}
	switch testenv.Server(t) {
	case testenv.Legacy:
		err := create("allow_experimental_low_cardinality_type=0")
		if err == nil || !strings.Contains(err.Error(), "allow_experimental_low_cardinality_type") {
			t.Fatalf("18.16 without the setting: %v, want the refusal naming it", err)
		}
		if err := create("allow_experimental_low_cardinality_type=1"); err != nil {
			t.Fatalf("18.16 with the setting in the DSN: %v", err)
		}
	default:
		if err := create("compress=none"); err != nil {
			t.Fatalf("26.7 without the setting: %v", err)
		}
		db := openDB(t, "allow_experimental_low_cardinality_type=1")
		if err := db.Ping(); err == nil || !strings.Contains(err.Error(), "allow_experimental_low_cardinality_type") {
			t.Fatalf("26.7 Ping with the setting in the DSN: %v, want an error naming it", err)
		}
	}
}
