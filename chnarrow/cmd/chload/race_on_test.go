//go:build race

package main

// loadRows is the size of TestLoadParquet1M's file: the race detector makes the 1M-row load
// about ten times slower, so under -race it loads 100k rows (CI runs it at full size without).
const loadRows = 100_000
