//go:build armbe || arm64be || m68k || mips || mips64 || mips64p32 || ppc || ppc64 || s390 || s390x || shbe || sparc || sparc64

package columns

// The columns package reads and writes fixed-width values by viewing Go slices as their bytes,
// which matches ClickHouse's little-endian wire format only on little-endian CPUs.
var _ = requiresLittleEndianCPU
