//go:build !race

package main

// loadRows is the size of TestLoadParquet1M's file.
const loadRows = 1_000_000
