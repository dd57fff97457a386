package qbit

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// Random shapes and data: fast encode equals the reference (into a garbage
// buffer), fast decode of the result gives back the input bit for bit.
func TestRandomShapesRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	n := 300
	if testing.Short() {
		n = 50
	}
	for it := 0; it < n; it++ {
		c := codecs[rng.IntN(len(codecs))]
		dim := 1 + rng.IntN(300)
		if rng.IntN(4) == 0 {
			dim = 1 + rng.IntN(8)
		}
		rows := rng.IntN(200)
		t.Run(fmt.Sprintf("%s/d%d/r%d", c.name, dim, rows), func(t *testing.T) {
			words := randWords(rng, rows*dim, c.w)
			body := checkEncode(t, c, words, dim, rng)
			back := c.dec(body, rows, dim)
			for i := range words {
				if back[i] != words[i] {
					t.Fatalf("element %d: %#x -> %#x", i, words[i], back[i])
				}
			}
		})
	}
}
