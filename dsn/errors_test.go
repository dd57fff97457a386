package dsn

import (
	"errors"
	"net/url"
	"strings"
	"testing"
)

// errorTests lists malformed DSNs and the Key the *Error must carry.
// The DSNs use "{PW}" where a (properly encoded) password is inserted by
// TestErrorsNeverContainPassword.
var errorTests = []struct {
	name string
	in   string
	key  string
}{
	{"unknown scheme", "http://h:8123", "scheme"},
	{"unknown scheme with password", "mysql://u:{PW}@h", "scheme"},
	{"control char", "clickhouse://u:{PW}@h\x00", "dsn"},
	{"control char inside", "clickhouse://u:{PW}@h/d\tb", "dsn"},
	{"bad port", "clickhouse://u:{PW}@h:abc", "port"},
	{"port zero", "clickhouse://u:{PW}@h:0", "port"},
	{"port too big", "clickhouse://u:{PW}@h:65536", "port"},
	{"port negative", "clickhouse://u:{PW}@h:-1", "port"},
	{"port plus", "clickhouse://u:{PW}@h:+9000", "port"},
	{"bad port second host", "clickhouse://u:{PW}@a:9000,b:x", "port"},
	{"bad port ipv6", "clickhouse://u:{PW}@[::1]:x", "port"},
	{"empty host in list", "clickhouse://u:{PW}@a,,b", "host"},
	{"trailing comma", "clickhouse://u:{PW}@a,", "host"},
	{"empty host with port", "clickhouse://u:{PW}@:9000", "host"},
	{"bad host chars", "clickhouse://u:{PW}@h!x:9000", "host"},
	{"host with space", "clickhouse://u:{PW}@h x", "host"},
	{"unbracketed ipv6", "clickhouse://u:{PW}@::1", "host"},
	{"unbracketed ipv6 port", "clickhouse://u:{PW}@::1:9000", "host"},
	{"unclosed bracket", "clickhouse://u:{PW}@[::1", "host"},
	{"bracket junk", "clickhouse://u:{PW}@[::1]x", "host"},
	{"bracket ipv4", "clickhouse://u:{PW}@[127.0.0.1]:9000", "host"},
	{"bracket garbage", "clickhouse://u:{PW}@[zz]:9000", "host"},
	{"bad zone escape", "clickhouse://u:{PW}@[fe80::1%25%zz]", "host"},
	{"bad user escape", "clickhouse://u%zz:{PW}@h", "user"},
	{"bad password escape", "clickhouse://u:{PW}%zz@h", "password"},
	{"bad password escape short", "clickhouse://u:{PW}%4@h", "password"},
	{"database two segments", "clickhouse://u:{PW}@h/a/b", "database"},
	{"database bad escape", "clickhouse://u:{PW}@h/a%zz", "database"},
	{"database raw at", "clickhouse://h/a@b", "database"},
	{"dial_timeout bad", "clickhouse://u:{PW}@h?dial_timeout=abc", "dial_timeout"},
	{"dial_timeout empty", "clickhouse://u:{PW}@h?dial_timeout=", "dial_timeout"},
	{"dial_timeout negative", "clickhouse://u:{PW}@h?dial_timeout=-5s", "dial_timeout"},
	{"dial_timeout overflow seconds", "clickhouse://u:{PW}@h?dial_timeout=99999999999", "dial_timeout"},
	{"dial_timeout float seconds", "clickhouse://u:{PW}@h?dial_timeout=1.5", "dial_timeout"},
	{"read_timeout bad", "clickhouse://u:{PW}@h?read_timeout=5x", "read_timeout"},
	{"compress unknown", "clickhouse://u:{PW}@h?compress=gzip", "compress"},
	{"compress_level bad", "clickhouse://u:{PW}@h?compress_level=high", "compress_level"},
	{"compress_level huge", "clickhouse://u:{PW}@h?compress_level=99999999999", "compress_level"},
	{"secure bad", "clickhouse://u:{PW}@h?secure=yes", "secure"},
	{"skip_verify bad", "clickhouse://u:{PW}@h?skip_verify=2", "skip_verify"},
	{"debug bad", "clickhouse://u:{PW}@h?debug=on", "debug"},
	{"strategy bad", "clickhouse://u:{PW}@h?connection_open_strategy=fastest", "connection_open_strategy"},
	{"insert_block_rows bad", "clickhouse://u:{PW}@h?insert_block_rows=big", "insert_block_rows"},
	{"insert_block_rows zero", "clickhouse://u:{PW}@h?insert_block_rows=0", "insert_block_rows"},
	{"insert_block_rows negative", "clickhouse://u:{PW}@h?insert_block_rows=-1", "insert_block_rows"},
	{"duplicate key", "clickhouse://u:{PW}@h?debug=1&debug=0", "debug"},
	{"duplicate setting", "clickhouse://u:{PW}@h?readonly=1&readonly=1", "readonly"},
	{"empty key", "clickhouse://u:{PW}@h?=1", "query"},
	{"bad key escape", "clickhouse://u:{PW}@h?a%zz=1", "query"},
	{"bad value escape", "clickhouse://u:{PW}@h?log_comment=%zz", "log_comment"},
	{"bad setting name", "clickhouse://u:{PW}@h?max-threads=1", "setting"},
	{"setting name digit", "clickhouse://u:{PW}@h?1abc=1", "setting"},
	{"conflicting database", "clickhouse://u:{PW}@h/a?database=b", "database"},
	{"conflicting user", "clickhouse://u:{PW}@h?username=v", "username"},
	{"conflicting password", "clickhouse://u:{PW}@h?password=other", "password"},
	{"query password bad escape", "tcp://h?password={PW}%zz", "password"},
	{"query password duplicate", "tcp://h?password={PW}&password={PW}", "password"},
	{"tcp bad port", "tcp://h:x?password={PW}", "port"},
	{"tcp bad option", "tcp://h?password={PW}&dial_timeout=x", "dial_timeout"},
}

