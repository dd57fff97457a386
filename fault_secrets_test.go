package chnative

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chnative/chnative/dsn"
	"github.com/chnative/chnative/internal/faketest"
	"github.com/chnative/chnative/internal/testenv"
)

// A password must never show in an error, a log line, a config's String or a panic.

const (
	secretPassword = "Zebra/S3cr3t-7781"   // raw
	secretEscaped  = "Zebra%2FS3cr3t-7781" // as written in a DSN
	secretCore     = "S3cr3t-7781"         // a fragment that must not leak either
)

// lockedBuffer is a log sink safe for the connector's concurrent use.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func checkNoSecret(t *testing.T, what string, v any) {
	t.Helper()
	for _, format := range []string{"%v", "%+v", "%#v", "%s", "%q"} {
		s := fmt.Sprintf(format, v)
		if strings.Contains(s, secretCore) || strings.Contains(s, "S3cr3t") {
			t.Errorf("%s printed with %s shows the password: %s", what, format, s)
		}
	}
}

func TestSecretsNeverShown(t *testing.T) {
	serverAddr(t)
	logs := &lockedBuffer{}
	logger := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))

	// open connects with the logger set and returns the error of a Ping and of a query.
	open := func(t *testing.T, dsnStr string) error {
		t.Helper()
		cfg, err := dsn.Parse(dsnStr)
		if err != nil {
			return err
		}
		cfg.Logger = logger
		checkNoSecret(t, "dsn.Config", cfg)
		checkNoSecret(t, "dsn.Config value", *cfg)
		c, err := NewConnector(cfg)
		if err != nil {
			return err
		}
		checkNoSecret(t, "Connector", c)
		db := sql.OpenDB(c)
		defer db.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := db.PingContext(ctx); err != nil {
			return err
		}
		_, err = db.ExecContext(ctx, "SELEC broken syntax")
		return err
	}

	p := newProxy(t)
	p.CutAfter(faketest.Down, 0)
	hangs := newProxy(t)
	hangs.SetMode(faketest.Blackhole)
	server := serverAddr(t)
	cases := []struct{ name, dsn string }{
		{"wrongPassword", "clickhouse://chnative:" + secretEscaped + "@" + server + "/default"},
		{"wrongPasswordOldForm", "tcp://" + server + "?username=chnative&password=" + secretEscaped},
		{"unknownUser", "clickhouse://nobody_here:" + secretEscaped + "@" + server + "/default"},
		{"unreachable", "clickhouse://chnative:" + secretEscaped + "@127.0.0.1:1/default?dial_timeout=2s"},
		{"unresolvable", "clickhouse://chnative:" + secretEscaped + "@no-such-host.invalid:9000/default?dial_timeout=2s"},
		{"handshakeCut", "clickhouse://chnative:" + secretEscaped + "@" + p.Addr() + "/default?dial_timeout=2s"},
		{"handshakeTimeout", "clickhouse://chnative:" + secretEscaped + "@" + hangs.Addr() + "/default?dial_timeout=300ms"},
		{"tlsToPlainPort", "clickhouse://chnative:" + secretEscaped + "@" + server + "/default?secure=true&skip_verify=true&dial_timeout=2s"},
		{"badPort", "clickhouse://chnative:" + secretEscaped + "@127.0.0.1:notaport/default"},
		{"badOption", "clickhouse://chnative:" + secretEscaped + "@127.0.0.1:9000/default?dial_timeout=soon"},
		{"badEscape", "clickhouse://chnative:" + secretEscaped + "%zz@127.0.0.1:9000/default"},
		{"badScheme", "mysql://chnative:" + secretEscaped + "@127.0.0.1:9000/default"},
		{"passwordInQuery", "clickhouse://127.0.0.1:9000/default?password=" + secretEscaped + "&compress=bogus"},
		{"twoPasswords", "clickhouse://chnative:" + secretEscaped + "@127.0.0.1:9000/default?password=other" + secretEscaped},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			func() {
				defer func() {
					if r := recover(); r != nil {
						checkNoSecret(t, "panic", r)
						t.Fatalf("panic: %v", r)
					}
				}()
				err = open(t, tc.dsn)
			}()
			if err == nil {
				t.Fatal("no error")
			}
			t.Log(err)
			checkNoSecret(t, "error", err)
			// The same through database/sql's own DSN path.
			if db, err := sql.Open("chnative", tc.dsn); err != nil {
				checkNoSecret(t, "sql.Open error", err)
			} else {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				checkNoSecret(t, "ping error", db.PingContext(ctx))
				cancel()
				db.Close()
			}
		})
	}
	if strings.Contains(logs.String(), secretCore) {
		t.Errorf("the logs show the password:\n%s", logs.String())
	}
	if !strings.Contains(logs.String(), "chnative") {
		t.Errorf("expected some debug logs, got %q", logs.String())
	}
}

// TestSecretsDriverConnPrinted prints the driver connection reached through sql.Conn.Raw with
// every verb: it holds the configuration and must not show the password.
func TestSecretsDriverConnPrinted(t *testing.T) {
	db, err := sql.Open("chnative", testenv.AuthDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	c, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	err = c.Raw(func(dc any) error {
		for _, format := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x"} {
			if s := fmt.Sprintf(format, dc); strings.Contains(s, testenv.AuthPassword) {
				t.Errorf("driver conn printed with %s shows the password: %s", format, s)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"%v", "%+v", "%s", "%q"} {
		if s := fmt.Sprintf(format, db); strings.Contains(s, testenv.AuthPassword) {
			t.Errorf("*sql.DB printed with %s shows the password", format)
		}
	}
}
