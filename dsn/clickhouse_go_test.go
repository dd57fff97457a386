package dsn

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

// clickhouse-go's own DSN keys (its clickhouse_options.go fromDSN) are driver keys here too: none
// of them may end up in Settings, where the server would refuse it on every query.
var clickHouseGoKeyTests = []struct {
	name string
	in   string
	want *Config
}{
	{"hosts before the URL's", "clickhouse://b:9000?hosts=a:9001,+c", cfg(func(c *Config) {
		c.Addrs = []string{"a:9001", "c:9000", "b:9000"}
	})},
	{"alt_hosts after the URL's", "clickhouse://b:9000?alt_hosts=a:9001,%20c%20", cfg(func(c *Config) {
		c.Addrs = []string{"b:9000", "a:9001", "c:9000"}
	})},
	{"hosts and alt_hosts", "clickhouse://m?alt_hosts=z&hosts=a", cfg(func(c *Config) {
		c.Addrs = []string{"a:9000", "m:9000", "z:9000"}
	})},
	{"hosts without URL hosts", "tcp://?hosts=a,b:1", cfg(func(c *Config) {
		c.Addrs = []string{"a:9000", "b:1"}
	})},
	{"hosts take the secure port", "clickhouse://m?hosts=a&secure=true", cfg(func(c *Config) {
		c.Addrs = []string{"a:9440", "m:9440"}
		c.Secure = true
	})},
	{"tls_server_name", "clickhouse://h?secure=true&tls_server_name=ch.example.com", cfg(func(c *Config) {
		c.Addrs = []string{"h:9440"}
		c.Secure = true
		c.TLSServerName = "ch.example.com"
	})},
	{"client_info_product", "clickhouse://h?client_info_product=myapp/1.2,mylib/0.3,bare", cfg(func(c *Config) {
		c.Addrs = []string{"h:9000"}
		c.ClientProducts = []ClientProduct{{"myapp", "1.2"}, {"mylib", "0.3"}, {"bare", ""}}
	})},
	{"pool limits", "clickhouse://h?max_open_conns=10&max_idle_conns=5&conn_max_lifetime=1h", cfg(func(c *Config) {
		c.Addrs = []string{"h:9000"}
		c.MaxOpenConns, c.MaxIdleConns, c.ConnMaxLifetime = 10, 5, time.Hour
	})},
	{"buffers", "clickhouse://h?block_buffer_size=10&max_compression_buffer=10485760", cfg(func(c *Config) {
		c.Addrs = []string{"h:9000"}
		c.BlockBufferSize, c.MaxCompressionBuffer = 10, 10485760
	})},
	{"lz4hc", "clickhouse://h?compress=lz4hc&compress_level=5", cfg(func(c *Config) {
		c.Addrs = []string{"h:9000"}
		c.Compress, c.CompressLevel = CompressionLZ4HC, 5
	})},
	{"max_block_size is the server setting", "clickhouse://h?max_block_size=4096", cfg(func(c *Config) {
		c.Addrs = []string{"h:9000"}
		c.Settings = map[string]string{"max_block_size": "4096"}
	})},
	{"insert_block_rows", "clickhouse://h?insert_block_rows=4096&max_block_size=100", cfg(func(c *Config) {
		c.Addrs = []string{"h:9000"}
		c.InsertBlockRows = 4096
		c.Settings = map[string]string{"max_block_size": "100"}
	})},
	{"booleans as clickhouse-go sends them", "clickhouse://h?async_insert=true&wait_for_async_insert=FALSE&log_comment=truth", cfg(func(c *Config) {
		c.Addrs = []string{"h:9000"}
		c.Settings = map[string]string{"async_insert": "1", "wait_for_async_insert": "0", "log_comment": "truth"}
	})},
	{"the rest of clickhouse-go's keys", "clickhouse://u:p@h:9000/db?debug=true&compress=lz4&compress_level=3&dial_timeout=200ms" +
		"&read_timeout=30s&secure=false&skip_verify=false&connection_open_strategy=round_robin" +
		"&max_execution_time=60", cfg(func(c *Config) {
		c.Addrs = []string{"h:9000"}
		c.User, c.Password, c.Database = "u", "p", "db"
		c.Debug = true
		c.Compress, c.CompressLevel = CompressionLZ4, 3
		c.DialTimeout, c.ReadTimeout = 200*time.Millisecond, 30*time.Second
		c.ConnOpenStrategy = ConnOpenRoundRobin
		c.Settings = map[string]string{"max_execution_time": "60"}
	})},
	{"network-path reference", "//h:9001/db", cfg(func(c *Config) {
		c.Addrs = []string{"h:9001"}
		c.Database = "db"
	})},
	{"host named clickhouse", "clickhouse:9000/db", cfg(func(c *Config) {
		c.Addrs = []string{"clickhouse:9000"}
		c.Database = "db"
	})},
	{"host named clickhouse, default port", "clickhouse:?debug=1", cfg(func(c *Config) {
		c.Addrs = []string{"clickhouse:9000"}
		c.Debug = true
	})},
}

func TestClickHouseGoKeys(t *testing.T) {
	for _, tt := range clickHouseGoKeyTests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.in)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.in, err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Parse(%q)\n got %s\nwant %s", tt.in, dump(got), dump(tt.want))
			}
			checkRoundTrip(t, got)
		})
	}
}

