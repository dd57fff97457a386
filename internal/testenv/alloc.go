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
