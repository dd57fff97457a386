package nativeproto

import (
	"fmt"

	"github.com/klauspost/compress/zstd"
)

// zstdFrames decodes a FrameReader's ZSTD payloads with klauspost/compress's decoder, made on
// first use and kept for the reader's life. Its memory limits are the frame's: a window and a
// decoded size of at most MaxFrameUncompressed (what checkHeader lets a frame announce), and the
// output capped at the caller's buffer (WithDecodeAllCapLimit), so a frame whose blocks decode
// to more than its announced size is an error, not an allocation.
type zstdFrames struct {
	dec *zstd.Decoder
}

// decode decompresses payload, one ZSTD frame, into out, which is exactly its content.
func (z *zstdFrames) decode(payload, out []byte) error {
	if z.dec == nil {
		zd, err := zstd.NewReader(nil,
			zstd.WithDecoderConcurrency(1),
			zstd.WithDecoderMaxMemory(MaxFrameUncompressed),
			zstd.WithDecoderMaxWindow(MaxFrameUncompressed),
			zstd.WithDecodeAllCapLimit(true),
		)
		if err != nil {
			return fmt.Errorf("creating ZSTD decoder: %w", err)
		}
		z.dec = zd
	}
	// The cap limit keeps the output in out's memory; the slack after it (output, zstdSlack)
	// lets the decoder's fast copies run to the frame's end.
	res, err := z.dec.DecodeAll(payload, out[:0:cap(out)])
	if err != nil {
		return err
	}
	if len(res) != len(out) {
		return fmt.Errorf("decompressed to %d bytes, want %d", len(res), len(out))
	}
	return nil
}
