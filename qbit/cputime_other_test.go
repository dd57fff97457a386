//go:build !unix

package qbit

import "testing"

type cpuTimer struct{}

func startCPU(b *testing.B) *cpuTimer { return &cpuTimer{} }
func (c *cpuTimer) stop(b *testing.B) {}
