package ecosystem

import (
	"database/sql"
	"errors"
	"net/url"
	"os"
	osexec "os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/chnative/chnative"
	chdsn "github.com/chnative/chnative/dsn"
)

// Every DSN key clickhouse-go's ParseDSN knows, read from its source (the version this module
// requires), is a driver key in chnative too (never a setting sent to the server), or refused
// with an error naming it; and docs/clickhouse-go.md lists every such key and the README's
// migration section every context option of clickhouse-go. A clickhouse-go upgrade that adds a key or an option fails
// these tests until chnative decides what to do with it.

// clickhouseGoSource returns a source file of the clickhouse-go module this module requires.
func clickhouseGoSource(t *testing.T, file string) string {
	t.Helper()
	out, err := osexec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/ClickHouse/clickhouse-go/v2").Output()
	if err != nil {
		t.Fatalf("go list -m github.com/ClickHouse/clickhouse-go/v2: %v", err)
	}
	b, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), file))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// clickhouseGoDSNKeys returns the keys of the params switch of clickhouse-go's fromDSN.
func clickhouseGoDSNKeys(t *testing.T) []string {
	t.Helper()
	src := clickhouseGoSource(t, "clickhouse_options.go")
	i := strings.Index(src, "func (o *Options) fromDSN(")
	if i < 0 {
		t.Fatal("clickhouse_options.go has no fromDSN")
	}
	body := src[i:]
	start := strings.Index(body, "switch v {")
	end := strings.Index(body, "\n\t\tdefault:")
	if start < 0 || end < start {
		t.Fatal("fromDSN's layout changed: no switch v { ... default:")
	}
	var keys []string
	for _, m := range regexp.MustCompile(`\n\t\tcase "([a-z_]+)":`).FindAllStringSubmatch(body[start:end], -1) {
		keys = append(keys, m[1])
	}
	if len(keys) < 20 {
		t.Fatalf("found only %d keys in fromDSN: %v", len(keys), keys)
	}
	return keys
}

// clickhouseGoKeySamples are values clickhouse-go accepts for each of its keys.
var clickhouseGoKeySamples = map[string]string{
	"hosts": "127.0.0.1:9001", "alt_hosts": "127.0.0.1:9002", "debug": "true", "compress": "lz4",
	"compress_level": "3", "max_compression_buffer": "1048576", "dial_timeout": "5s",
	"block_buffer_size": "4", "read_timeout": "30s", "secure": "true", "skip_verify": "true",
	"tls_server_name": "ch.example", "connection_open_strategy": "round_robin", "max_open_conns": "5",
	"max_idle_conns": "2", "conn_max_lifetime": "1h", "username": "u", "password": "p", "database": "d",
	"client_info_product": "app/1.0", "http_proxy": "http://proxy:3128", "http_path": "/ch",
}

// refusedKeys are clickhouse-go keys chnative refuses at Parse; sqlOpenRefused at sql.Open only
// (OpenDSN applies them).
var (
	refusedKeys    = map[string]bool{"http_proxy": true, "http_path": true}
	sqlOpenRefused = map[string]bool{"max_open_conns": true, "max_idle_conns": true}
)

func TestClickHouseGoDSNKeysAreDriverKeys(t *testing.T) {
	for _, key := range clickhouseGoDSNKeys(t) {
		sample, ok := clickhouseGoKeySamples[key]
		if !ok {
			t.Errorf("clickhouse-go has a DSN key %q chnative has not decided on: honour it with its meaning or refuse it (dsn/parse.go), and add it to docs/clickhouse-go.md's table", key)
			continue
		}
		d := "clickhouse://127.0.0.1:9000?" + key + "=" + url.QueryEscape(sample)
		if key == "tls_server_name" {
			d += "&secure=true"
		}
		theirs, err := clickhouse.ParseDSN(d)
		if err != nil {
			t.Errorf("clickhouse-go refuses %s: %v", d, err)
			continue
		}
		if _, isSetting := theirs.Settings[key]; isSetting {
			t.Errorf("clickhouse-go takes %s as a setting: not one of its keys", key)
		}
		cfg, err := chdsn.Parse(d)
		if refusedKeys[key] {
			var e *chdsn.Error
			if !errors.As(err, &e) || e.Key != key {
				t.Errorf("chnative: Parse(%s) = %v, want an error naming %s", d, err, key)
			}
			continue
		}
		if err != nil {
			t.Errorf("chnative refuses %s: %v", d, err)
			continue
		}
		if _, isSetting := cfg.Settings[key]; isSetting {
			t.Errorf("chnative sends clickhouse-go's key %s to the server as a setting", key)
		}
		db, err := sql.Open("chnative", d)
		if sqlOpenRefused[key] {
			if err == nil || !strings.Contains(err.Error(), key) {
				t.Errorf("sql.Open(%s) = %v, want an error naming %s", d, err, key)
			}
			odb, err := chnative.OpenDSN(d)
			if err != nil {
				t.Errorf("OpenDSN(%s): %v", d, err)
			} else {
				odb.Close()
			}
			continue
		}
		if err != nil {
			t.Errorf("sql.Open(%s): %v", d, err)
			continue
		}
		db.Close()
	}
}

// docSection returns the section of doc (under docs/ or the repository's root) headed "## title".
func docSection(t *testing.T, doc, title string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", doc))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, "\n## "+title+"\n")
	if i < 0 {
		t.Fatalf("%s has no %q section", doc, title)
	}
	s = s[i+1:]
	if j := strings.Index(s[3:], "\n## "); j >= 0 {
		s = s[:j+3]
	}
	return s
}

func TestMigrationTablesAreComplete(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "clickhouse-go.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range clickhouseGoDSNKeys(t) {
		if !strings.Contains(string(b), "`"+key+"`") {
			t.Errorf("docs/clickhouse-go.md does not list clickhouse-go's DSN key %s", key)
		}
	}
	if !strings.Contains(docSection(t, "README.md", "Migrating from clickhouse-go"), "clickhouse-go's context options: chnative does not read them") {
		t.Error("the README's migration section does not say first that clickhouse-go's context options are not read")
	}
	section := docSection(t, filepath.Join("docs", "clickhouse-go.md"), "Context options")
	src := clickhouseGoSource(t, "context.go")
	opts := regexp.MustCompile(`(?m)^func (With\w*)\(.*\) QueryOption \{`).FindAllStringSubmatch(src, -1)
	if len(opts) < 15 {
		t.Fatalf("found only %d context options in clickhouse-go's context.go", len(opts))
	}
	for _, m := range append(opts, []string{"", "Context"}, []string{"", "CustomSetting"}) {
		if !strings.Contains(section, "`"+m[1]+"(") && !strings.Contains(section, "."+m[1]+"(") &&
			!strings.Contains(section, "."+m[1]+"{") {
			t.Errorf("docs/clickhouse-go.md's context options do not list clickhouse-go's %s", m[1])
		}
	}
}
