//go:build linux

package hostile_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chnative/chnative"
	"github.com/chnative/chnative/nativeproto"
)

// envCase names the case a child process runs; the parent sets it.
const envCase = "CHNATIVE_HOSTILE_CASE"

// Bounds of one child process.
const (
	// childTimeout is how long a child may run: a case that hangs fails at this point.
	childTimeout = 20 * time.Second
	// caseDeadline is the context deadline of the hostile query; errDeadline is how soon its
	// error must come (well before the context would end it).
	caseDeadline = 10 * time.Second
	errDeadline  = 5 * time.Second
	// addressSpace is the child's RLIMIT_AS outside -race builds (race reserves terabytes of
	// address space for its shadow memory): a case that tries to allocate gigabytes dies of
	// out-of-memory here instead of slowing the machine.
	addressSpace = 4 << 30
	// blockLimit is the per-block allocation budget the child's DSN asks for
	// (block_memory_limit). Every hostile block must be refused before the client allocates
	// much more than this.
	blockLimit = "67108864" // 64 MiB
)

// slow is how many times the time bounds above a case gets: a case at block_memory_limit's
// default decodes up to 1 GiB before its refusal, which takes seconds, and under -race (which
// checks every byte the LZ4 decoder writes) half a minute on a loaded two-core machine.
func slow(c *hcase) time.Duration {
	switch {
	case !c.defaultLimit:
		return 1
	case raceBuild:
		return 18
	}
	return 6
}

// maxRSS is the peak resident set a child may reach, in MiB, unless its case says otherwise:
// a few hundred MiB for the test binary, the fake server and one refused block.
func maxRSS(c *hcase) int64 {
	n := int64(256)
	if c.rssMiB != 0 {
		n = int64(c.rssMiB)
	}
	if raceBuild {
		n *= 3 // shadow memory
	}
	return n
}

// TestHostile runs every case of the suite, each in a child process. In a child (envCase set),
// it runs that one case.
func TestHostile(t *testing.T) {
	cases := allCases()
	byName := map[string]*hcase{}
	for _, c := range cases {
		if byName[c.name] != nil {
			t.Fatalf("two cases named %s", c.name)
		}
		byName[c.name] = c
	}
	if name := os.Getenv(envCase); name != "" {
		c := byName[name]
		if c == nil {
			t.Fatalf("no case %s", name)
		}
		runChild(t, c)
		return
	}
	if os.Getenv("CHNATIVE_HOSTILE_STEP") == "done" {
		// scripts/test.sh ran the suite in its own step, in every build; its ./... passes
		// do not run it again.
		t.Logf("%d cases: run in scripts/test.sh's hostile step", len(cases))
		return
	}
	if len(cases) < 100 {
		t.Errorf("%d cases, want at least 100", len(cases))
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			runParent(t, c)
		})
	}
}

// runParent runs case c in a child process and fails on its crash, hang, failure or memory.
func runParent(t *testing.T, c *hcase) {
	ctx, cancel := context.WithTimeout(context.Background(), slow(c)*childTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestHostile$", "-test.count=1",
		"-test.timeout="+(3*slow(c)*childTimeout).String())
	cmd.Env = append(os.Environ(), envCase+"="+c.name)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = 2 * time.Second
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	var rss int64
	if cmd.ProcessState != nil {
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			rss = ru.Maxrss >> 10 // KiB on Linux
		}
	}
	summary := ""
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "hostile:") {
			summary = strings.TrimSpace(l)
		}
	}
	switch {
	case ctx.Err() != nil:
		t.Fatalf("child hung past %v (killed); output:\n%s", slow(c)*childTimeout, excerpt(out.String()))
	case err != nil:
		t.Fatalf("child failed (%v) after %v, peak RSS %d MiB: %s; output:\n%s", err, d.Round(time.Millisecond), rss,
			crash(out.String()), excerpt(out.String()))
	}
	if max := maxRSS(c); rss > max {
		t.Errorf("child's peak RSS %d MiB, bound %d MiB", rss, max)
	}
	t.Logf("%v, peak RSS %d MiB; %s", d.Round(time.Millisecond), rss, summary)
}

