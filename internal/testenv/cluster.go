package testenv

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// The test cluster: scripts/cluster.sh starts it (ZooKeeper, four ClickHouse 18.16 replicas in
// two shards, two ClickHouse 26.7 shards) and prints these variables with `scripts/cluster.sh
// env`. Lists are comma-separated, in the order of CHNATIVE_CLUSTER_NODES.
//
// Design note: a test reaches the cluster only through these variables and the script they
// name, never through the state dir's files, so the script alone decides how nodes are started
// and stopped. Fault injection (Kill, Restart, Stall, Resume) runs the script as a child process
// bounded in time: the script finds the nodes' processes and serialises commands on one node.
const (
	EnvClusterHosts       = "CHNATIVE_CLUSTER_HOSTS"        // 127.0.0.1:PORT of s1r1,s1r2,s2r1,s2r2 (native protocol)
	EnvClusterNodes       = "CHNATIVE_CLUSTER_NODES"        // s1r1,s1r2,s2r1,s2r2
	EnvClusterHTTP        = "CHNATIVE_CLUSTER_HTTP"         // their HTTP URLs, http://127.0.0.1:PORT/
	EnvClusterModernHosts = "CHNATIVE_CLUSTER_MODERN_HOSTS" // 127.0.0.1:PORT of m1,m2 (26.7); empty without them
	EnvClusterModernNodes = "CHNATIVE_CLUSTER_MODERN_NODES" // m1,m2
	EnvClusterModernHTTP  = "CHNATIVE_CLUSTER_MODERN_HTTP"  // their HTTP URLs
	EnvClusterZK          = "CHNATIVE_CLUSTER_ZK"           // ZooKeeper's 127.0.0.1:PORT
	EnvClusterScript      = "CHNATIVE_CLUSTER_SCRIPT"       // absolute path of scripts/cluster.sh
	EnvClusterStateDir    = "CHNATIVE_CLUSTER_STATE_DIR"    // the script's state dir, passed back to it
	EnvClusterName        = "CHNATIVE_CLUSTER_NAME"         // remote_servers cluster of the 18.16 nodes: chnative
	EnvClusterModernName  = "CHNATIVE_CLUSTER_MODERN_NAME"  // that of the 26.7 nodes: chnative_modern
	EnvClusterDatabase    = "CHNATIVE_CLUSTER_DATABASE"     // database of the tables start made: chnative_cluster

	// EnvRequireCluster set to 1 makes a missing cluster a failure outside CI too.
	EnvRequireCluster = "CHNATIVE_REQUIRE_CLUSTER"
)

// ZooKeeperNode is the name of the cluster's ZooKeeper in Kill, Restart, Stall, Resume and Node.
const ZooKeeperNode = "zk"

// Bounds of the script commands: a kill, stall or resume is immediate; a restart may wait for
// a killed replica's ZooKeeper session to expire (6 s), the server to start and its replicated
// tables to become writable (at most 60 s each).
const (
	clusterSignalTimeout  = 30 * time.Second
	clusterRestartTimeout = 3 * time.Minute
)

// missingClusterMessage is the message given when the cluster's variables are not set.
const missingClusterMessage = EnvClusterHosts + " not set: run eval \"$(scripts/cluster.sh env)\" after scripts/cluster.sh start"

// ClusterNode is one ClickHouse node of the test cluster.
type ClusterNode struct {
	Name string // s1r1 (shard 1, replica 1), ..., m1, m2
	Addr string // host:port of its native protocol
	HTTP string // base URL of its HTTP interface, http://host:port/
}

// ClusterEnv is the test cluster as `scripts/cluster.sh env` describes it. Its methods that
// take a testing.TB call t.Fatal on a failure, so call them from the test's goroutine; Do is
// for other goroutines.
type ClusterEnv struct {
	Name       string // remote_servers cluster of the 18.16 nodes (2 shards x 2 replicas)
	ModernName string // remote_servers cluster of the 26.7 nodes (2 shards x 1 replica)
	Database   string // database of the tables made at start (events_local, events)
	ZK         string // ZooKeeper's host:port
	Script     string // absolute path of scripts/cluster.sh
	StateDir   string // the script's state dir ("" when the script's default)

	nodes  []ClusterNode // the 18.16 replicas, s1r1, s1r2, s2r1, s2r2
	modern []ClusterNode // the 26.7 shards, m1, m2
}

