package bench

import (
	"fmt"
	"testing"
)

// numbersRead is ch-bench's workload (seed 004): SELECT number FROM system.numbers_mt LIMIT n,
// 100M rows, every value summed. The server makes the rows as it sends them (no table), so the
// client's share of the CPU is the larger one.
func numbersRead(codec string) readSpec {
	n := rowsN(100_000_000)
	return readSpec{shape: "u64", query: fmt.Sprintf("SELECT number FROM system.numbers_mt LIMIT %d", n), rows: n, codec: codec}
}

// BenchmarkReadNumbers is the seed workload on the 26.7 server (modern), uncompressed, LZ4 and
// ZSTD, the same codec on both sides. 18.16 is left out: ch-go cannot query it.
func BenchmarkReadNumbers(b *testing.B) {
	for _, codec := range []string{"none", "lz4", "zstd"} {
		b.Run("modern/"+codec, func(b *testing.B) {
			t := modernT(b)
			readArms(b, t, numbersRead(codec), "chnative-blocks", "ch-go", "clickhouse-go")
		})
	}
}
