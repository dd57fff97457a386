//go:build race

package bench

// raceEnabled reports a -race build, where the suite's checks run on fewer rows.
const raceEnabled = true
