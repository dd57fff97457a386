package chnative

import (
	"context"
	"database/sql"
	"errors"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/chnative/chnative/dsn"
	"github.com/chnative/chnative/internal/testenv"
)

// A DSN naming the wrong port of a real server fails with a *DialError whose Hint names the
// mistake, instead of a bare protocol error.

func dialHint(t *testing.T, dsnStr string) *DialError {
	t.Helper()
	db, err := sql.Open("chnative", dsnStr)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.PingContext(context.Background())
	var de *DialError
	if !errors.As(err, &de) {
		t.Fatalf("Ping(%s) = %v, want a *DialError", dsnStr, err)
	}
	return de
}

func TestDialHintHTTPPort(t *testing.T) {
	kind := testenv.Server(t)
	httpURL := os.Getenv("CHNATIVE_HTTP_URL")
	if httpURL == "" {
		httpURL, kind = testenv.ModernHTTPURL(t), testenv.Modern
	}
	u, err := url.Parse(httpURL)
	if err != nil {
		t.Fatal(err)
	}
	de := dialHint(t, "clickhouse://default@"+u.Host+"/default?dial_timeout=2s")
	switch kind {
	case testenv.Modern:
		// 26.7 answers the native Hello with an HTTP 400 response.
		if !strings.Contains(de.Hint, "speaks HTTP") || !strings.Contains(de.Error(), "native port") {
			t.Errorf("26.7's HTTP port: %v (hint %q)", de, de.Hint)
		}
	default:
		// 18.16's HTTP server waits for the end of a request that never comes.
		if !strings.Contains(de.Hint, "HTTP port") {
			t.Errorf("18.16's HTTP port: %v (hint %q)", de, de.Hint)
		}
	}
}

func TestDialHintTLS(t *testing.T) {
	port, _ := secureEnv(t)
	de := dialHint(t, "clickhouse://default@127.0.0.1:"+port+"/default?dial_timeout=2s")
	if !strings.Contains(de.Hint, "secure=true") {
		t.Errorf("the TLS port without secure=true: %v (hint %q)", de, de.Hint)
	}
	cfg, err := dsn.Parse(testenv.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	de = dialHint(t, "clickhouse://default@"+cfg.Addrs[0]+"/default?secure=true&skip_verify=true&dial_timeout=2s")
	if !strings.Contains(de.Hint, "does not speak TLS") {
		t.Errorf("secure=true on the plain port: %v (hint %q)", de, de.Hint)
	}
}
