//go:build !race

package qbit

const raceEnabled = false