// mistakeTests are DSNs with the mistakes people make, each with the Key of the error and words
// the message must contain. {PW} is a password that must not show.
var mistakeTests = []struct {
	name, in, key string
	words         []string
}{
	{"user:pass without @", "clickhouse://default::127.0.0.1:29000", "host", []string{"'@' left out", "user:password@host"}},
	{"user:pass without @, with a password", "clickhouse://default:{PW}127.0.0.1:29000", "host", []string{"'@' left out"}},
	{"user:pass without @, tcp", "tcp://bob:{PW}h:9000?database=x", "host", []string{"'@' left out"}},
	{"unbracketed IPv6", "clickhouse://::1", "host", []string{"brackets"}},
	{"unbracketed IPv6 with port", "clickhouse://::1:9000", "host", []string{"brackets"}},
	{"colons after @", "clickhouse://u:{PW}@h:1:2", "host", []string{"more than one ':'"}},
	{"scheme with one slash", "clickhouse:/127.0.0.1:9000", "scheme", []string{"://"}},
	{"scheme without slashes", "clickhouse:127.0.0.1:9000", "scheme", []string{"://"}},
	{"tcp without slashes", "tcp:h:9000", "scheme", []string{"://"}},
	{"jdbc", "jdbc:clickhouse://h:8123/db", "scheme", []string{"JDBC", "clickhouse://"}},
	{"http", "http://h:8123", "scheme", []string{"HTTP interface", "native"}},
	{"https", "https://u:{PW}@h:8443?secure=true", "scheme", []string{"HTTP interface"}},
	{"space in host", "clickhouse://my host:9000", "host", []string{"space"}},
	{"space before path", "clickhouse://h:9000 /db", "port", []string{"space"}},
	{"space in a value", "clickhouse://h?dial_timeout=5s+", "dial_timeout", []string{"space"}},
	{"unescaped ? in password", "clickhouse://u:pa?{PW}@h:9000/db", "port", []string{"'?'", "%3F"}},
	{"unescaped / in password", "clickhouse://u:pa/{PW}@h:9000/db", "port", []string{"'/'", "%2F"}},
	{"port out of range", "clickhouse://h:70000", "port", []string{"1 to 65535"}},
	{"port zero", "clickhouse://h:0", "port", []string{"1 to 65535"}},
	{"port not a number", "tcp://h:port?password={PW}", "port", []string{"number"}},
	{"user key", "tcp://h:9000?user=bob&password={PW}", "user", []string{"username"}},
	{"unescaped & in query password", "tcp://h:9000?username=bob&password=ab&{PW}", "password", []string{"'&'", "%26"}},
	{"unescaped & in query password, odd rest", "tcp://h:9000?password=ab&c+{PW}", "password", []string{"'&'"}},
	{"db key", "tcp://h:9000?db=x", "db", []string{"database"}},
	{"dbname key", "tcp://h:9000?dbname=x", "dbname", []string{"database"}},
	{"ssl key", "clickhouse://h?ssl=true", "ssl", []string{"secure=true"}},
	{"http_proxy", "clickhouse://h?http_proxy=http%3A%2F%2Fproxy%3A3128", "http_proxy", []string{"HTTP protocol"}},
	{"http_path", "clickhouse://h?http_path=/ch", "http_path", []string{"HTTP protocol"}},
	{"gzip", "clickhouse://h?compress=gzip", "compress", []string{"HTTP compression", "lz4"}},
	{"tls_server_name without secure", "clickhouse://h?tls_server_name=x", "tls_server_name", []string{"secure=true"}},
	{"tls_server_name empty", "clickhouse://h?secure=true&tls_server_name=+", "tls_server_name", []string{"empty"}},
	{"block_buffer_size zero", "clickhouse://h?block_buffer_size=0", "block_buffer_size", []string{"1 to 255"}},
	{"max_open_conns negative", "clickhouse://h?max_open_conns=-1", "max_open_conns", []string{"negative"}},
	{"conn_max_lifetime bad", "clickhouse://h?conn_max_lifetime=forever", "conn_max_lifetime", []string{"duration"}},
	{"empty product", "clickhouse://h?client_info_product=a/1,,b/2", "client_info_product", []string{"name/version"}},
	{"empty hosts", "clickhouse://h?hosts=,", "hosts", []string{"empty"}},
	{"bad alt_hosts", "clickhouse://h?alt_hosts=a:x", "alt_hosts", []string{"1 to 65535"}},
}

func TestMistakeMessages(t *testing.T) {
	const pw = "Zq9secret7Wx"
	for _, tt := range mistakeTests {
		t.Run(tt.name, func(t *testing.T) {
			in := strings.ReplaceAll(tt.in, "{PW}", pw)
			c, err := Parse(in)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Parse(%q) = %s, %v; want a *Error", in, dump(c), err)
			}
			if e.Key != tt.key {
				t.Errorf("Parse(%q): Key %q, want %q (%v)", in, e.Key, tt.key, err)
			}
			for _, w := range tt.words {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Parse(%q): %q does not say %q", in, err, w)
				}
			}
			if strings.Contains(err.Error()+e.Value+e.Key, "secret") {
				t.Errorf("Parse(%q): the error shows the password: %v", in, err)
			}
			if strings.Contains(err.Error(), "must be enclosed in brackets") && !strings.Contains(tt.name, "IPv6") {
				t.Errorf("Parse(%q) blames an IPv6 address: %v", in, err)
			}
		})
	}
}
