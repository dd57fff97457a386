// Package cluster holds chnative's tests against a real ClickHouse cluster on loopback
// (scripts/cluster.sh: ZooKeeper, two shards of two 18.16 replicas, two 26.7 shards): reads and
// inserts through one *sql.DB over all the replicas while replicas are killed, stalled and
// restarted, the back-off of a dead host, and ON CLUSTER DDL. RELIABILITY.md reports what they
// measure. The tests need CHNATIVE_CLUSTER_* (scripts/cluster.sh env); in CI they fail without.
package cluster
