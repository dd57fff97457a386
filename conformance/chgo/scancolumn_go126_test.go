//go:build !go1.27

package chgo

// columnScanner: database/sql calls the driver's ScanColumn (Go 1.27 and later).
const columnScanner = false
