package dsn

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

func TestProtocolRevisionKey(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want uint64
	}{
		{"h?protocol_revision=54412", 54412},
		{"h?protocol_revision=54460", 54460},
		{"h?protocol_revision=54488", 54488},
		{"h?protocol_revision=0", 0},
		{"h", 0},
	} {
		c, err := Parse(tt.in)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tt.in, err)
		}
		if c.ProtocolRevision != tt.want {
			t.Fatalf("Parse(%q).ProtocolRevision = %d, want %d", tt.in, c.ProtocolRevision, tt.want)
		}
		if _, ok := c.Settings[KeyProtocolRevision]; ok {
			t.Fatalf("Parse(%q): protocol_revision went to the settings", tt.in)
		}
		formatted := c.FormatDSN()
		if has := strings.Contains(formatted, "protocol_revision="+strconv.FormatUint(tt.want, 10)); has != (tt.want != 0) {
			t.Fatalf("FormatDSN = %q for revision %d", formatted, tt.want)
		}
		checkRoundTrip(t, c)
	}
}

func TestProtocolRevisionRejected(t *testing.T) {
	for _, v := range []string{"54411", "54489", "1", "99999", "-1", "x", "54460.0", "18446744073709551616"} {
		_, err := Parse("clickhouse://u:pw@h?protocol_revision=" + v)
		var e *Error
		if !errors.As(err, &e) || e.Key != KeyProtocolRevision {
			t.Fatalf("protocol_revision=%s: want an *Error for key %s, got %v", v, KeyProtocolRevision, err)
		}
		if strings.Contains(err.Error(), "pw") {
			t.Fatalf("error shows the password: %v", err)
		}
	}
	_, err := Parse("h?protocol_revision=54489")
	if err == nil || !strings.Contains(err.Error(), "54412") || !strings.Contains(err.Error(), "54488") {
		t.Fatalf("the range error should name both bounds: %v", err)
	}
	c := NewConfig()
	c.ProtocolRevision = MaxProtocolRevision + 1
	var e *Error
	if err := c.Validate(); !errors.As(err, &e) || e.Key != KeyProtocolRevision || e.Value != "54489" {
		t.Fatalf("Validate: want an *Error for %s with the value, got %v", KeyProtocolRevision, err)
	}
	c.ProtocolRevision = MinProtocolRevision - 1
	if err := c.Validate(); !errors.As(err, &e) || e.Key != KeyProtocolRevision {
		t.Fatalf("Validate below the minimum: %v", err)
	}
	// It is a driver key, not a setting.
	c = NewConfig()
	c.Settings = map[string]string{KeyProtocolRevision: "54460"}
	if err := c.Validate(); !errors.As(err, &e) || e.Key != KeyProtocolRevision {
		t.Fatalf("protocol_revision as a setting: %v", err)
	}
}
