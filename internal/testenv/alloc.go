package testenv

import "runtime"

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

// HeapInUse returns the heap in use after two collections, less held() (the bytes of the
// process-wide spare caches, package spare: memory no connection keeps). held is read before and
// after: when it changed meanwhile (a spare block expired after dsn.SpareIdle, and the heap may
// still count it), it measures again, so an expiry is never taken for memory a connection keeps.
func HeapInUse(held func() int64) int64 {
	for {
		h := held()
		runtime.GC()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		if held() == h {
			return int64(ms.HeapAlloc) - h
		}
	}
}
