package nativeproto

import (
	"errors"
	"fmt"

	"github.com/klauspost/compress/zstd"
)

// zstdFrames decodes a FrameReader's ZSTD payloads with one of two decoders: chnative's
// zstdDecoder, which is about twice klauspost/compress's on the frames of integer columns (one
// sequence per value, see zstdDecoder), and klauspost's (assembly), which is faster on text
// and floats. Which one runs is decided by what the frames hold, measured on the frames
// themselves:
//
//   - A frame goes to zstdDecoder, which counts its sequences of the integer shape. When
//     fewer than zstdIntShare of a frame's sequences (of at least zstdProbeMin) have it, the
//     next zstdGeneralRun frames go to klauspost's decoder, then one is measured again. A
//     result's blocks share their columns, so one frame speaks for the ones after it.
//   - A frame that uses what zstdDecoder leaves out (a dictionary, a checksum, several
//     frames) goes to klauspost's decoder whatever the counts say.
//
// The choice is deterministic for a given stream and costs nothing to keep: two counters.
// BenchmarkZSTDFrames measures both decoders on ClickHouse 26.7's frames.
type zstdFrames struct {
	fast    zstdDecoder
	general *zstd.Decoder
	skip    int // frames to give to general before the next is measured
}

const (
	zstdIntShare   = 0.6 // zstdDecoder's break-even share of integer-shape sequences, with margin
	zstdProbeMin   = 256
	zstdGeneralRun = 64
)

// decode decompresses payload, one ZSTD frame, into out, which is exactly its content. The
// error is a *ZSTDError from zstdDecoder or klauspost's own.
func (z *zstdFrames) decode(payload, out []byte) error {
	if z.skip == 0 {
		err := z.fast.decode(out, payload)
		if !errors.Is(err, errZSTDFallback) {
			if s := z.fast.seqs; err == nil && s >= zstdProbeMin && float64(z.fast.intSeqs) < zstdIntShare*float64(s) {
				z.skip = zstdGeneralRun
			}
			return err
		}
	} else {
		z.skip--
	}
	if z.general == nil {
		zd, err := zstd.NewReader(nil,
			zstd.WithDecoderConcurrency(1),
			zstd.WithDecoderMaxMemory(MaxFrameUncompressed),
			zstd.WithDecoderMaxWindow(MaxFrameUncompressed),
			zstd.WithDecodeAllCapLimit(true),
		)
		if err != nil {
			return fmt.Errorf("creating ZSTD decoder: %w", err)
		}
		z.general = zd
	}
	// The cap limit (WithDecodeAllCapLimit) keeps the output in out's memory; the slack after
	// it (output, zstdSlack) lets the decoder's fast copies run to the frame's end.
	res, err := z.general.DecodeAll(payload, out[:0:cap(out)])
	if err != nil {
		return err
	}
	if len(res) != len(out) {
		return fmt.Errorf("decompressed to %d bytes", len(res))
	}
	return nil
}
