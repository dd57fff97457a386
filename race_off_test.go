//go:build !race

package chnative

const raceEnabled = false
