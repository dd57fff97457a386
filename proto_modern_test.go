package chnative

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chnative/chnative/dsn"
	"github.com/chnative/chnative/internal/testenv"
	"github.com/chnative/chnative/nativeproto"
)

// Real-server tests of the protocol revisions 54461-54488 against the 26.7 server (revision
// 54488), with the advertised revision capped by protocol_revision. Tables are Memory tables:
// MergeTree parts may send sparse columns at 54465 and above, which sparse_server_test.go covers.

// modernAt opens the 26.7 server capped at rev, with extra DSN parameters.
func modernAt(t testing.TB, rev nativeproto.Revision, params ...string) *sql.DB {
	t.Helper()
	d := testenv.ModernDSN(t)
	params = append([]string{fmt.Sprint(dsn.KeyProtocolRevision, "=", uint64(rev))}, params...)
	sep := "?"
	if strings.Contains(d, "?") {
		sep = "&"
	}
	db, err := sql.Open("chnative", d+sep+strings.Join(params, "&"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func modernConn(t testing.TB, rev nativeproto.Revision, params ...string) *sql.Conn {
	t.Helper()
	c, err := modernAt(t, rev, params...).Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestModernNegotiation connects to 26.7 with the revisions the cap key is for (the oldest, the
// driver's default of today, and the highest implemented), and others around gates, and runs a
// round trip on each with and without compression.
func TestModernNegotiation(t *testing.T) {
	for _, rev := range []nativeproto.Revision{nativeproto.OldestRevision, 54460, 54464, 54474, 54479, 54481, 54486, nativeproto.LatestRevision} {
		for _, comp := range []string{"none", "lz4", "zstd"} {
			t.Run(fmt.Sprint(rev, comp), func(t *testing.T) {
				db := modernAt(t, rev, "compress="+comp)
				si := serverInfo(t, db)
				if si.Revision != 54488 || si.Advertised != uint64(rev) || si.Negotiated != uint64(rev) || si.Version() != "26.7.2" {
					t.Fatalf("server info %+v", si)
				}
				// Fields of the Hello exist from their revisions on.
				if rev.Has(nativeproto.RevServerSettings) != (si.Settings != nil) ||
					rev.Has(nativeproto.RevQueryPlanSerialization) != (si.QueryPlanVersion != 0) ||
					rev.Has(nativeproto.RevVersionedClusterFunction) != (si.ClusterFunctionVersion == 8) {
					t.Fatalf("rev %d: settings %v, plan %d, cluster function %d", rev, si.Settings, si.QueryPlanVersion, si.ClusterFunctionVersion)
				}
				if len(si.PasswordRules) != 0 {
					t.Fatalf("password rules %v (the test server has none)", si.PasswordRules)
				}
				table := createTable(t, db, "proto_neg", "id UInt64, s String, n Nullable(Int32), lc LowCardinality(String), a Array(UInt16), t DateTime")
				const n = 5000
				err := withBatch(t, db, context.Background(), "INSERT INTO "+table, func(b *Batch) error {
					for i := range n {
						var nv any
						if i%3 == 0 {
							nv = int32(i)
						}
						if err := b.Append(uint64(i), fmt.Sprint("s", i), nv, fmt.Sprint("lc", i%4), []uint16{uint16(i), 1}, time.Unix(int64(i), 0)); err != nil {
							return err
						}
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				rows, err := db.Query("SELECT id, s, n, lc, a, t FROM " + table + " ORDER BY id")
				if err != nil {
					t.Fatal(err)
				}
				defer rows.Close()
				i := 0
				for rows.Next() {
					var id uint64
					var s, lc string
					var nv sql.NullInt32
					var a any
					var tm time.Time
					if err := rows.Scan(&id, &s, &nv, &lc, &a, &tm); err != nil {
						t.Fatal(err)
					}
					if id != uint64(i) || s != fmt.Sprint("s", i) || nv.Valid != (i%3 == 0) || lc != fmt.Sprint("lc", i%4) ||
						fmt.Sprint(a) != fmt.Sprint([]uint16{uint16(i), 1}) || tm.Unix() != int64(i) {
						t.Fatalf("row %d: %d %q %v %q %v %v", i, id, s, nv, lc, a, tm)
					}
					i++
				}
				if err := rows.Err(); err != nil || i != n {
					t.Fatalf("%d rows, %v", i, err)
				}
			})
		}
	}
}

// TestModernServerSettings: from 54474 the Hello carries the session's changed settings, which
// ServerInfo exposes; they are the ones system.settings says are changed.
func TestModernServerSettings(t *testing.T) {
	db := modernAt(t, nativeproto.LatestRevision)
	si := serverInfo(t, db)
	if len(si.Settings) == 0 {
		t.Fatal("no server settings at 54488")
	}
	rows, err := db.Query("SELECT name, value FROM system.settings WHERE changed")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	changed := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			t.Fatal(err)
		}
		changed[k] = v
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for k, v := range si.Settings {
		if changed[k] != v {
			t.Errorf("Hello setting %s = %q, system.settings says %q", k, v, changed[k])
		}
	}
	if si.Settings["max_execution_time"] == "" {
		t.Errorf("settings %v lack the launcher's max_execution_time", si.Settings)
	}
	if got := serverInfo(t, modernAt(t, nativeproto.RevServerSettings-1)).Settings; got != nil {
		t.Fatalf("settings below 54474: %v", got)
	}
}

// TestModernSessionTimezone: zone-less DateTime values are read in the session's time zone. 26.7
// sends a TimezoneUpdate only after the header of an INSERT ... SELECT FROM input(), so the
// driver also follows SET session_timezone and the session_timezone setting of a query.
func TestModernSessionTimezone(t *testing.T) {
	ctx := context.Background()
	check := func(t *testing.T, c *sql.Conn, qctx context.Context, want string) {
		t.Helper()
		var tm time.Time
		var text, tz string
		if err := c.QueryRowContext(qctx, "SELECT toDateTime(1700000000) AS t, toString(t), timezone()").Scan(&tm, &text, &tz); err != nil {
			t.Fatal(err)
		}
		if tm.Location().String() != want || tz != want || tm.Unix() != 1700000000 || tm.Format(time.DateTime) != text {
			t.Fatalf("read %v (%s), the server renders %s in %s; want %s", tm, tm.Location(), text, tz, want)
		}
	}
	for _, tt := range []struct {
		rev  nativeproto.Revision
		comp string
	}{
		{nativeproto.LatestRevision, "none"}, {nativeproto.LatestRevision, "lz4"},
		{nativeproto.RevTimezoneUpdates, "none"}, {nativeproto.RevTimezoneUpdates - 1, "none"},
	} {
		rev := tt.rev
		t.Run(fmt.Sprint(rev, "_", tt.comp), func(t *testing.T) {
			// With compression the TimezoneUpdate stays uncompressed and the TableColumns before
			// the input() header comes compressed.
			c := modernConn(t, rev, "compress="+tt.comp)
			check(t, c, ctx, "Etc/UTC")
			mustExec(t, c, "SET session_timezone = 'Asia/Tokyo'")
			check(t, c, ctx, "Asia/Tokyo")
			// A query's own session_timezone is that query's.
			check(t, c, WithSettings(ctx, Settings{"session_timezone": "America/New_York"}), "America/New_York")
			check(t, c, ctx, "Asia/Tokyo")
			// The input() insert: a zone set in its SETTINGS clause (which the driver does not read)
			// comes back in a TimezoneUpdate from 54464 on, and the connection follows it as
			// clickhouse-client does; below 54464 nothing comes.
			db := modernAt(t, rev)
			table := createTable(t, db, "proto_tz", "t DateTime")
			if _, err := c.ExecContext(ctx, "INSERT INTO "+table+" SELECT t FROM input('t DateTime') SETTINGS session_timezone = 'America/Denver' FORMAT Native",
				time.Unix(1700000000, 0)); err != nil {
				t.Fatal(err)
			}
			want := "Asia/Tokyo"
			if rev.Has(nativeproto.RevTimezoneUpdates) {
				want = "America/Denver"
			}
			var loc string
			_ = c.Raw(func(dc any) error { loc = dc.(Conn).Location().String(); return nil })
			if loc != want {
				t.Fatalf("after the input() insert the connection's zone is %s, want %s", loc, want)
			}
			var n int
			if err := c.QueryRowContext(ctx, "SELECT count() FROM "+table+" WHERE t = toDateTime(1700000000)").Scan(&n); err != nil || n != 1 {
				t.Fatalf("inserted row: %d, %v", n, err)
			}
			mustExec(t, c, "SET session_timezone = ''")
			check(t, c, ctx, "Etc/UTC")
		})
	}
}

// TestModernProgressAndProfileInfo checks the Progress fields around total_bytes_to_read (54463)
// and ProfileInfo's rows_before_aggregation (54469) against what 26.7 counts.
func TestModernProgressAndProfileInfo(t *testing.T) {
	for _, rev := range []nativeproto.Revision{54462, 54463, 54468, 54469, nativeproto.LatestRevision} {
		t.Run(fmt.Sprint(rev), func(t *testing.T) {
			db := modernAt(t, rev)
			var p Progress
			var pi ProfileInfo
			ctx := WithProgress(context.Background(), func(x Progress) { p = x })
			ctx = WithProfileInfo(ctx, func(x ProfileInfo) { pi = x })
			q := "SELECT number % 10 AS k, count() FROM numbers(100000) GROUP BY k ORDER BY k LIMIT 3 SETTINGS rows_before_aggregation = 1"
			if n, err := readAll(ctx, db, q); err != nil || n != 3 {
				t.Fatalf("%d rows, %v", n, err)
			}
			// total_bytes_to_read follows total_rows_to_read from 54463: a misplaced field would
			// shift the written counters and the elapsed time. 26.7 reports 0 total bytes for
			// numbers(), Memory, MergeTree, file() and url() sources.
			if p.ReadRows != 100000 || p.ReadBytes != 800000 || p.TotalRows != 100000 || p.TotalBytes != 0 ||
				p.WrittenRows != 0 || p.Elapsed <= 0 {
				t.Fatalf("progress %+v", p)
			}
			wantAgg := rev.Has(nativeproto.RevRowsBeforeAggregation)
			if pi.Rows != 3 || !pi.AppliedLimit || pi.RowsBeforeLimit != 10 || pi.AppliedAggregation != wantAgg ||
				(pi.RowsBeforeAggregation == 100000) != wantAgg {
				t.Fatalf("profile info %+v", pi)
			}
			table := createTable(t, db, "proto_progress", "a UInt64")
			p = Progress{}
			if _, err := db.ExecContext(ctx, "INSERT INTO "+table+" SELECT number FROM numbers(1000)"); err != nil {
				t.Fatal(err)
			}
			if p.WrittenRows != 1000 || p.WrittenBytes != 8000 || p.ReadRows != 1000 || p.TotalBytes != 0 {
				t.Fatalf("insert progress %+v", p)
			}
		})
	}
}

// TestModernCompressedPackets: from 54481 with compression on, TableColumns (whole) and the
// blocks of Log and ProfileEvents packets are compressed too.
func TestModernCompressedPackets(t *testing.T) {
	for _, rev := range []nativeproto.Revision{54480, 54481, nativeproto.LatestRevision} {
		for _, comp := range []string{"lz4", "zstd", "none"} {
			t.Run(fmt.Sprint(rev, comp), func(t *testing.T) {
				db := modernAt(t, rev, "compress="+comp)
				var events []ProfileEvent
				ctx := WithProfileEvents(context.Background(), func(e []ProfileEvent) { events = append(events, e...) })
				if n, err := readAll(ctx, db, "SELECT number FROM numbers(100000)"); err != nil || n != 100000 {
					t.Fatalf("%d rows, %v", n, err)
				}
				names := map[string]bool{}
				for _, e := range events {
					names[e.Name] = true
				}
				if !names["SelectedRows"] || events[0].Host == "" || events[0].Type == "" {
					t.Fatalf("%d profile events, names %v", len(events), names)
				}
				// Log packets: a raw table name, then the block, compressed as ProfileEvents'.
				var logs []Log
				lctx := WithSettings(WithLogs(context.Background(), func(l Log) { logs = append(logs, l) }), Settings{"send_logs_level": "debug"})
				if n, err := readAll(lctx, db, "SELECT count() FROM numbers(1000)"); err != nil || n != 1 {
					t.Fatalf("%d rows, %v", n, err)
				}
				if len(logs) == 0 || logs[0].Source == "" || logs[0].Text == "" || logs[0].QueryID == "" {
					t.Fatalf("logs %+v", logs)
				}
				table := createTable(t, db, "proto_comp", "a UInt64, s String")
				events = nil
				err := withBatch(t, db, ctx, "INSERT INTO "+table, func(b *Batch) error {
					for i := range 1000 {
						if err := b.Append(uint64(i), "x"); err != nil {
							return err
						}
					}
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				if count(t, db, table) != 1000 || len(events) == 0 {
					t.Fatalf("%d rows, %d insert profile events", count(t, db, table), len(events))
				}
			})
		}
	}
}

// TestModernExceptionsAndCancel: an exception during execution (after the header block on 26.7)
// and a cancelled result leave the connection in step, compressed or not, at 54488.
func TestModernExceptionsAndCancel(t *testing.T) {
	for _, comp := range []string{"none", "lz4"} {
		t.Run(comp, func(t *testing.T) {
			ctx := context.Background()
			c := modernConn(t, nativeproto.LatestRevision, "compress="+comp)
			var ex *Exception
			_, err := readAllConn(ctx, c, "SELECT throwIf(number = 3000, 'boom') FROM numbers(100000) SETTINGS max_block_size = 1000")
			if !errors.As(err, &ex) || ex.Code != 395 || !strings.Contains(ex.Message, "boom") {
				t.Fatalf("want exception 395, got %v", err)
			}
			if _, err := c.ExecContext(ctx, "SELECT * FROM no_such_table_proto"); !errors.As(err, &ex) || ex.Code != 60 {
				t.Fatalf("want exception 60, got %v", err)
			}
			// A result the server produces slowly (a block of 100 rows per 0.1 s): what is left
			// to drain after the Cancel is a block or two. A fast one (50M numbers) leaves the
			// socket buffers full, and decoding those under -race on a loaded two-core host can
			// outlast DrainTimeout, which closes the connection by design (bad, not in step:
			// rows_ahead_silent_test checks that bound).
			rows, err := c.QueryContext(ctx, "SELECT number, sleepEachRow(0.001) FROM system.numbers LIMIT 100000 SETTINGS max_block_size = 100")
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 10 && rows.Next(); i++ {
			}
			if err := rows.Close(); err != nil {
				t.Fatal(err)
			}
			var n uint64
			if err := c.QueryRowContext(ctx, "SELECT 42").Scan(&n); err != nil || n != 42 {
				t.Fatalf("after the cancel: %d, %v", n, err)
			}
		})
	}
}

// readAllConn is readAll on a *sql.Conn.
func readAllConn(ctx context.Context, c *sql.Conn, query string) (int, error) {
	rows, err := c.QueryContext(ctx, query)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	n := 0
	var v any
	for rows.Next() {
		if err := rows.Scan(&v); err != nil {
			return n, err
		}
		n++
	}
	return n, rows.Err()
}
