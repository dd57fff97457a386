//go:build race

package qbit

// raceEnabled reports a -race build: allocation counts and timings are not meaningful then
// (sync.Pool drops items at random under the race detector).
const raceEnabled = true
