package dsn

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestFormatDSN(t *testing.T) {
	tests := []struct {
		name string
		c    *Config
		want string
	}{
		{"defaults", NewConfig(), "clickhouse://localhost:9000"},
		{"user no password", cfg(func(c *Config) { c.User = "bob" }), "clickhouse://bob@localhost:9000"},
		{"default user with password", cfg(func(c *Config) { c.Password = "pw" }), "clickhouse://default:pw@localhost:9000"},
		{"escaped userinfo", cfg(func(c *Config) {
			c.User = "a:b@c"
			c.Password = `p@:/?#% +x`
		}), "clickhouse://a%3Ab%40c:p%40%3A%2F%3F%23%25%20%2Bx@localhost:9000"},
		{"multi host ipv6 zone", cfg(func(c *Config) {
			c.Addrs = []string{"a:9000", "[::1]:9001", "[fe80::1%eth0]:9000"}
		}), "clickhouse://a:9000,[::1]:9001,[fe80::1%25eth0]:9000"},
		{"zone needing escape", cfg(func(c *Config) { c.Addrs = []string{"[fe80::1%a b]:9000"} }),
			"clickhouse://[fe80::1%25a%20b]:9000"},
		{"database", cfg(func(c *Config) { c.Database = "my db/x" }), "clickhouse://localhost:9000/my%20db%2Fx"},
		{"options sorted with settings", cfg(func(c *Config) {
			c.Settings = map[string]string{"readonly": "1", "max_threads": "4", "log_comment": "a b&c=d+"}
			c.Debug = true
			c.Compress = CompressionZSTD
			c.CompressLevel = 3
			c.DialTimeout = 5 * time.Second
			c.ReadTimeout = 0
			c.Secure = true
			c.SkipVerify = true
			c.ConnOpenStrategy = ConnOpenRandom
			c.InsertBlockRows = 10
			c.ClientName = "app 1"
			c.QuotaKey = "q"
		}), "clickhouse://localhost:9000?client_name=app+1&compress=zstd&compress_level=3&connection_open_strategy=random" +
			"&debug=true&dial_timeout=5s&insert_block_rows=10&log_comment=a+b%26c%3Dd%2B&max_threads=4&quota_key=q" +
			"&read_timeout=0s&readonly=1&secure=true&skip_verify=true"},
		{"non-default durations", cfg(func(c *Config) {
			c.DialTimeout = 1500 * time.Millisecond
			c.ReadTimeout = time.Hour
		}), "clickhouse://localhost:9000?dial_timeout=1.5s&read_timeout=1h0m0s"},
		{"no addrs", cfg(func(c *Config) { c.Addrs = nil; c.Database = "db" }), "clickhouse:///db"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.c.FormatDSN(); got != tt.want {
				t.Errorf("FormatDSN()\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestStringRedactsPassword(t *testing.T) {
	c := NewConfig()
	c.User = "bob"
	c.Password = secret
	c.Database = "db"
	want := "clickhouse://bob:xxxxx@localhost:9000/db"
	if got := c.String(); got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if c.Password != secret {
		t.Error("String modified the Config")
	}
	// Every way fmt can print a Config or *Config.
	for _, verb := range []string{"%v", "%+v", "%s", "%#v", "%q"} {
		for _, v := range []any{c, *c, []*Config{c}, struct{ C *Config }{c}, struct{ C Config }{*c}} {
			out := fmt.Sprintf(verb, v)
			assertNoSecret(t, fmt.Sprintf("fmt %s of %T", verb, v), out)
			if !strings.Contains(out, "xxxxx") && verb != "%#v" && verb != "%q" {
				t.Errorf("fmt %s of %T = %q: expected the redacted DSN", verb, v, out)
			}
		}
	}
	if got := cfg(func(c *Config) { c.User = "u" }).String(); got != "clickhouse://u@localhost:9000" {
		t.Errorf("no password: String() = %q", got)
	}
}

func TestGoString(t *testing.T) {
	c := NewConfig()
	c.Password = "pw"
	want := `dsn.Config("clickhouse://default:xxxxx@localhost:9000")`
	if got := fmt.Sprintf("%#v", c); got != want {
		t.Errorf("%%#v = %s, want %s", got, want)
	}
}

func TestClone(t *testing.T) {
	c, err := Parse("clickhouse://u:p@a,b/db?readonly=1&debug=1")
	if err != nil {
		t.Fatal(err)
	}
	d := c.Clone()
	if dump(d) != dump(c) {
		t.Fatalf("Clone differs:\n%s\n%s", dump(d), dump(c))
	}
	d.Addrs[0] = "x:1"
	d.Settings["readonly"] = "0"
	d.Settings["new"] = "1"
	if c.Addrs[0] != "a:9000" || c.Settings["readonly"] != "1" || len(c.Settings) != 1 {
		t.Errorf("Clone shares memory with the original: %s", dump(c))
	}
	if NewConfig().Clone().Settings != nil {
		t.Error("Clone turned a nil Settings map into a non-nil one")
	}
	if (*Config)(nil).Clone() != nil {
		t.Error("nil.Clone() != nil")
	}
}
