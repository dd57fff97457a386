package testenv

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// clusterVars is what `scripts/cluster.sh env` prints, with a fake script.
func clusterVars(script string) map[string]string {
	return map[string]string{
		EnvClusterHosts:       "127.0.0.1:9001,127.0.0.1:9002,127.0.0.1:9003,127.0.0.1:9004",
		EnvClusterNodes:       "s1r1,s1r2,s2r1,s2r2",
		EnvClusterHTTP:        "http://127.0.0.1:8001/,http://127.0.0.1:8002/,http://127.0.0.1:8003/,http://127.0.0.1:8004/",
		EnvClusterModernHosts: "127.0.0.1:9101,127.0.0.1:9102",
		EnvClusterModernNodes: "m1,m2",
		EnvClusterModernHTTP:  "http://127.0.0.1:8101/,http://127.0.0.1:8102/",
		EnvClusterZK:          "127.0.0.1:2181",
		EnvClusterScript:      script,
		EnvClusterStateDir:    "/tmp/some-cluster",
		EnvClusterName:        "chnative",
		EnvClusterModernName:  "chnative_modern",
		EnvClusterDatabase:    "chnative_cluster",
	}
}

func setClusterVars(t *testing.T, vars map[string]string) {
	t.Helper()
	for k, v := range vars {
		t.Setenv(k, v)
	}
}

func TestClusterMissing(t *testing.T) {
	for _, tc := range []struct {
		ci, require string
		wantFatal   bool
	}{
		{"", "", false},
		{"true", "", true},
		{"1", "", true},
		{"", "1", true},
		{"", "0", false},
	} {
		t.Run("CI="+tc.ci+",require="+tc.require, func(t *testing.T) {
			t.Setenv("CI", tc.ci)
			t.Setenv(EnvRequireCluster, tc.require)
			t.Setenv(EnvClusterHosts, "")
			f := &fakeTB{}
			if c := Cluster(f); c != nil {
				t.Errorf("Cluster = %+v, want nil", c)
			}
			if f.fatal != tc.wantFatal || f.skipped == tc.wantFatal {
				t.Errorf("fatal=%v skipped=%v, want fatal=%v", f.fatal, f.skipped, tc.wantFatal)
			}
			if !strings.Contains(f.msg, EnvClusterHosts+" not set") || !strings.Contains(f.msg, "scripts/cluster.sh start") {
				t.Errorf("message %q does not say what is missing and how to fix it", f.msg)
			}
		})
	}
}

func TestClusterFromEnv(t *testing.T) {
	t.Setenv("CI", "true")
	setClusterVars(t, clusterVars("/repo/scripts/cluster.sh"))
	f := &fakeTB{}
	c := Cluster(f)
	if f.fatal || f.skipped || c == nil {
		t.Fatalf("Cluster: fatal=%v skipped=%v (%s)", f.fatal, f.skipped, f.msg)
	}
	if got := strings.Join(c.Hosts(), ","); got != os.Getenv(EnvClusterHosts) {
		t.Errorf("Hosts = %s", got)
	}
	if got := strings.Join(c.ModernHosts(), ","); got != "127.0.0.1:9101,127.0.0.1:9102" {
		t.Errorf("ModernHosts = %s", got)
	}
	nodes := c.Nodes()
	if len(nodes) != 4 || nodes[2] != (ClusterNode{Name: "s2r1", Addr: "127.0.0.1:9003", HTTP: "http://127.0.0.1:8003/"}) {
		t.Errorf("Nodes = %+v", nodes)
	}
	nodes[0].Name = "changed"
	if c.Nodes()[0].Name != "s1r1" {
		t.Error("Nodes returned the ClusterEnv's own slice")
	}
	if m := c.ModernNodes(); len(m) != 2 || m[1].HTTP != "http://127.0.0.1:8102/" {
		t.Errorf("ModernNodes = %+v", m)
	}
	for name, want := range map[string]string{"s1r2": "127.0.0.1:9002", "s2r2": "127.0.0.1:9004", "m1": "127.0.0.1:9101", ZooKeeperNode: "127.0.0.1:2181"} {
		if got := c.Node(name); got != want {
			t.Errorf("Node(%s) = %s, want %s", name, got, want)
		}
	}
	if c.Name != "chnative" || c.ModernName != "chnative_modern" || c.Database != "chnative_cluster" ||
		c.Script != "/repo/scripts/cluster.sh" || c.StateDir != "/tmp/some-cluster" || c.ZK != "127.0.0.1:2181" {
		t.Errorf("ClusterEnv = %+v", c)
	}
	if got, want := c.DSN(""), "clickhouse://default@127.0.0.1:9001,127.0.0.1:9002,127.0.0.1:9003,127.0.0.1:9004/chnative_cluster"; got != want {
		t.Errorf("DSN = %s, want %s", got, want)
	}
	if got, want := c.DSN("connection_open_strategy=round_robin", c.Node("s1r1"), c.Node("s2r1")),
		"clickhouse://default@127.0.0.1:9001,127.0.0.1:9003/chnative_cluster?connection_open_strategy=round_robin"; got != want {
		t.Errorf("DSN = %s, want %s", got, want)
	}
	if got, want := c.ModernDSN(f, "x=1"), "clickhouse://default@127.0.0.1:9101,127.0.0.1:9102/chnative_cluster?x=1"; got != want || f.fatal {
		t.Errorf("ModernDSN = %s (fatal=%v), want %s", got, f.fatal, want)
	}
}