// excerpt keeps the start and the end of a long child output (a crash's reason comes first,
// then goroutine stacks).
func excerpt(s string) string {
	const n = 4000
	if len(s) > 2*n {
		return s[:n] + "\n...\n" + s[len(s)-n:]
	}
	return s
}

// crash returns the runtime's reason for a crash (fatal error, panic, race report), if any.
func crash(s string) string {
	for _, l := range strings.Split(s, "\n") {
		for _, p := range []string{"hostile: RSS watchdog", "fatal error:", "panic:", "WARNING: DATA RACE", "runtime: out of memory", "runtime: goroutine stack exceeds"} {
			if strings.HasPrefix(l, p) {
				return l
			}
		}
	}
	return "no crash"
}

// runChild runs case c in this process: the fake server, the good query, the hostile query
// through the case's tier, then the checks on the error, the connection and the goroutines.
func runChild(t *testing.T, c *hcase) {
	if !raceBuild {
		lim := syscall.Rlimit{Cur: addressSpace, Max: addressSpace}
		if err := syscall.Setrlimit(syscall.RLIMIT_AS, &lim); err != nil {
			t.Fatalf("RLIMIT_AS: %v", err)
		}
	}
	stop := watchRSS(maxRSS(c))
	defer stop()
	base := runtime.NumGoroutine()
	f := startFake(t, c)
	// read_timeout bounds each socket read: a case at the default limit decodes for seconds under
	// -race between two reads, which must not look like a stalled server (a transport failure,
	// retried).
	params := append([]string{"dial_timeout=5s", "read_timeout=" + (slow(c) * 5 * time.Second).String()}, c.params...)
	if !c.defaultLimit {
		params = append(params, "block_memory_limit="+blockLimit)
	}
	if c.comp != "" {
		params = append(params, "compress="+c.comp)
	}
	db, err := sql.Open("chnative", "clickhouse://default@"+f.srv.Addr()+"/default?"+strings.Join(params, "&"))
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)

	if c.body != nil {
		c.body(t, f, db)
	} else {
		hostileQuery(t, c, f, db)
	}

	if err := db.Close(); err != nil {
		t.Errorf("db.Close: %v", err)
	}
	f.srv.Close()
	settle(t, base)
}

// watchRSS samples the process's resident set every few milliseconds and ends the process when
// it passes max MiB: under -race there is no address-space limit, and a case that allocates
// gigabytes must not take the machine's memory before its parent sees the peak.
func watchRSS(max int64) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	page := int64(os.Getpagesize())
	go func() {
		defer close(finished)
		tk := time.NewTicker(5 * time.Millisecond)
		defer tk.Stop()
		for {
			select {
			case <-done:
				return
			case <-tk.C:
			}
			b, err := os.ReadFile("/proc/self/statm")
			if err != nil {
				continue
			}
			var size, resident int64
			if _, err := fmt.Sscan(string(b), &size, &resident); err != nil {
				continue
			}
			if rss := resident * page >> 20; rss > max {
				fmt.Printf("hostile: RSS watchdog: %d MiB resident, bound %d MiB: killed\n", rss, max)
				os.Exit(3)
			}
		}
	}()
	return func() { close(done); <-finished }
}

