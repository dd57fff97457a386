package dsn

import (
	"encoding/json"
	"testing"
)

func TestCompression(t *testing.T) {
	for _, c := range []Compression{CompressionNone, CompressionLZ4, CompressionZSTD, CompressionLZ4HC} {
		got, err := ParseCompression(c.String())
		if err != nil || got != c {
			t.Errorf("ParseCompression(%q) = %v, %v", c.String(), got, err)
		}
	}
	if got := Compression(7).String(); got != "Compression(7)" {
		t.Errorf("String() = %q", got)
	}
	for _, bad := range []string{"", "gzip", "true", "lz4 hc"} {
		if _, err := ParseCompression(bad); err == nil {
			t.Errorf("ParseCompression(%q) succeeded", bad)
		}
	}
	if c, err := ParseCompression("Zstd"); err != nil || c != CompressionZSTD {
		t.Errorf("case-insensitive parse failed: %v %v", c, err)
	}
}

func TestConnOpenStrategy(t *testing.T) {
	for _, s := range []ConnOpenStrategy{ConnOpenInOrder, ConnOpenRoundRobin, ConnOpenRandom} {
		got, err := ParseConnOpenStrategy(s.String())
		if err != nil || got != s {
			t.Errorf("ParseConnOpenStrategy(%q) = %v, %v", s.String(), got, err)
		}
	}
	if got := ConnOpenStrategy(9).String(); got != "ConnOpenStrategy(9)" {
		t.Errorf("String() = %q", got)
	}
	if _, err := ParseConnOpenStrategy("roundrobin"); err == nil {
		t.Error("ParseConnOpenStrategy(roundrobin) succeeded")
	}
}

func TestEnumsText(t *testing.T) {
	type T struct {
		C Compression
		S ConnOpenStrategy
	}
	b, err := json.Marshal(T{CompressionZSTD, ConnOpenRandom})
	if err != nil || string(b) != `{"C":"zstd","S":"random"}` {
		t.Fatalf("Marshal = %s, %v", b, err)
	}
	var v T
	if err := json.Unmarshal([]byte(`{"C":"LZ4","S":"round_robin"}`), &v); err != nil || v != (T{CompressionLZ4, ConnOpenRoundRobin}) {
		t.Fatalf("Unmarshal = %+v, %v", v, err)
	}
	if err := json.Unmarshal([]byte(`{"C":"snappy"}`), &v); err == nil {
		t.Error("Unmarshal of unknown codec succeeded")
	}
	if _, err := json.Marshal(T{C: 5}); err == nil {
		t.Error("Marshal of invalid codec succeeded")
	}
}
