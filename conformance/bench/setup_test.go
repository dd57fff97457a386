package bench

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ClickHouse/ch-go"
	"github.com/ClickHouse/clickhouse-go/v2"

	_ "github.com/chnative/chnative"
	"github.com/chnative/chnative/conformance/bench/fakeserver"
)

// fakeAddr is the address of the fake server, which runs in a child process (this test binary
// re-executed with CHNATIVE_BENCH_FAKESERVER=1) so that the CPU and allocations measured in this
// process are the client's alone.
var fakeAddr string

// scale divides the row counts (BENCH_QUICK=1 sets 10).
var scale = 1

func TestMain(m *testing.M) {
	if os.Getenv("CHNATIVE_BENCH_FAKESERVER") == "1" {
		s, err := fakeserver.Start("127.0.0.1:0")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println(s.Addr())
		// Serve until the parent closes our stdin.
		_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
		os.Exit(0)
	}
	if os.Getenv("BENCH_QUICK") == "1" {
		scale = 10
	}
	if v, err := strconv.Atoi(os.Getenv("BENCH_SCALE")); err == nil && v > 0 {
		scale = v
	}
	noReal := os.Getenv("BENCH_NO_REAL") == "1"
	realServer.locate(noReal)
	modernServer.locate(noReal || os.Getenv("BENCH_NO_MODERN") == "1")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "CHNATIVE_BENCH_FAKESERVER=1")
	cmd.Stderr = os.Stderr
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "fake server:", err)
		os.Exit(1)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		fmt.Fprintln(os.Stderr, "fake server:", err)
		os.Exit(1)
	}
	fakeAddr = strings.TrimSpace(line)
	code := m.Run()
	stdin.Close()
	_ = cmd.Wait()
	os.Exit(code)
}

// rowsN scales a row count for quick runs.
func rowsN(n int) int { return max(n/scale, 1) }

// tableFor names the fake-server table of about total rows of shape, in blocks of 65536 rows.
func tableFor(shape string, total int, codec string) (string, int) {
	per := min(65536, total)
	blocks := (total + per - 1) / per
	name := fmt.Sprintf("%s_%dx%d", shape, per, blocks)
	if codec == "zstd" {
		name += "_zstd"
	}
	return name, per * blocks
}

// ---- clients ----

func chnativeDSN(addr, user, password, codec string, extra string) string {
	if codec == "" {
		codec = "none"
	}
	up := user
	if password != "" {
		up += ":" + password
	}
	s := fmt.Sprintf("clickhouse://%s@%s/default?compress=%s", up, addr, codec)
	if x := getenv("BENCH_CHNATIVE_DSN"); x != "" { // see run.sh
		s += "&" + x
	}
	if extra != "" {
		s += "&" + extra
	}
	return s
}

func openChnative(tb testing.TB, addr, user, password, codec string) *sql.DB {
	db, err := sql.Open("chnative", chnativeDSN(addr, user, password, codec, ""))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}

func chgoCompression(codec string) ch.Compression {
	switch codec {
	case "lz4":
		return ch.CompressionLZ4
	case "zstd":
		return ch.CompressionZSTD
	}
	return ch.CompressionDisabled
}

func openChgo(tb testing.TB, addr, user, password, codec string) *ch.Client {
	opts := ch.Options{Address: addr, User: user, Password: password,
		Compression: chgoCompression(codec), ReadTimeout: time.Minute}
	if m := serverCompressionMethod(codec); m != "" {
		opts.Settings = []ch.Setting{{Key: "network_compression_method", Value: m, Important: true}}
	}
	c, err := ch.Dial(context.Background(), opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	return c
}

func chgoOptions(addr, user, password, codec string, width int) *clickhouse.Options {
	o := &clickhouse.Options{
		Addr:         []string{addr},
		Auth:         clickhouse.Auth{Database: "default", Username: user, Password: password},
		DialTimeout:  10 * time.Second,
		ReadTimeout:  time.Minute,
		MaxOpenConns: width,
		MaxIdleConns: width,
	}
	switch codec {
	case "lz4":
		o.Compression = &clickhouse.Compression{Method: clickhouse.CompressionLZ4}
	case "zstd":
		o.Compression = &clickhouse.Compression{Method: clickhouse.CompressionZSTD}
	}
	return o
}

// serverCompressionMethod is the network_compression_method setting that makes a real server
// compress its results with codec. chnative sends it with compress=; ch-go and clickhouse-go's
// native protocol compress their own blocks with the codec asked for but do not send it, so a
// server answers them in its default, LZ4, whatever they asked: without it their ZSTD arms
// read LZ4 frames. ch-go gets it; clickhouse-go (v2.51) refuses a string value in its
// Settings ("unsupported data type"), so its ZSTD arms on real servers still read LZ4.
func serverCompressionMethod(codec string) string {
	switch codec {
	case "lz4", "zstd":
		return codec
	}
	return ""
}

func openClickhouseGo(tb testing.TB, addr, user, password, codec string, width int) clickhouse.Conn {
	c, err := clickhouse.Open(chgoOptions(addr, user, password, codec, width))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	return c
}

func openClickhouseGoDB(tb testing.TB, addr, user, password, codec string, width int) *sql.DB {
	db := clickhouse.OpenDB(chgoOptions(addr, user, password, codec, width))
	db.SetMaxOpenConns(width)
	db.SetMaxIdleConns(width)
	tb.Cleanup(func() { db.Close() })
	return db
}

// ---- measurement ----

func cpuNow() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// measure runs op once untimed (warm-up: connections, buffers), then in b.Loop, and reports per
// row: ns/row (wall), cpu-ns/row (this process's user+system CPU: the client's, since the fake
// server runs in another process), allocs/row and B/row. rows is the number of rows (or queries,
// for latency workloads) one op handles.
//
// The warm-up runs under the profiler label bench=warmup (and so do the goroutines it starts), so
// that a profile of the arm can leave it out: run.sh's profiles of missed targets pass
// -tagignore=bench=warmup to pprof. An insert arm's first op grows its columns from nothing to
// the block's size (later ops reuse them), which was 13-26% of its profile, none of the measure.
func measure(b *testing.B, rows int, op func() error) {
	b.Helper()
	if err := warmup(op); err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	cpu0 := cpuNow()
	n := 0
	for b.Loop() {
		if err := op(); err != nil {
			b.Fatal(err)
		}
		n++
	}
	cpu := cpuNow() - cpu0
	runtime.ReadMemStats(&m1)
	total := float64(n) * float64(rows)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/total, "ns/row")
	b.ReportMetric(float64(cpu.Nanoseconds())/total, "cpu-ns/row")
	b.ReportMetric(float64(m1.Mallocs-m0.Mallocs)/total, "allocs/row")
	b.ReportMetric(float64(m1.TotalAlloc-m0.TotalAlloc)/total, "B/row")
}

// warmup runs op with the profiler label bench=warmup (see measure).
func warmup(op func() error) (err error) {
	pprof.Do(context.Background(), pprof.Labels("bench", "warmup"), func(context.Context) { err = op() })
	return err
}

// sink keeps results alive.
var sink struct {
	sync.Mutex
	u uint64
	f float64
	a any
}

func getenv(k string) string { return os.Getenv(k) }