// hostileQuery runs the good query, the hostile one and the good one again, with the checks.
func hostileQuery(t *testing.T, c *hcase, f *fake, db *sql.DB) {
	if c.helloLie {
		// The Hello itself is the lie: no query can succeed, every one must fail cleanly.
		err := goodQuery(db)
		fmt.Printf("hostile: hello refused: %v\n", err)
		if err == nil {
			t.Fatal("a query succeeded on a server whose Hello lies")
		}
		checkKind(t, c, err)
		if n := f.queries.Load(); n != 0 {
			t.Errorf("the client sent %d queries after a Hello it should have refused", n)
		}
		return
	}
	if err := goodQuery(db); err != nil {
		t.Fatalf("good query before the hostile one: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), slow(c)*caseDeadline)
	defer cancel()
	start := time.Now()
	n, err := c.tier.run(ctx, db, c)
	d := time.Since(start)
	fmt.Printf("hostile: tier %s, %d rows, %v, attempts %d: %v\n", c.tier, n, d.Round(time.Millisecond), f.attempts.Load(), err)
	if c.want == wantOK {
		if err != nil {
			t.Fatalf("a valid answer failed: %v", err)
		}
		if n != c.wantRows {
			t.Fatalf("a valid answer read as %d rows, want %d", n, c.wantRows)
		}
	} else {
		if err == nil {
			t.Fatalf("hostile answer accepted: %d rows and no error", n)
		}
		checkKind(t, c, err)
		if d > slow(c)*errDeadline {
			t.Errorf("the error came after %v, want < %v", d, slow(c)*errDeadline)
		}
		if a := f.attempts.Load(); a != 1 && !c.retry {
			t.Errorf("the hostile query reached the server %d times: a lie was retried", a)
		}
	}
	err = goodQuery(db)
	if c.want != wantOK {
		// The connection that saw the lie must be closed, not handed back to the pool.
		waitFor(t, slow(c)*3*time.Second, func() bool { return f.closed.Load()+f.reused.Load() >= f.attempts.Load() },
			func() string {
				return fmt.Sprintf("%d of %d hostile connections closed by the client", f.closed.Load(), f.attempts.Load())
			})
		if r := f.reused.Load(); r > 0 {
			t.Errorf("the connection that got the hostile answer was used again for the next query (%d of %d)", r, f.attempts.Load())
		}
	}
	if err != nil {
		t.Fatalf("good query after the hostile one: %v", err)
	}
}

// checkKind checks the error's type against the case's want.
func checkKind(t *testing.T, c *hcase, err error) {
	t.Helper()
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		t.Errorf("the error is the context's, not the driver's: %v", err)
	}
	switch c.want {
	case wantProto:
		var pe *chnative.ProtocolError
		if !errors.As(err, &pe) {
			t.Errorf("error %T is not a *chnative.ProtocolError: %v", err, err)
		}
	case wantException:
		var ex *chnative.Exception
		if !errors.As(err, &ex) {
			t.Errorf("error %T is not a *chnative.Exception: %v", err, err)
		}
	}
}

// goodQuery runs okQuery and checks its 3 rows.
func goodQuery(db *sql.DB) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	rows, err := db.QueryContext(ctx, okQuery)
	if err != nil {
		return err
	}
	defer rows.Close()
	var sum uint64
	n := 0
	for rows.Next() {
		var v uint64
		var s string
		if err := rows.Scan(&v, &s); err != nil {
			return err
		}
		sum += v
		n++
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if n != 3 || sum != 6 {
		return fmt.Errorf("good query: %d rows summing to %d, want 3 rows summing to 6", n, sum)
	}
	return nil
}

// waitFor polls cond until it holds or d passes, then fails with msg.
func waitFor(t *testing.T, d time.Duration, cond func() bool, msg func() string) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Error(msg())
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// settle waits (bounded) for the goroutines to come back to base and dumps them otherwise.
func settle(t *testing.T, base int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > base {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			t.Errorf("goroutines: %d, want <= %d after db.Close; stacks:\n%s", runtime.NumGoroutine(), base, buf)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// methodOf is the frame method of a compress DSN value.
func methodOf(comp string) nativeproto.Method {
	switch comp {
	case "lz4":
		return nativeproto.MethodLZ4
	case "zstd":
		return nativeproto.MethodZSTD
	}
	return 0
}
