package nativeproto

import (
	"bytes"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// TestZSTDServerFrames: ClickHouse 26.7's own ZSTD frames (testdata/zstd) decode to their
// announced sizes, and the reader's decoder, reused across frames, gives what a fresh one does.
func TestZSTDServerFrames(t *testing.T) {
	ref, err := zstd.NewReader(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	var z zstdFrames
	for _, name := range []string{"numbers", "usf", "text"} {
		payloads, sizes := methodFrames(t, "zstd", name)
		for i, p := range payloads {
			want, err := ref.DecodeAll(p, nil)
			if err != nil || len(want) != sizes[i] {
				t.Fatalf("%s frame %d: %d bytes, %v", name, i, len(want), err)
			}
			got := make([]byte, sizes[i], sizes[i]+zstdSlack)
			if err := z.decode(p, got); err != nil || !bytes.Equal(got, want) {
				t.Fatalf("%s frame %d: %v, equal %v", name, i, err, bytes.Equal(got, want))
			}
		}
	}
}

// TestZSTDFrameSizeLies: a frame whose content is larger or smaller than the size its header
// announces is an error, and a larger one is never written past the output's capacity.
func TestZSTDFrameSizeLies(t *testing.T) {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderCRC(false))
	if err != nil {
		t.Fatal(err)
	}
	in := bytes.Repeat([]byte("0123456789abcdef"), 1<<14) // 256 KiB
	p := enc.EncodeAll(in, nil)
	var z zstdFrames
	out := make([]byte, len(in)/2, len(in)/2+zstdSlack)
	if err := z.decode(p, out); err == nil {
		t.Fatal("a frame of twice the announced size decoded")
	}
	out = make([]byte, len(in)*2, len(in)*2+zstdSlack)
	if err := z.decode(p, out); err == nil {
		t.Fatal("a frame of half the announced size decoded")
	}
	out = make([]byte, len(in), len(in)+zstdSlack)
	if err := z.decode(p, out); err != nil || !bytes.Equal(out, in) {
		t.Fatalf("the frame itself: %v", err)
	}
}
