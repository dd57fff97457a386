package dsn

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// The keys of issue 39's ways in: jwt, ssh_key, ssh_key_passphrase, tls_cert, tls_key and
// wake_up_timeout parse, format back, and keep their secrets out of String and errors.
func TestAuthKeys(t *testing.T) {
	c, err := Parse("clickhouse://h:9440/db?secure=true&jwt=aaa.bbb.ccc&ssh_key=%2Fk%2Fid&ssh_key_passphrase=pp+x" +
		"&tls_cert=%2Fc.crt&tls_key=%2Fc.key&wake_up_timeout=90s")
	if err != nil {
		t.Fatal(err)
	}
	if c.JWT != "aaa.bbb.ccc" || c.SSHKey != "/k/id" || c.SSHKeyPassphrase != "pp x" || c.TLSCert != "/c.crt" ||
		c.TLSKey != "/c.key" || c.WakeUpTimeout != 90*time.Second || len(c.Settings) != 0 {
		t.Fatalf("parsed %+v", c)
	}
	back, err := Parse(c.FormatDSN())
	if err != nil || back.FormatDSN() != c.FormatDSN() || back.JWT != c.JWT || back.SSHKeyPassphrase != c.SSHKeyPassphrase {
		t.Fatalf("round trip %q: %v", c.FormatDSN(), err)
	}
	for _, s := range []string{c.String(), c.GoString(), fmt.Sprintf("%v %+v %s", c, *c, c)} {
		if strings.Contains(s, "aaa.bbb") || strings.Contains(s, "pp+x") || strings.Contains(s, "pp x") {
			t.Errorf("a secret is printed: %s", s)
		}
	}
	if d := NewConfig(); d.WakeUpTimeout != 0 || d.JWT != "" {
		t.Errorf("defaults: wake_up_timeout %v, jwt %q; want off", d.WakeUpTimeout, d.JWT)
	}
}

func TestAuthKeysRefused(t *testing.T) {
	for dsn, key := range map[string]string{
		"clickhouse://h?secure=true&tls_cert=/c.crt":             KeyTLSCert,
		"clickhouse://h?secure=true&tls_key=/c.key":              KeyTLSCert,
		"clickhouse://h?tls_cert=/c.crt&tls_key=/c.key":          KeyTLSCert,
		"clickhouse://h?ssh_key_passphrase=hidden-pass":          KeySSHKeyPassphrase,
		"clickhouse://h?wake_up_timeout=-1s":                     KeyWakeUpTimeout,
		"clickhouse://h?wake_up_timeout=soon":                    KeyWakeUpTimeout,
		"clickhouse://h?jwt=hidden-tok&jwt=hidden-tok":           KeyJWT,
		"clickhouse://h?ssh_key_passphrase=%zzhidden&ssh_key=/k": KeySSHKeyPassphrase,
	} {
		_, err := Parse(dsn)
		var e *Error
		if !errors.As(err, &e) || e.Key != key {
			t.Errorf("Parse(%q) = %v, want an *Error for %s", dsn, err, key)
			continue
		}
		if strings.Contains(err.Error(), "hidden") {
			t.Errorf("Parse(%q): the error shows the secret: %v", dsn, err)
		}
	}
}
