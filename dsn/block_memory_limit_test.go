package dsn

import (
	"errors"
	"testing"
)

// TestBlockMemoryLimit: block_memory_limit parses to Config.BlockMemoryLimit (bytes up to
// int64; 0 means the default), defaults to 1 GiB, round-trips through FormatDSN, and negative
// or non-numeric values are a *Error naming the key.
func TestBlockMemoryLimit(t *testing.T) {
	c, err := Parse("clickhouse://h:9000/db")
	if err != nil || c.BlockMemoryLimit != DefaultBlockMemoryLimit || DefaultBlockMemoryLimit != 1<<30 {
		t.Fatalf("default: %d, %v", c.BlockMemoryLimit, err)
	}
	if NewConfig().BlockMemoryLimit != DefaultBlockMemoryLimit {
		t.Fatal("NewConfig: not the default")
	}
	for _, v := range []int64{0, 1, 64 << 20, 8 << 30} {
		c, err := Parse("clickhouse://h:9000/db?block_memory_limit=" + itoa64(v))
		if err != nil || c.BlockMemoryLimit != v {
			t.Fatalf("%d: %d, %v", v, c.BlockMemoryLimit, err)
		}
		back, err := Parse(c.FormatDSN())
		if err != nil || back.BlockMemoryLimit != v {
			t.Fatalf("%d: FormatDSN %q parsed back to %d, %v", v, c.FormatDSN(), back.BlockMemoryLimit, err)
		}
	}
	for _, bad := range []string{"-1", "1GiB", "", "99999999999999999999"} {
		_, err := Parse("clickhouse://h:9000/db?block_memory_limit=" + bad)
		var de *Error
		if !errors.As(err, &de) || de.Key != KeyBlockMemoryLimit {
			t.Fatalf("%q: want a *Error naming %s, got %v", bad, KeyBlockMemoryLimit, err)
		}
	}
	c = NewConfig()
	c.BlockMemoryLimit = -1
	var de *Error
	if err := c.Validate(); !errors.As(err, &de) || de.Key != KeyBlockMemoryLimit {
		t.Fatalf("Validate of -1: %v", err)
	}
	c.BlockMemoryLimit = 0
	if err := c.Validate(); err != nil {
		t.Fatalf("Validate of 0 (the default): %v", err)
	}
}

func itoa64(v int64) string {
	if v == 0 {
		return "0"
	}
	var b []byte
	for ; v > 0; v /= 10 {
		b = append([]byte{byte('0' + v%10)}, b...)
	}
	return string(b)
}