func TestClusterWithoutModernNodes(t *testing.T) {
	t.Setenv("CI", "")
	v := clusterVars("/repo/scripts/cluster.sh")
	v[EnvClusterModernHosts], v[EnvClusterModernNodes], v[EnvClusterModernHTTP] = "", "", ""
	v[EnvClusterName] = "" // the default
	setClusterVars(t, v)
	f := &fakeTB{}
	c := Cluster(f)
	if c == nil || f.fatal || f.skipped {
		t.Fatalf("Cluster: fatal=%v skipped=%v (%s)", f.fatal, f.skipped, f.msg)
	}
	if len(c.ModernHosts()) != 0 || c.Name != "chnative" {
		t.Errorf("ModernHosts = %v, Name = %q", c.ModernHosts(), c.Name)
	}
	if got := c.ModernDSN(f, ""); got != "" || !f.skipped {
		t.Errorf("ModernDSN = %q, skipped=%v: want a skip", got, f.skipped)
	}
}

func TestClusterEnvDisagrees(t *testing.T) {
	for name, change := range map[string]func(map[string]string){
		"fewer names":     func(v map[string]string) { v[EnvClusterNodes] = "s1r1,s1r2" },
		"fewer URLs":      func(v map[string]string) { v[EnvClusterHTTP] = "http://127.0.0.1:8001/" },
		"modern mismatch": func(v map[string]string) { v[EnvClusterModernNodes] = "m1" },
		"no port":         func(v map[string]string) { v[EnvClusterHosts] = "a,b,c,d" },
		"no script":       func(v map[string]string) { v[EnvClusterScript] = "" },
		"only commas": func(v map[string]string) {
			v[EnvClusterHosts], v[EnvClusterNodes], v[EnvClusterHTTP] = ",", ",", ","
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Setenv("CI", "")
			v := clusterVars("/repo/scripts/cluster.sh")
			change(v)
			setClusterVars(t, v)
			f := &fakeTB{}
			if c := Cluster(f); c != nil || !f.fatal {
				t.Errorf("Cluster = %+v, fatal=%v: want a failure (even outside CI)", c, f.fatal)
			}
			if !strings.Contains(f.msg, "CHNATIVE_CLUSTER_") {
				t.Errorf("message %q names no variable", f.msg)
			}
		})
	}
}

func TestClusterNodeUnknown(t *testing.T) {
	c, err := clusterFromEnv(func(k string) string { return clusterVars("/x")[k] })
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		r := recover()
		if r == nil || !strings.Contains(r.(string), `no node "s3r1"`) || !strings.Contains(r.(string), "s2r2") {
			t.Errorf("recovered %v, want a panic naming the node and the known ones", r)
		}
	}()
	c.Node("s3r1")
}

// fakeScript writes a cluster.sh stand-in that records its arguments and state dir in log and
// runs body.
func fakeScript(t *testing.T, body string) (script, log string) {
	t.Helper()
	dir := t.TempDir()
	script, log = filepath.Join(dir, "cluster.sh"), filepath.Join(dir, "calls")
	text := "echo \"$* $CHNATIVE_CLUSTER_STATE_DIR\" >>" + log + "\n" + body + "\n"
	if err := os.WriteFile(script, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return script, log
}

func TestClusterFaults(t *testing.T) {
	script, log := fakeScript(t, "exit 0")
	c, err := clusterFromEnv(func(k string) string { return clusterVars(script)[k] })
	if err != nil {
		t.Fatal(err)
	}
	c.Kill(t, "s1r2")
	c.Restart(t, "s1r2")
	c.Stall(t, ZooKeeperNode)
	c.Resume(t, ZooKeeperNode)
	got, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	want := "kill s1r2 /tmp/some-cluster\nrestart s1r2 /tmp/some-cluster\nstall zk /tmp/some-cluster\nresume zk /tmp/some-cluster\n"
	if string(got) != want {
		t.Errorf("the script was called with\n%s\nwant\n%s", got, want)
	}
	if err := c.Do(context.Background(), "stop", "s1r1"); err == nil || !strings.Contains(err.Error(), `"stop"`) {
		t.Errorf("Do(stop) = %v, want an error refusing the command", err)
	}
}

func TestClusterFaultFails(t *testing.T) {
	script, _ := fakeScript(t, "echo 'cluster.sh: error: s1r2 is not running' >&2; exit 1")
	c, err := clusterFromEnv(func(k string) string { return clusterVars(script)[k] })
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeTB{}
	c.Stall(f, "s1r2")
	if !f.fatal || !strings.Contains(f.msg, "stall s1r2") || !strings.Contains(f.msg, "s1r2 is not running") {
		t.Errorf("fatal=%v msg=%q: want a failure with the command and the script's output", f.fatal, f.msg)
	}
}

func TestClusterFaultBounded(t *testing.T) {
	script, _ := fakeScript(t, "exec sleep 30")
	c, err := clusterFromEnv(func(k string) string { return clusterVars(script)[k] })
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	err = c.Do(ctx, "kill", "s1r1")
	if err == nil || !strings.Contains(err.Error(), "deadline exceeded") {
		t.Errorf("Do = %v, want a deadline error", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Do took %v after its context ended", d)
	}
}

// TestClusterServers checks the running cluster's nodes (skipped without one, as Cluster
// says): each answers a Hello as the server it should be.
func TestClusterServers(t *testing.T) {
	c := Cluster(t)
	for _, list := range []struct {
		nodes []ClusterNode
		want  Kind
	}{{c.Nodes(), Legacy}, {c.ModernNodes(), Modern}} {
		for _, n := range list.nodes {
			h, err := ProbeHello("clickhouse://default@"+n.Addr+"/default", 5*time.Second)
			if err != nil {
				t.Errorf("%s (%s): %v", n.Name, n.Addr, err)
				continue
			}
			if h.Kind() != list.want {
				t.Errorf("%s (%s) is %s, want %s", n.Name, n.Addr, h, list.want)
			}
		}
	}
}
