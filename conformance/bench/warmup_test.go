package bench

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"os/exec"
	"runtime/pprof"
	"testing"
	"time"
)

// TestWarmupLabel: the CPU samples of measure's warm-up op carry the label bench=warmup, which
// run.sh's profiles leave out (-tagignore). A profile's labels are entries of its string table
// (field 6 of the Profile message, each a string of its own), so a profile with samples of the op
// holds the entries "bench" and "warmup", which no function or file name is.
//
// With the test binary's own CPU profile on (go test -cpuprofile), which this one cannot share,
// the test runs again in a child process of the same binary without it.
func TestWarmupLabel(t *testing.T) {
	var prof bytes.Buffer
	if perr := pprof.StartCPUProfile(&prof); perr != nil {
		if os.Getenv(warmupChildEnv) == "1" {
			t.Fatalf("starting the CPU profile in the child process: %v", perr)
		}
		cmd := exec.Command(os.Args[0], "-test.run", "^TestWarmupLabel$", "-test.count", "1", "-test.v")
		cmd.Env = append(os.Environ(), warmupChildEnv+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !bytes.Contains(out, []byte("--- PASS: TestWarmupLabel")) {
			t.Fatalf("the CPU profile is in use here (%v); in a child process the test failed (%v):\n%s",
				perr, err, out)
		}
		return
	}
	var x uint64
	err := warmup(func() error {
		for end := time.Now().Add(300 * time.Millisecond); time.Now().Before(end); {
			for i := range 1000 {
				x = x*6364136223846793005 + uint64(i)
			}
		}
		return nil
	})
	pprof.StopCPUProfile()
	if err != nil {
		t.Fatal(err)
	}
	sink.Lock()
	sink.u += x
	sink.Unlock()
	zr, err := gzip.NewReader(&prof)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"bench", "warmup"} {
		entry := append([]byte{6<<3 | 2, byte(len(s))}, s...)
		if !bytes.Contains(raw, entry) {
			t.Errorf("the profile of 300 ms of warm-up has no string %q: its samples are not labelled", s)
		}
	}
}

// warmupChildEnv marks the child process TestWarmupLabel runs itself in.
const warmupChildEnv = "CHNATIVE_WARMUP_LABEL_CHILD"
