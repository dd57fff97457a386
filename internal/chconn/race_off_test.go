//go:build !race

package chconn

// raceEnabled: the race detector drops a quarter of sync.Pool puts at random.
const raceEnabled = false
