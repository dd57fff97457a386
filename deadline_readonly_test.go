package chnative

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/chnative/chnative/internal/testenv"
)

// A context deadline and a read-only user (readonly=1, which may change no setting): the
// deadline is the driver's to keep (the socket's deadline, then Cancel), never a setting sent
// with the query, so every query of such a user works under a deadline, and a slow one is still
// stopped on the server when it passes. On both servers, whichever CHNATIVE_DSN names.
func TestReadOnlyUserDeadline(t *testing.T) {
	for _, srv := range []struct {
		name string
		dsn  func(testing.TB) string
	}{{"18.16", testenv.RODSN}, {"26.7", testenv.ModernRODSN}} {
		for _, comp := range []string{"none", "lz4"} {
			t.Run(srv.name+"/"+comp, func(t *testing.T) {
				ro := srv.dsn(t) + "?compress=" + comp
				db := openDSN(t, ro)
				admin := openDSN(t, asUser(t, srv.dsn(t), "default"))
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				var ro1 string
				if err := db.QueryRowContext(ctx, "SELECT value FROM system.settings WHERE name = 'readonly'").Scan(&ro1); err != nil {
					t.Fatalf("a query under a deadline as the read-only user: %v", err)
				}
				if ro1 != "1" {
					t.Fatalf("readonly = %s for %s, want 1: not the read-only user", ro1, testenv.ROUser)
				}
				if _, err := db.ExecContext(ctx, "SELECT 1"); err != nil {
					t.Fatalf("Exec under a deadline as the read-only user: %v", err)
				}
				if _, err := countRows(ctx, db, "SELECT number FROM (SELECT number FROM system.numbers LIMIT 100000)"); err != nil {
					t.Fatalf("a read of many rows under a deadline: %v", err)
				}

				// A query that runs for minutes, cut by a 1 s deadline (a readonly=1 user of 18.16 may
				// call no table function: system.numbers, with its LIMIT inside as 18.16 needs).
				id := fmt.Sprintf("chnative-ro-deadline-%s-%d", comp, time.Now().UnixNano())
				slow, cancelSlow := context.WithTimeout(WithQueryID(context.Background(), id), time.Second)
				defer cancelSlow()
				start := time.Now()
				_, err := countRows(slow, db, "SELECT count() FROM (SELECT number FROM system.numbers LIMIT 100000000000) WHERE NOT ignore(sipHash64(number))")
				took := time.Since(start)
				if !errors.Is(err, context.DeadlineExceeded) {
					t.Fatalf("the slow query ended with %v after %v, want context.DeadlineExceeded", err, took)
				}
				if took < 900*time.Millisecond || took > 2*time.Second {
					t.Errorf("the slow query ended after %v, want about its 1 s deadline", took)
				}
				// The server stops it (the Cancel the driver sends, or the closed connection).
				waitProcessGone(t, admin, id, 10*time.Second)
				// The connection is usable (drained) or was replaced; the user still reads.
				var one uint8
				if err := db.QueryRowContext(ctx, "SELECT toUInt8(1)").Scan(&one); err != nil || one != 1 {
					t.Fatalf("after the deadline: %d, %v", one, err)
				}
			})
		}
	}
}

// asUser returns dsn with its user replaced by user (no password).
func asUser(t testing.TB, dsn, user string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.User(user)
	return u.String()
}
