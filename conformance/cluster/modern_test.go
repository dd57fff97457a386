package cluster

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/chnative/chnative"
	"github.com/chnative/chnative/internal/testenv"
)

// TestModernShards runs a Batch insert and reads through the Distributed table of the two 26.7
// shards (MergeTree, cluster chnative_modern; they cannot replicate): the rows split over both
// shards and read back whole through either node.
func TestModernShards(t *testing.T) {
	cl := testenv.Cluster(t)
	db, _ := open(t, cl.ModernDSN(t, "connection_open_strategy=round_robin"), false)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	local, dist := cl.Database+".modern_local", cl.Database+".modern"
	for _, n := range cl.ModernNodes() {
		exec(t, nodeDB(t, cl, n.Name),
			"DROP TABLE IF EXISTS "+dist, "DROP TABLE IF EXISTS "+local,
			"CREATE TABLE "+local+" (id UInt64, v String) ENGINE = MergeTree ORDER BY id",
			"CREATE TABLE "+dist+" AS "+local+" ENGINE = Distributed("+cl.ModernName+", "+cl.Database+", modern_local, intHash64(id))")
	}
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	const n = 10_000
	err = c.Raw(func(dc any) error {
		b, err := dc.(chnative.Conn).PrepareBatch(ctx, "INSERT INTO "+dist+" (id, v)")
		if err != nil {
			return err
		}
		for i := range uint64(n) {
			if err := b.Append(i, fmt.Sprint(i)); err != nil {
				return err
			}
		}
		return b.SendContext(ctx)
	})
	c.Close()
	if err != nil {
		t.Fatal(err)
	}
	var parts []uint64
	for _, node := range cl.ModernNodes() {
		var total, here, sum uint64
		ndb := nodeDB(t, cl, node.Name)
		if err := ndb.QueryRowContext(ctx, "SELECT count(), sum(id) FROM "+dist).Scan(&total, &sum); err != nil {
			t.Fatal(err)
		}
		if err := ndb.QueryRowContext(ctx, "SELECT count() FROM "+local).Scan(&here); err != nil {
			t.Fatal(err)
		}
		if total != n || sum != n*(n-1)/2 {
			t.Errorf("%s: the Distributed table reads %d rows, sum %d; want %d, %d", node.Name, total, sum, n, n*(n-1)/2)
		}
		parts = append(parts, here)
	}
	if len(parts) != 2 || parts[0]+parts[1] != n || parts[0] == 0 || parts[1] == 0 {
		t.Errorf("shards hold %v rows, want two non-empty parts of %d", parts, n)
	}
	t.Logf("26.7 shards: %v rows of %d", parts, n)
}
