package dsn

import (
	"fmt"
	"reflect"
	"testing"
	"time"
)

// cfg returns NewConfig() modified by f, for table expectations.
func cfg(f func(c *Config)) *Config {
	c := NewConfig()
	if f != nil {
		f(c)
	}
	return c
}

// rawConfig has Config's fields but not its methods, so fmt prints every
// field (including the password, which is fine in test failures).
type rawConfig Config

func dump(c *Config) string {
	if c == nil {
		return "<nil>"
	}
	return fmt.Sprintf("%+v", rawConfig(*c))
}

// parseTests is shared with the round-trip and fuzz tests.
var parseTests = []struct {
	name string
	in   string
	want *Config
}{
	{"empty", "", cfg(nil)},
	{"spaces", "  \t", cfg(nil)},
	{"scheme only", "clickhouse://", cfg(nil)},
	{"scheme and slash", "clickhouse:///", cfg(nil)},
	{"host only", "clickhouse://db1", cfg(func(c *Config) { c.Addrs = []string{"db1:9000"} })},
	{"host port", "clickhouse://db1:9001", cfg(func(c *Config) { c.Addrs = []string{"db1:9001"} })},
	{"host empty port", "clickhouse://db1:", cfg(func(c *Config) { c.Addrs = []string{"db1:9000"} })},
	{"port leading zero", "clickhouse://db1:09000", cfg(func(c *Config) { c.Addrs = []string{"db1:9000"} })},
	{"bare host port", "127.0.0.1:9000", cfg(func(c *Config) { c.Addrs = []string{"127.0.0.1:9000"} })},
	{"bare host", "localhost", cfg(nil)},
	{"bare with db and query", "h:1/db?debug=1", cfg(func(c *Config) {
		c.Addrs = []string{"h:1"}
		c.Database = "db"
		c.Debug = true
	})},
	{"scheme case", "ClickHouse://h", cfg(func(c *Config) { c.Addrs = []string{"h:9000"} })},
	{"trailing newline", "clickhouse://h\n", cfg(func(c *Config) { c.Addrs = []string{"h:9000"} })},
	{"clickhouse-go full", "clickhouse://user:pass@h1:9000,h2:9000/db?dial_timeout=5s&compress=lz4", cfg(func(c *Config) {
		c.Addrs = []string{"h1:9000", "h2:9000"}
		c.User, c.Password, c.Database = "user", "pass", "db"
		c.DialTimeout = 5 * time.Second
		c.Compress = CompressionLZ4
	})},
	{"multi host mixed ports", "clickhouse://a,b:9001,[::1],[::2]:9002", cfg(func(c *Config) {
		c.Addrs = []string{"a:9000", "b:9001", "[::1]:9000", "[::2]:9002"}
	})},
	{"ipv6", "clickhouse://[::1]:9000", cfg(func(c *Config) { c.Addrs = []string{"[::1]:9000"} })},
	{"ipv6 no port", "clickhouse://[2001:db8::1]", cfg(func(c *Config) { c.Addrs = []string{"[2001:db8::1]:9000"} })},
	{"ipv6 zone rfc6874", "clickhouse://[fe80::1%25eth0]:9000", cfg(func(c *Config) { c.Addrs = []string{"[fe80::1%eth0]:9000"} })},
	{"ipv6 zone raw", "clickhouse://[fe80::1%eth0]:9000", cfg(func(c *Config) { c.Addrs = []string{"[fe80::1%eth0]:9000"} })},
	{"ipv4 mapped", "clickhouse://[::ffff:10.0.0.1]:9000", cfg(func(c *Config) { c.Addrs = []string{"[::ffff:10.0.0.1]:9000"} })},
	{"user only", "clickhouse://bob@h", cfg(func(c *Config) {
		c.Addrs = []string{"h:9000"}
		c.User = "bob"
	})},
	{"empty user with password", "clickhouse://:pw@h", cfg(func(c *Config) {
		c.Addrs = []string{"h:9000"}
		c.Password = "pw"
	})},
	{"user empty password", "clickhouse://bob:@h", cfg(func(c *Config) {
		c.Addrs = []string{"h:9000"}
		c.User = "bob"
	})},
	{"userinfo without host", "clickhouse://bob:pw@/db", cfg(func(c *Config) {
		c.User, c.Password, c.Database = "bob", "pw", "db"
	})},
	{"password percent-encoded specials", "clickhouse://u:p%40%3A%2F%3F%23%25%20+x@h", cfg(func(c *Config) {
		c.Addrs = []string{"h:9000"}
		c.User = "u"
		c.Password = "p@:/?#% +x" // '+' is literal in user info
	})},
	{"password raw at and colon", "clickhouse://u:p@ss:w@rd@h", cfg(func(c *Config) {
		c.Addrs = []string{"h:9000"}
		c.User = "u"
		c.Password = "p@ss:w@rd"
	})},
	{"password raw hash", "clickhouse://u:p#ss@h/db", cfg(func(c *Config) {
		c.Addrs = []string{"h:9000"}
		c.User, c.Password, c.Database = "u", "p#ss", "db"
	})},
	{"user percent-encoded", "clickhouse://a%3Ab%40c:pw@h", cfg(func(c *Config) {
		c.Addrs = []string{"h:9000"}
		c.User, c.Password = "a:b@c", "pw"
	})},
	{"database percent-encoded", "clickhouse://h/my%20db%2Fx", cfg(func(c *Config) {
		c.Addrs = []string{"h:9000"}
		c.Database = "my db/x"
	})},
	{"tcp form", "tcp://h1:9000?username=bob&password=s%26cret&database=analytics&debug=true", cfg(func(c *Config) {
		c.Addrs = []string{"h1:9000"}
		c.User, c.Password, c.Database = "bob", "s&cret", "analytics"
		c.Debug = true
	})},
	{"tcp form plus in password", "tcp://h?password=a+b%2Bc", cfg(func(c *Config) {
		c.Addrs = []string{"h:9000"}
		c.Password = "a b+c"
	})},
	{"tcp form raw at in password", "tcp://h?password=p@ss", cfg(func(c *Config) {
		c.Addrs = []string{"h:9000"}
		c.Password = "p@ss"
	})},
	{"query agrees with url", "clickhouse://bob:pw@h/db?username=bob&password=pw&database=db", cfg(func(c *Config) {
		c.Addrs = []string{"h:9000"}
		c.User, c.Password, c.Database = "bob", "pw", "db"
	})},
	{"database in query with slash path", "clickhouse://h/?database=x", cfg(func(c *Config) {
		c.Addrs = []string{"h:9000"}
		c.Database = "x"
	})},
	{"all options", "clickhouse://h?dial_timeout=1m30s&read_timeout=0&compress=zstd&compress_level=3&secure=true&skip_verify=1" +
		"&connection_open_strategy=round_robin&insert_block_rows=65536&client_name=my+app&quota_key=team-a&debug=t", cfg(func(c *Config) {
		c.Addrs = []string{"h:9440"}
		c.DialTimeout = 90 * time.Second
		c.ReadTimeout = 0
		c.Compress = CompressionZSTD
		c.CompressLevel = 3
		c.Secure = true
		c.SkipVerify = true
		c.ConnOpenStrategy = ConnOpenRoundRobin
		c.InsertBlockRows = 65536
		c.ClientName = "my app"
		c.QuotaKey = "team-a"
		c.Debug = true
	})},
	{"secure keeps explicit port", "clickhouse://a:9000,b?secure", cfg(func(c *Config) {
		c.Addrs = []string{"a:9000", "b:9440"}
		c.Secure = true
	})},
	{"secure false", "clickhouse://h?secure=false", cfg(func(c *Config) { c.Addrs = []string{"h:9000"} })},
	{"timeouts as seconds", "clickhouse://h?dial_timeout=10&read_timeout=600", cfg(func(c *Config) {
		c.Addrs = []string{"h:9000"}
		c.DialTimeout = 10 * time.Second
		c.ReadTimeout = 10 * time.Minute
	})},
	{"timeout zero seconds", "clickhouse://h?dial_timeout=0", cfg(func(c *Config) {
		c.Addrs = []string{"h:9000"}
		c.DialTimeout = 0
	})},
	{"timeout sub-second", "clickhouse://h?read_timeout=1.5s", cfg(func(c *Config) {
		c.Addrs = []string{"h:9000"}
		c.ReadTimeout = 1500 * time.Millisecond
	})},
	{"compress true", "clickhouse://h?compress=true", cfg(func(c *Config) {
		c.Addrs = []string{"h:9000"}
		c.Compress = CompressionLZ4
	})},
	{"compress 1", "clickhouse://h?compress=1", cfg(func(c *Config) {
		c.Addrs = []string{"h:9000"}
		c.Compress = CompressionLZ4
	})},
	{"compress empty", "clickhouse://h?compress", cfg(func(c *Config) {
		c.Addrs = []string{"h:9000"}
		c.Compress = CompressionLZ4
	})},
	{"compress false", "clickhouse://h?compress=false", cfg(func(c *Config) { c.Addrs = []string{"h:9000"} })},
	{"compress 0", "clickhouse://h?compress=0", cfg(func(c *Config) { c.Addrs = []string{"h:9000"} })},
	{"compress none", "clickhouse://h?compress=none", cfg(func(c *Config) { c.Addrs = []string{"h:9000"} })},
	{"compress upper", "clickhouse://h?compress=ZSTD", cfg(func(c *Config) {
		c.Addrs = []string{"h:9000"}
		c.Compress = CompressionZSTD
	})},
	{"compress level negative", "clickhouse://h?compress=zstd&compress_level=-5", cfg(func(c *Config) {
		c.Addrs = []string{"h:9000"}
		c.Compress = CompressionZSTD
		c.CompressLevel = -5
	})},
	{"strategy random", "clickhouse://h?connection_open_strategy=random", cfg(func(c *Config) {
		c.Addrs = []string{"h:9000"}
		c.ConnOpenStrategy = ConnOpenRandom
	})},
	{"strategy in_order", "clickhouse://h?connection_open_strategy=in_order", cfg(func(c *Config) { c.Addrs = []string{"h:9000"} })},
	{"settings passthrough", "clickhouse://h?max_execution_time=60&readonly=1&max_threads=&log_comment=a+b%26c%3Dd", cfg(func(c *Config) {
		c.Addrs = []string{"h:9000"}
		c.Settings = map[string]string{
			"max_execution_time": "60",
			"readonly":           "1",
			"max_threads":        "",
			"log_comment":        "a b&c=d",
		}
	})},
	{"settings with options", "clickhouse://h/db?debug=1&max_memory_usage=10000000000", cfg(func(c *Config) {
		c.Addrs = []string{"h:9000"}
		c.Database = "db"
		c.Debug = true
		c.Settings = map[string]string{"max_memory_usage": "10000000000"}
	})},
	{"empty query parts", "clickhouse://h?&&debug=1&", cfg(func(c *Config) {
		c.Addrs = []string{"h:9000"}
		c.Debug = true
	})},
	{"setting value with semicolon and hash", "clickhouse://h?log_comment=a;b#c", cfg(func(c *Config) {
		c.Addrs = []string{"h:9000"}
		c.Settings = map[string]string{"log_comment": "a;b#c"}
	})},
	{"utf8 host", "clickhouse://bücher.example:9000", cfg(func(c *Config) { c.Addrs = []string{"bücher.example:9000"} })},
	// golang-migrate's own keys, ignored (clickhouse-go v1 too); a setting beside them is kept.
	{"x- keys ignored", "clickhouse://h?x-multi-statement=true&x-migrations-table=schema_migrations&x-x=1&x-x=2&x-=&readonly=1",
		cfg(func(c *Config) {
			c.Addrs = []string{"h:9000"}
			c.Settings = map[string]string{"readonly": "1"}
		})},
}

func TestParse(t *testing.T) {
	for _, tt := range parseTests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.in)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.in, err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Parse(%q)\n got %s\nwant %s", tt.in, dump(got), dump(tt.want))
			}
			if err := got.Validate(); err != nil {
				t.Errorf("Validate: %v", err)
			}
		})
	}
}

func TestParseDefaults(t *testing.T) {
	c, err := Parse("clickhouse://h")
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case c.User != "default",
		c.Password != "",
		c.Database != "",
		c.DialTimeout != 30*time.Second,
		c.ReadTimeout != 5*time.Minute,
		c.Compress != CompressionNone,
		c.CompressLevel != 0,
		c.Secure, c.SkipVerify, c.Debug,
		c.ConnOpenStrategy != ConnOpenInOrder,
		c.InsertBlockRows != 1_000_000,
		c.ClientName != "", c.QuotaKey != "",
		c.Settings != nil:
		t.Errorf("unexpected defaults: %s", dump(c))
	}
	if !reflect.DeepEqual(c.Addrs, []string{"h:9000"}) {
		t.Errorf("Addrs = %q", c.Addrs)
	}
}
