package testenv

import (
	"runtime"

	"github.com/chnative/chnative/internal/spare"
)

// AllocatedBy runs f after a collection and returns the bytes of heap allocated meanwhile, by f
// and by anything else running then (tests measure it for bounds, not exact counts).
func AllocatedBy(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// HeapInUse returns the heap in use after two collections, less what the process-wide spare
// caches hold (package spare: memory no connection keeps). spare.Held is read before and after:
// when it changed meanwhile (a spare block expired after dsn.SpareIdle, and the heap may still
// count it), it measures again, so an expiry is never taken for memory a connection keeps.
func HeapInUse() int64 {
	for {
		h := spare.Held()
		runtime.GC()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		if spare.Held() == h {
			return int64(ms.HeapAlloc) - h
		}
	}
}
