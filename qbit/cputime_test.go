//go:build unix

package qbit

import (
	"runtime"
	"syscall"
	"testing"
	"time"
)

// cpuTimer reports "cpu-ns/op": process CPU time (user+system) per
// operation. The benchmark machine is shared, so wall time (ns/op) includes
// time spent waiting for a core; CPU time is closer to one-core speed.
type cpuTimer struct{ start time.Duration }

func cpuNow() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func startCPU(b *testing.B) *cpuTimer {
	runtime.GC()
	b.ResetTimer()
	return &cpuTimer{cpuNow()}
}

func (c *cpuTimer) stop(b *testing.B) {
	d := cpuNow() - c.start
	if b.N > 0 {
		b.ReportMetric(float64(d.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}
