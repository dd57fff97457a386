// Package hostile holds the hostile-server suite, tests only: a scripted fake server answers a
// known-good query correctly and each case's query with the case's bytes (checksums valid,
// payloads malicious), and the driver must end every case with a clean error.
//
// Each case runs in its own process (the test binary run again for that case alone) under a
// memory limit, so that a case that crashes, exhausts memory or hangs fails by itself and shows
// its output instead of killing the suite:
//
//	go test ./hostile                       # every case, two at a time
//	go test ./hostile -run 'TestHostile/totals'   # the cases whose name matches
//	go test -tags purego ./hostile; go test -race ./hostile
//
// The parent checks each child's exit, time and peak RSS; the child checks the error's type,
// that the query was not retried, that the connection was closed, that the pool answers the
// next query and that no goroutine is left.
package hostile
