package codecs

import (
	"encoding/binary"
	"fmt"
	"os"
	"testing"

	"github.com/go-faster/city"
)

// frame is one compressed frame of a testdata file: raw is the whole frame (checksum, header,
// payload), payload the codec's input and size the uncompressed size its header states.
type frame struct {
	raw, payload []byte
	size         int
}

const (
	checksumSize  = 16
	frameOverhead = checksumSize + 9
)

// corpus is one testdata file: its bytes, its frames and their total uncompressed size.
type corpus struct {
	name   string
	file   []byte
	frames []frame
	total  int
}

// loadCorpus reads ../../nativeproto/testdata/METHOD/NAME.frames, the frames ClickHouse 26.7
// sent for that result, and checks each header's sizes against what the file holds.
func loadCorpus(t testing.TB, method, name string) corpus {
	t.Helper()
	b, err := os.ReadFile("../../nativeproto/testdata/" + method + "/" + name + ".frames")
	if err != nil {
		t.Fatal(err)
	}
	c := corpus{name: name, file: b}
	for len(b) > 0 {
		if len(b) < frameOverhead {
			t.Fatalf("%s/%s: %d bytes left, not a frame", method, name, len(b))
		}
		csize := int(binary.LittleEndian.Uint32(b[checksumSize+1:]))
		usize := int(binary.LittleEndian.Uint32(b[checksumSize+5:]))
		if csize < 9 || checksumSize+csize > len(b) || usize > 1<<30 {
			t.Fatalf("%s/%s: frame header csize %d usize %d with %d bytes left", method, name, csize, usize, len(b))
		}
		f := b[:checksumSize+csize]
		c.frames = append(c.frames, frame{raw: f, payload: f[frameOverhead:], size: usize})
		c.total += usize
		b = b[checksumSize+csize:]
	}
	return c
}

// verify checks a frame's stored CityHash128, as every driver does before decoding it.
func verify(f frame) error {
	h := city.CH128(f.raw[checksumSize:])
	if binary.LittleEndian.Uint64(f.raw) != h.Low || binary.LittleEndian.Uint64(f.raw[8:]) != h.High {
		return fmt.Errorf("frame checksum mismatch")
	}
	return nil
}

// seal puts the checksum on a frame an encoder arm built (header and payload after 16 bytes).
func seal(b []byte) {
	h := city.CH128(b[checksumSize:])
	binary.LittleEndian.PutUint64(b, h.Low)
	binary.LittleEndian.PutUint64(b[8:], h.High)
}
