package dsn

import (
	"errors"
	"strconv"
	"testing"
)

// block_keep_bytes and insert_block_bytes: their defaults, parsed values (0 allowed), refused
// negatives, and a FormatDSN round trip.
func TestMemoryKeys(t *testing.T) {
	c, err := Parse("clickhouse://h:9000/db")
	if err != nil {
		t.Fatal(err)
	}
	if c.BlockKeepBytes != DefaultBlockKeepBytes || c.InsertBlockBytes != DefaultInsertBlockBytes {
		t.Errorf("defaults: block_keep_bytes %d, insert_block_bytes %d", c.BlockKeepBytes, c.InsertBlockBytes)
	}
	if n := NewConfig(); n.BlockKeepBytes != DefaultBlockKeepBytes || n.InsertBlockBytes != DefaultInsertBlockBytes {
		t.Errorf("NewConfig: block_keep_bytes %d, insert_block_bytes %d", n.BlockKeepBytes, n.InsertBlockBytes)
	}
	for _, tc := range []struct{ keep, ins int }{{0, 0}, {1, 123456}, {64 << 20, 1 << 30}} {
		c, err := Parse("clickhouse://h:9000/db?block_keep_bytes=" + strconv.Itoa(tc.keep) + "&insert_block_bytes=" + strconv.Itoa(tc.ins))
		if err != nil {
			t.Fatal(err)
		}
		if c.BlockKeepBytes != tc.keep || c.InsertBlockBytes != tc.ins {
			t.Errorf("parsed %d, %d; want %d, %d", c.BlockKeepBytes, c.InsertBlockBytes, tc.keep, tc.ins)
		}
		if len(c.Settings) != 0 {
			t.Errorf("the keys went to the settings: %v", c.Settings)
		}
		back, err := Parse(c.FormatDSN())
		if err != nil {
			t.Fatal(err)
		}
		if back.BlockKeepBytes != tc.keep || back.InsertBlockBytes != tc.ins {
			t.Errorf("FormatDSN round trip: %d, %d; want %d, %d", back.BlockKeepBytes, back.InsertBlockBytes, tc.keep, tc.ins)
		}
	}
	for _, k := range []string{KeyBlockKeepBytes, KeyInsertBlockBytes} {
		_, err := Parse("clickhouse://h:9000/db?" + k + "=-1")
		var e *Error
		if !errors.As(err, &e) || e.Key != k {
			t.Errorf("%s=-1: %v, want an *Error naming the key", k, err)
		}
	}
	c = NewConfig()
	c.BlockKeepBytes = -1
	var e *Error
	if err := c.Validate(); !errors.As(err, &e) || e.Key != KeyBlockKeepBytes {
		t.Errorf("Validate with BlockKeepBytes -1: %v", err)
	}
}
