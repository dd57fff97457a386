package chgo

import (
	"context"
	"database/sql"
	"fmt"
	"math/big"
	"net"
	"strings"
	"testing"

	"github.com/paulmach/orb"
	"github.com/shopspring/decimal"

	"github.com/chnative/chnative/conformance/types"
	"github.com/chnative/chnative/internal/testenv"
)

// clickhouseGoStyle is database/sql code as clickhouse-go's users write it (its std examples'
// pattern: a table of the types they scan into orb, big.Int, net.IP, maps; rows inserted with
// Begin, Prepare("INSERT INTO t"), Exec per row and Commit; read back with QueryRow and Scan into
// their Go types). It runs on whichever driver db is, and returns what it printed.
func clickhouseGoStyle(ctx context.Context, db *sql.DB, table string) (string, error) {
	if _, err := db.ExecContext(ctx, `CREATE TABLE `+table+` (
		p Point, r Ring, poly Polygon, i Int128, u UInt256, ip4 IPv4, ip6 IPv6,
		tup Tuple(a UInt8, b String), n Nested(x UInt8, y String), d Decimal(18, 4),
		m Map(String, UInt64), s Array(Nullable(String)), t DateTime
	) ENGINE = Memory`); err != nil {
		return "", err
	}
	defer db.ExecContext(ctx, "DROP TABLE IF EXISTS "+table)
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return "", err
	}
	stmt, err := tx.PrepareContext(ctx, "INSERT INTO "+table)
	if err != nil {
		return "", err
	}
	x := "x"
	huge, _ := new(big.Int).SetString("115792089237316195423570985008687907853269984665640564039457584007913129639935", 10)
	for k := range 2 {
		if _, err := stmt.ExecContext(ctx,
			orb.Point{float64(k), 2.5},
			orb.Ring{{0, 0}, {1, float64(k)}, {0, 0}},
			orb.Polygon{{{0, 0}, {2, 0}, {0, 0}}, {}},
			big.NewInt(int64(-k)),
			huge,
			net.ParseIP("10.0.0.1"),
			net.ParseIP("2001:db8::1"),
			map[string]any{"a": uint8(k), "b": "t"},
			[]map[string]any{{"x": uint8(k), "y": "n"}},
			decimal.RequireFromString("1.25"),
			map[string]uint64{"k": uint64(k)},
			[]*string{&x, nil},
			int64(1700000000+k),
		); err != nil {
			return "", err
		}
	}
	if err := tx.Commit(); err != nil {
		return "", err
	}
	var out strings.Builder
	rows, err := db.QueryContext(ctx, "SELECT * FROM "+table+" ORDER BY i DESC")
	if err != nil {
		return "", err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			p        orb.Point
			r        orb.Ring
			poly     orb.Polygon
			i, u     big.Int
			ip4, ip6 net.IP
			tup      map[string]any
			n        []map[string]any
			d        decimal.Decimal
			m        map[string]uint64
			s        []*string
			ts       sql.NullTime
		)
		if err := rows.Scan(&p, &r, &poly, &i, &u, &ip4, &ip6, &tup, &n, &d, &m, &s, &ts); err != nil {
			return "", err
		}
		fmt.Fprintf(&out, "%v %v %v %s %s %v %v %v %v %s %v [%s %v] %v\n", p, r, poly, &i, &u, ip4, ip6, tup, n, d, m,
			*s[0], s[1], ts.Time.Unix())
	}
	return out.String(), rows.Err()
}

// TestClickHouseGoStyleCode runs the same clickhouse-go-style code through both drivers on 26.7:
// it must print the same on chnative as on clickhouse-go.
func TestClickHouseGoStyleCode(t *testing.T) {
	dsn, err := types.ModernDSN(testenv.ModernDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var outs [2]string
	for k, driver := range []string{"clickhouse", "chnative"} {
		db, err := sql.Open(driver, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if outs[k], err = clickhouseGoStyle(ctx, db, fmt.Sprintf("chgo_style_%s_%d", driver, seq())); err != nil {
			t.Fatalf("%s: %v", driver, err)
		}
	}
	if outs[0] != outs[1] || strings.Count(outs[1], "\n") != 2 {
		t.Fatalf("clickhouse-go printed\n%s\nchnative printed\n%s", outs[0], outs[1])
	}
	t.Logf("both printed:\n%s", outs[1])
}
