package chnative

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// recordedClientName returns the client name the server records for a running query (in
// system.processes, which both test servers have) on a connection opened with params.
func recordedClientName(t *testing.T, params ...string) string {
	t.Helper()
	db := openDB(t, params...)
	id := newQueryID()
	var name string
	q := "SELECT client_name FROM system.processes WHERE query_id = '" + id + "'"
	if err := db.QueryRowContext(WithQueryID(context.Background(), id), q).Scan(&name); err != nil {
		t.Fatal(err)
	}
	return name
}

// TestClientInfoProducts: the products of client_info_product come before the driver's own
// entry in the client name the server records, in clickhouse-go's layout
// ("app/1.2 lib/0.3 <driver>/<version> (database/sql; lv:go/<go version>; os:<os>)"), on both servers.
func TestClientInfoProducts(t *testing.T) {
	own := fmt.Sprintf("chnative/%d.%d.%d (database/sql; lv:go/%s; os:%s)", clientMajor, clientMinor, clientPatch,
		strings.TrimPrefix(runtime.Version(), "go"), runtime.GOOS)
	for _, tt := range []struct {
		params []string
		want   string
	}{
		{nil, own},
		{[]string{"client_info_product=myapp/1.2,lib/0.3"}, "myapp/1.2 lib/0.3 " + own},
		{[]string{"client_info_product=solo"}, "solo " + own},
		{[]string{"client_info_product=myapp/1.2", "client_name=custom"}, "myapp/1.2 custom"},
	} {
		if got := recordedClientName(t, tt.params...); got != tt.want {
			t.Errorf("%v: the server recorded client name %q, want %q", tt.params, got, tt.want)
		}
	}
}