func TestParseErrors(t *testing.T) {
	for _, tt := range errorTests {
		t.Run(tt.name, func(t *testing.T) {
			in := strings.ReplaceAll(tt.in, "{PW}", "pw")
			c, err := Parse(in)
			if err == nil {
				t.Fatalf("Parse(%q) = %s, want error", in, dump(c))
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Parse(%q) error %T is not *Error: %v", in, err, err)
			}
			if e.Key != tt.key {
				t.Errorf("Parse(%q): Key = %q, want %q (err: %v)", in, e.Key, tt.key, err)
			}
			if !strings.Contains(err.Error(), tt.key) {
				t.Errorf("Parse(%q): error %q does not name key %q", in, err, tt.key)
			}
			if c != nil {
				t.Errorf("Parse(%q) returned a Config with an error", in)
			}
		})
	}
}

func TestErrorUnwrapAndFormat(t *testing.T) {
	_, err := Parse("clickhouse://h?dial_timeout=abc")
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("not *Error: %v", err)
	}
	if e.Key != "dial_timeout" || e.Value != "abc" || !errors.Is(err, errDuration) {
		t.Errorf("got Key=%q Value=%q Err=%v", e.Key, e.Value, e.Err)
	}
	want := `dsn: invalid dial_timeout "abc": ` + errDuration.Error()
	if err.Error() != want {
		t.Errorf("Error() = %q, want %q", err.Error(), want)
	}
}

// secret is a distinctive password: it contains every character that needs
// encoding, and pieces ("Zq9", "7Wx") that appear in no error text.
const secret = `Zq9@:/?#%& +=;,[]"7Wx`

var secretEncodings = []string{
	secret, url.QueryEscape(secret), url.PathEscape(secret), escapeComponent(secret),
	"Zq9", "7Wx", // the two ends: catch a partial leak
}

func assertNoSecret(t *testing.T, what, text string) {
	t.Helper()
	for _, s := range secretEncodings {
		if strings.Contains(text, s) {
			t.Errorf("%s leaks the password (%q) in %q", what, s, text)
		}
	}
}

// TestErrorsNeverContainPassword runs every error case with the distinctive
// password, encoded for its position: in the user info or in the query.
func TestErrorsNeverContainPassword(t *testing.T) {
	for _, tt := range errorTests {
		pw := escapeComponent(secret)
		if q := strings.Index(tt.in, "?"); q >= 0 && strings.Index(tt.in, "{PW}") > q {
			pw = url.QueryEscape(secret)
		}
		in := strings.ReplaceAll(tt.in, "{PW}", pw)
		_, err := Parse(in)
		if err == nil {
			t.Errorf("%s: Parse(%q) succeeded", tt.name, in)
			continue
		}
		assertNoSecret(t, tt.name, err.Error())
		var e *Error
		if errors.As(err, &e) {
			assertNoSecret(t, tt.name+" Key", e.Key)
			assertNoSecret(t, tt.name+" Value", e.Value)
		}
	}
}

