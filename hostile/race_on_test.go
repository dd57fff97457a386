//go:build race

package hostile_test

const raceBuild = true
