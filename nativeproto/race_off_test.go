//go:build !race

package nativeproto

const raceEnabled = false