// Cluster returns the test cluster from the CHNATIVE_CLUSTER_* variables. When they are not set
// it calls t.Fatal in CI (see CI) or when CHNATIVE_REQUIRE_CLUSTER=1, and t.Skip elsewhere, as
// DSN does; it fails t when they are set but do not agree with one another.
func Cluster(t testing.TB) *ClusterEnv {
	t.Helper()
	if os.Getenv(EnvClusterHosts) == "" {
		if os.Getenv(EnvRequireCluster) == "1" {
			t.Fatal(missingClusterMessage + " (" + EnvRequireCluster + "=1)")
			return nil
		}
		missing(t, missingClusterMessage)
		return nil
	}
	c, err := clusterFromEnv(os.Getenv)
	if err != nil {
		t.Fatalf("testenv: %v", err)
		return nil
	}
	return c
}

// clusterFromEnv builds a ClusterEnv from the variables getenv returns.
func clusterFromEnv(getenv func(string) string) (*ClusterEnv, error) {
	c := &ClusterEnv{
		Name:       orDefault(getenv(EnvClusterName), "chnative"),
		ModernName: orDefault(getenv(EnvClusterModernName), "chnative_modern"),
		Database:   orDefault(getenv(EnvClusterDatabase), "chnative_cluster"),
		ZK:         getenv(EnvClusterZK),
		Script:     getenv(EnvClusterScript),
		StateDir:   getenv(EnvClusterStateDir),
	}
	var err error
	if c.nodes, err = clusterNodes(getenv, EnvClusterNodes, EnvClusterHosts, EnvClusterHTTP); err != nil {
		return nil, err
	}
	if len(c.nodes) == 0 {
		return nil, fmt.Errorf("%s is empty", EnvClusterHosts)
	}
	if c.modern, err = clusterNodes(getenv, EnvClusterModernNodes, EnvClusterModernHosts, EnvClusterModernHTTP); err != nil {
		return nil, err
	}
	if c.Script == "" {
		return nil, fmt.Errorf("%s is set but %s is not: set both from scripts/cluster.sh env", EnvClusterHosts, EnvClusterScript)
	}
	return c, nil
}

