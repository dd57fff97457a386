package dsn

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// The insert retry keys (insert_retries, insert_retry_buffer): parsed, checked, formatted only
// when not the default, and kept by a round trip.
func TestInsertRetryKeys(t *testing.T) {
	c := NewConfig()
	if c.InsertRetries != 0 || c.InsertRetryBuffer != 64<<20 {
		t.Fatalf("defaults: insert_retries %d, insert_retry_buffer %d", c.InsertRetries, c.InsertRetryBuffer)
	}
	if s := c.FormatDSN(); s != "clickhouse://localhost:9000" {
		t.Fatalf("defaults formatted: %q", s)
	}
	for _, tt := range []struct {
		in               string
		retries, buffer  int
		formattedKeysHas string
	}{
		{"clickhouse://h?insert_retries=2", 2, DefaultInsertRetryBuffer, "insert_retries=2"},
		{"clickhouse://h?insert_retries=5&insert_retry_buffer=0", 5, 0, "insert_retry_buffer=0"},
		{"clickhouse://h?insert_retry_buffer=1048576", DefaultInsertRetries, 1 << 20, "insert_retry_buffer=1048576"},
	} {
		got, err := Parse(tt.in)
		if err != nil {
			t.Fatalf("%s: %v", tt.in, err)
		}
		if got.InsertRetries != tt.retries || got.InsertRetryBuffer != tt.buffer {
			t.Fatalf("%s: insert_retries %d, insert_retry_buffer %d", tt.in, got.InsertRetries, got.InsertRetryBuffer)
		}
		if got.Settings != nil {
			t.Fatalf("%s: a driver key went to the settings: %v", tt.in, got.Settings)
		}
		s := checkRoundTrip(t, got)
		if !reflect.DeepEqual(got, mustParse(t, s)) || !strings.Contains(s, tt.formattedKeysHas) {
			t.Fatalf("%s formatted as %q", tt.in, s)
		}
	}
	for _, in := range []string{"clickhouse://h?insert_retries=-1", "clickhouse://h?insert_retries=x",
		"clickhouse://h?insert_retry_buffer=-5", "clickhouse://h?insert_retry_buffer=64MiB"} {
		_, err := Parse(in)
		var e *Error
		if !errors.As(err, &e) || (e.Key != KeyInsertRetries && e.Key != KeyInsertRetryBuffer) {
			t.Errorf("%s: %v, want an *Error naming the key", in, err)
		}
	}
	for _, mod := range []func(*Config){func(c *Config) { c.InsertRetries = -1 }, func(c *Config) { c.InsertRetryBuffer = -1 }} {
		c := NewConfig()
		mod(c)
		var e *Error
		if err := c.Validate(); !errors.As(err, &e) || (e.Key != KeyInsertRetries && e.Key != KeyInsertRetryBuffer) {
			t.Errorf("Validate of a negative insert retry value: %v", err)
		}
	}
	if !isReservedKey(KeyInsertRetries) || !isReservedKey(KeyInsertRetryBuffer) {
		t.Error("the insert retry keys are not reserved")
	}
}

func mustParse(t *testing.T, s string) *Config {
	t.Helper()
	c, err := Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
