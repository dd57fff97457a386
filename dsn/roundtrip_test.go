package dsn

import (
	"reflect"
	"testing"
)

// checkRoundTrip asserts that c formats to a DSN that parses back to c, and
// that formatting is a fixed point. It returns the formatted DSN.
func checkRoundTrip(t *testing.T, c *Config) string {
	t.Helper()
	s := c.FormatDSN()
	c2, err := Parse(s)
	if err != nil {
		t.Fatalf("Parse(FormatDSN()) failed: %v\nconfig %s\ndsn    %q", err, dump(c), s)
	}
	if !reflect.DeepEqual(c, c2) {
		t.Fatalf("round trip changed the config\nbefore %s\nafter  %s\ndsn    %q", dump(c), dump(c2), s)
	}
	if s2 := c2.FormatDSN(); s2 != s {
		t.Fatalf("FormatDSN is not a fixed point:\n%q\n%q", s, s2)
	}
	return s
}

func TestRoundTripParseTable(t *testing.T) {
	for _, tt := range parseTests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			checkRoundTrip(t, c)
		})
	}
}

func TestRoundTripBuilt(t *testing.T) {
	configs := []*Config{
		NewConfig(),
		cfg(func(c *Config) {
			c.User = "ü s:e@r/"
			c.Password = secret
			c.Database = "d b%/?#@"
			c.Addrs = []string{"[fe80::1%e n/0]:1", "x.y:65535", "[::]:2"}
			c.ReadTimeout = 1
			c.DialTimeout = 1<<63 - 1
			c.CompressLevel = -2147483648
			c.InsertBlockRows = 2147483647
			c.ClientName = "&=?+ %"
			c.QuotaKey = "\x00\xff"
			c.Settings = map[string]string{"_": "", "A9": "\n=&"}
		}),
		cfg(func(c *Config) { c.Password = "only-password" }),
		cfg(func(c *Config) { c.Settings = map[string]string{"max_threads": "1"} }),
		cfg(func(c *Config) { c.ProtocolRevision = MinProtocolRevision }),
		cfg(func(c *Config) { c.ProtocolRevision = MaxProtocolRevision }),
	}
	for _, c := range configs {
		if err := c.Validate(); err != nil {
			t.Fatalf("Validate(%s): %v", dump(c), err)
		}
		checkRoundTrip(t, c)
	}
}

// TestCanonicalForms checks that equivalent spellings format identically.
func TestCanonicalForms(t *testing.T) {
	groups := [][]string{
		{
			"clickhouse://bob:pw@h:9000/db?compress=lz4&debug=true",
			"tcp://h:9000?username=bob&password=pw&database=db&compress=1&debug=1",
			"h/db?debug&compress&password=pw&username=bob",
			"CLICKHOUSE://bob:pw@h:/db?compress=LZ4&debug=T",
		},
		{
			"clickhouse://h?dial_timeout=60&read_timeout=300",
			"clickhouse://h:9000?dial_timeout=1m&read_timeout=5m0s",
			"clickhouse://h?dial_timeout=60s",
		},
	}
	for _, g := range groups {
		var first string
		for i, in := range g {
			c, err := Parse(in)
			if err != nil {
				t.Fatalf("Parse(%q): %v", in, err)
			}
			s := checkRoundTrip(t, c)
			if i == 0 {
				first = s
			} else if s != first {
				t.Errorf("%q formats as %q, want %q", in, s, first)
			}
		}
	}
}