// TestUnencodedPasswordErrors covers passwords whose special characters were
// not percent-encoded, so the parser cannot tell where the password ends.
// Whatever the outcome, the password must not show in an error.
func TestUnencodedPasswordErrors(t *testing.T) {
	passwords := []string{
		"Zq9/x7Wx", "Zq9?x7Wx", "Zq9/a?b7Wx", "Zq9?a=b7Wx", "Zq9%zz7Wx", "Zq9%7Wx",
		"Zq9/a/b7Wx", "Zq9:x/7Wx", "Zq9?dial_timeout=x7Wx", "Zq9]x7Wx", "Zq9[7Wx",
	}
	tails := []string{"@h", "@h:9000/db", "@h/db?debug=1", "@h1,h2:x/db", "@[::1]/db"}
	for _, pw := range passwords {
		for _, tail := range tails {
			for _, scheme := range []string{"clickhouse://", "tcp://", ""} {
				in := scheme + "u:" + pw + tail
				c, err := Parse(in)
				if err != nil {
					assertNoSecret(t, in, err.Error())
					continue
				}
				// It may parse (e.g. a numeric prefix that looks like a
				// port); the redacted form must still hide what it can.
				if c.Password != "" {
					assertNoSecret(t, in, c.String())
				}
			}
		}
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		mod  func(c *Config)
		key  string
	}{
		{"no addrs", func(c *Config) { c.Addrs = nil }, "host"},
		{"addr without port", func(c *Config) { c.Addrs = []string{"h"} }, "host"},
		{"addr bad port", func(c *Config) { c.Addrs = []string{"h:0"} }, "port"},
		{"addr empty host", func(c *Config) { c.Addrs = []string{":9000"} }, "host"},
		{"addr bad chars", func(c *Config) { c.Addrs = []string{"a/b:9000"} }, "host"},
		{"addr bad ipv6", func(c *Config) { c.Addrs = []string{"[::g]:9000"} }, "host"},
		{"empty user", func(c *Config) { c.User = "" }, "user"},
		{"negative dial", func(c *Config) { c.DialTimeout = -1 }, "dial_timeout"},
		{"negative read", func(c *Config) { c.ReadTimeout = -1 }, "read_timeout"},
		{"bad compression", func(c *Config) { c.Compress = 9 }, "compress"},
		{"bad strategy", func(c *Config) { c.ConnOpenStrategy = 9 }, "connection_open_strategy"},
		{"zero block", func(c *Config) { c.InsertBlockRows = 0 }, "insert_block_rows"},
		{"server name without secure", func(c *Config) { c.TLSServerName = "ch.example" }, "tls_server_name"},
		{"bad server name", func(c *Config) { c.Secure = true; c.TLSServerName = "a b" }, "tls_server_name"},
		{"empty product", func(c *Config) { c.ClientProducts = []ClientProduct{{Version: "1"}} }, "client_info_product"},
		{"product with space", func(c *Config) { c.ClientProducts = []ClientProduct{{Name: "a b"}} }, "client_info_product"},
		{"negative open conns", func(c *Config) { c.MaxOpenConns = -1 }, "max_open_conns"},
		{"negative idle conns", func(c *Config) { c.MaxIdleConns = -1 }, "max_idle_conns"},
		{"negative lifetime", func(c *Config) { c.ConnMaxLifetime = -1 }, "conn_max_lifetime"},
		{"block buffer too big", func(c *Config) { c.BlockBufferSize = 256 }, "block_buffer_size"},
		{"negative compression buffer", func(c *Config) { c.MaxCompressionBuffer = -1 }, "max_compression_buffer"},
		{"refused setting", func(c *Config) { c.Settings = map[string]string{"http_proxy": "x"} }, "http_proxy"},
		{"hosts as setting", func(c *Config) { c.Settings = map[string]string{"hosts": "x"} }, "hosts"},
		{"reserved setting", func(c *Config) { c.Settings = map[string]string{"debug": "1"} }, "debug"},
		{"password setting", func(c *Config) { c.Settings = map[string]string{"password": secret} }, "password"},
		{"bad setting", func(c *Config) { c.Settings = map[string]string{"a-b": "1"} }, "setting"},
	}
	for _, tt := range tests {
		c := NewConfig()
		c.Password = secret
		tt.mod(c)
		err := c.Validate()
		var e *Error
		if !errors.As(err, &e) || e.Key != tt.key {
			t.Errorf("%s: Validate() = %v, want *Error with Key %q", tt.name, err, tt.key)
			continue
		}
		assertNoSecret(t, tt.name, err.Error())
	}
	if err := NewConfig().Validate(); err != nil {
		t.Errorf("NewConfig().Validate() = %v", err)
	}
}