// clusterNodes zips the comma lists in the variables names, addrs and urls.
func clusterNodes(getenv func(string) string, names, addrs, urls string) ([]ClusterNode, error) {
	a := splitList(getenv(addrs))
	n := splitList(getenv(names))
	u := splitList(getenv(urls))
	if len(n) != len(a) || len(u) != len(a) {
		return nil, fmt.Errorf("%s, %s and %s do not agree: %d names, %d addresses, %d URLs",
			names, addrs, urls, len(n), len(a), len(u))
	}
	nodes := make([]ClusterNode, len(a))
	for i := range a {
		if !strings.Contains(a[i], ":") {
			return nil, fmt.Errorf("%s: %q is not host:port", addrs, a[i])
		}
		nodes[i] = ClusterNode{Name: n[i], Addr: a[i], HTTP: u[i]}
	}
	return nodes, nil
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// Nodes returns the 18.16 replicas in the order s1r1, s1r2, s2r1, s2r2. The slice is the
// caller's.
func (c *ClusterEnv) Nodes() []ClusterNode { return append([]ClusterNode(nil), c.nodes...) }

// ModernNodes returns the 26.7 shards m1, m2, or none when the cluster runs without them. The
// slice is the caller's.
func (c *ClusterEnv) ModernNodes() []ClusterNode { return append([]ClusterNode(nil), c.modern...) }

// Hosts returns the host:port of every 18.16 replica, in the order of Nodes.
func (c *ClusterEnv) Hosts() []string { return addrs(c.nodes) }

// ModernHosts returns the host:port of the 26.7 shards (none when the cluster runs without them).
func (c *ClusterEnv) ModernHosts() []string { return addrs(c.modern) }

func addrs(nodes []ClusterNode) []string {
	out := make([]string, len(nodes))
	for i, n := range nodes {
		out[i] = n.Addr
	}
	return out
}

// Node returns the host:port of the node named name: a replica (s1r1, ...), a 26.7 shard (m1,
// m2) or ZooKeeperNode. It panics on an unknown name: a test with a typo must not dial "".
func (c *ClusterEnv) Node(name string) string {
	if name == ZooKeeperNode && c.ZK != "" {
		return c.ZK
	}
	for _, list := range [][]ClusterNode{c.nodes, c.modern} {
		for _, n := range list {
			if n.Name == name {
				return n.Addr
			}
		}
	}
	panic(fmt.Sprintf("testenv: the cluster has no node %q (nodes: %s)", name, strings.Join(c.names(), ", ")))
}

func (c *ClusterEnv) names() []string {
	var out []string
	for _, list := range [][]ClusterNode{c.nodes, c.modern} {
		for _, n := range list {
			out = append(out, n.Name)
		}
	}
	return append(out, ZooKeeperNode)
}

// DSN returns a DSN, user default without a password, database Database, over hosts (every
// 18.16 replica when none is given) with query ("" or key=value&... without the '?') appended.
func (c *ClusterEnv) DSN(query string, hosts ...string) string {
	if len(hosts) == 0 {
		hosts = c.Hosts()
	}
	dsn := "clickhouse://default@" + strings.Join(hosts, ",") + "/" + c.Database
	if query != "" {
		dsn += "?" + query
	}
	return dsn
}

// ModernDSN is DSN over the 26.7 shards (when hosts is empty). It skips t, or fails it in CI,
// when the cluster runs without them.
func (c *ClusterEnv) ModernDSN(t testing.TB, query string, hosts ...string) string {
	t.Helper()
	if len(hosts) == 0 {
		if len(c.modern) == 0 {
			missing(t, "the test cluster runs without 26.7 nodes ("+EnvClusterModernHosts+" is empty)")
			return ""
		}
		hosts = c.ModernHosts()
	}
	return c.DSN(query, hosts...)
}

// Kill SIGKILLs the node's processes (scripts/cluster.sh kill NODE).
func (c *ClusterEnv) Kill(t testing.TB, node string) { t.Helper(); c.run(t, "kill", node) }

// Restart starts the node again on the same ports with the same data, stopping it first if it
// runs, and returns once it answers (an 18.16 replica: once its replicated tables are writable).
func (c *ClusterEnv) Restart(t testing.TB, node string) { t.Helper(); c.run(t, "restart", node) }

// Stall SIGSTOPs the node's processes: its sockets stay open, nothing answers. A replica
// stalled longer than its ZooKeeper session (6 s) has read-only tables for a while after Resume.
func (c *ClusterEnv) Stall(t testing.TB, node string) { t.Helper(); c.run(t, "stall", node) }

// Resume SIGCONTs a stalled node.
func (c *ClusterEnv) Resume(t testing.TB, node string) { t.Helper(); c.run(t, "resume", node) }

func (c *ClusterEnv) run(t testing.TB, command, node string) {
	t.Helper()
	if err := c.Do(context.Background(), command, node); err != nil {
		t.Fatalf("testenv: %v", err)
	}
}

// Do runs `scripts/cluster.sh COMMAND NODE` (kill, restart, stall or resume) and returns an
// error with the script's output when it fails. It is bounded by ctx and by the command's own
// limit (30 s, 3 min for a restart), and safe to call from any goroutine.
func (c *ClusterEnv) Do(ctx context.Context, command, node string) error {
	limit := clusterSignalTimeout
	switch command {
	case "restart":
		limit = clusterRestartTimeout
	case "kill", "stall", "resume":
	default:
		return fmt.Errorf("cluster command %q: want kill, restart, stall or resume", command)
	}
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", c.Script, command, node)
	cmd.Env = os.Environ()
	if c.StateDir != "" {
		cmd.Env = append(cmd.Env, EnvClusterStateDir+"="+c.StateDir)
	}
	// The script's daemons do not inherit its output, but a stuck child must not hold Wait.
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("%w (limit %v)", ctx.Err(), limit)
		}
		return fmt.Errorf("%s %s %s: %v\n%s", c.Script, command, node, err, strings.TrimSpace(string(out)))
	}
	return nil
}
