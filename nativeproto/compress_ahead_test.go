package nativeproto

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/chnative/chnative/internal/wire"
)

// bigBlock is a block of rows (UInt64, String) whose values start at base: 200K rows make about
// 3 MiB, three frames.
func bigBlock(t testing.TB, base, rows int) *Block {
	us := make([]any, rows)
	ss := make([]any, rows)
	for i := range rows {
		us[i] = uint64(base + i)
		ss[i] = fmt.Sprintf("s%d", (base+i)%977)
	}
	b := NewBlock()
	b.Add("n", mustCol(t, "UInt64", us...))
	b.Add("s", mustCol(t, "String", ss...))
	return b
}

// chunkReader returns its bytes in reads of random sizes up to max, as a socket would.
type chunkReader struct {
	b   []byte
	rnd *rand.Rand
	max int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.b) == 0 {
		return 0, io.EOF
	}
	n := min(len(p), len(c.b), 1+c.rnd.IntN(c.max))
	copy(p, c.b[:n])
	c.b = c.b[n:]
	return n, nil
}

// aheadStream is a result as a server sends it: Data blocks of several frames each, with
// Progress packets between some of them, a Totals block, and EndOfStream. It returns the
// stream and the first value of each Data or Totals block.
func aheadStream(t testing.TB, m Method, blocks int) ([]byte, []uint64) {
	const rev = 54460
	var s wire.Writer
	var firsts []uint64
	for i := range blocks {
		if i%3 == 2 {
			(&Progress{ReadRows: 1}).Encode(&s, rev)
		}
		rows := 200_000 - 37*i
		if i%4 == 1 {
			rows = 9_000 // a block of one small frame
		}
		s.Raw(serverData(t, ServerCodeData, "", bigBlock(t, i*1_000_000, rows), rev, m))
		firsts = append(firsts, uint64(i*1_000_000))
	}
	s.Raw(serverData(t, ServerCodeTotals, "t", bigBlock(t, 7, 100_000), rev, m))
	firsts = append(firsts, 7)
	s.UVarInt(uint64(ServerCodeEndOfStream))
	return s.Buf, firsts
}

// readAhead reads stream to EndOfStream and returns every block's rows and first value and the
// frames the reader took from decompress-ahead.
func readAhead(t testing.TB, stream []byte, ahead bool, seed uint64) (rows []int, firsts []uint64, taken int, err error) {
	p := NewPacketReader(&chunkReader{b: stream, rnd: rand.New(rand.NewPCG(seed, 1)), max: 300 << 10})
	p.SetRevision(54460)
	p.SetCompression(true)
	p.frames.noAhead = !ahead
	var reuse *Block
	for {
		code, err := p.ReadCode()
		if err != nil {
			return rows, firsts, p.frames.aheadTaken, err
		}
		switch code {
		case ServerCodeData, ServerCodeTotals:
			_, b, err := p.ReadBlock(reuse)
			if err != nil {
				return rows, firsts, p.frames.aheadTaken, err
			}
			reuse = b
			n := b.Rows()
			rows = append(rows, n)
			firsts = append(firsts, b.Column(0).Value(0).(uint64))
			// Every value, so that a misplaced frame cannot go unseen.
			base := b.Column(0).Value(0).(uint64)
			for i := 0; i < n; i += 997 {
				if b.Column(0).Value(i) != base+uint64(i) || b.Column(1).Value(i) != fmt.Sprintf("s%d", (base+uint64(i))%977) {
					return rows, firsts, p.frames.aheadTaken, fmt.Errorf("block %d row %d: %v %v", len(rows), i, b.Column(0).Value(i), b.Column(1).Value(i))
				}
			}
		case ServerCodeProgress:
			if _, err := p.ReadProgress(); err != nil {
				return rows, firsts, p.frames.aheadTaken, err
			}
		case ServerCodeEndOfStream:
			return rows, firsts, p.frames.aheadTaken, nil
		default:
			return rows, firsts, p.frames.aheadTaken, fmt.Errorf("unexpected packet %v", code)
		}
	}
}

// TestDecompressAhead: a result read with decompress-ahead decodes to the same blocks as one
// read without, for LZ4 and ZSTD, whatever sizes the socket's reads come in; and the ahead path
// was taken, both within a block and across Data packets.
func TestDecompressAhead(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	for _, m := range []Method{MethodLZ4, MethodZSTD} {
		stream, want := aheadStream(t, m, 9)
		for seed := range uint64(4) {
			offRows, offFirsts, offTaken, err := readAhead(t, stream, false, seed)
			if err != nil || offTaken != 0 {
				t.Fatalf("%v: without ahead: %v, %d taken", m, err, offTaken)
			}
			rows, firsts, taken, err := readAhead(t, stream, true, seed)
			if err != nil {
				t.Fatalf("%v seed %d: %v", m, seed, err)
			}
			if fmt.Sprint(rows) != fmt.Sprint(offRows) || fmt.Sprint(firsts) != fmt.Sprint(offFirsts) || fmt.Sprint(firsts) != fmt.Sprint(want) {
				t.Fatalf("%v seed %d: blocks %v %v, without ahead %v %v, want firsts %v", m, seed, rows, firsts, offRows, offFirsts, want)
			}
			// 9 Data blocks of about 3 frames (two of one frame) and Totals: most frames after
			// the first large one are taken from ahead (the source's reads may not have
			// brought a whole next frame in yet).
			t.Logf("%v seed %d: %d frames taken ahead", m, seed, taken)
			if taken < 5 {
				t.Errorf("%v seed %d: %d frames taken from decompress-ahead", m, seed, taken)
			}
		}
	}
}

// TestDecompressAheadOneCore: with GOMAXPROCS 1 nothing is decompressed ahead.
func TestDecompressAheadOneCore(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	stream, _ := aheadStream(t, MethodLZ4, 4)
	if _, _, taken, err := readAhead(t, stream, true, 1); err != nil || taken != 0 {
		t.Fatalf("%v, %d frames taken ahead", err, taken)
	}
}

// TestDecompressAheadCorrupt: a frame that decompress-ahead finds corrupt (a flipped payload
// byte, a truncated stream) gives the same typed error as without it, and every block before it
// is whole.
func TestDecompressAheadCorrupt(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	stream, _ := aheadStream(t, MethodLZ4, 6)
	// The stream's frames, by CityHash checksum position: find the frame headers.
	var frames []int
	for i := 0; i+frameOverhead < len(stream); i++ {
		if total, _, whole, ok := frameAt(stream, i); ok && whole && verifyChecksum(stream[i:i+total], MethodLZ4, 0, 0) == nil {
			frames = append(frames, i)
			i += total - 1
		}
	}
	if len(frames) < 8 {
		t.Fatalf("%d frames found", len(frames))
	}
	for _, k := range []int{2, 5, len(frames) - 1} {
		bad := bytes.Clone(stream)
		bad[frames[k]+frameOverhead+100] ^= 0x40
		for _, ahead := range []bool{false, true} {
			rows, _, _, err := readAhead(t, bad, ahead, 3)
			var ce *ChecksumError
			if !errors.As(err, &ce) {
				t.Fatalf("frame %d flipped, ahead %v: %v after %d blocks, want a *ChecksumError", k, ahead, err, len(rows))
			}
		}
		cut := stream[:frames[k]+frameOverhead+100]
		for _, ahead := range []bool{false, true} {
			_, _, _, err := readAhead(t, cut, ahead, 3)
			if !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("cut in frame %d, ahead %v: %v, want io.ErrUnexpectedEOF", k, ahead, err)
			}
		}
	}
}

// TestDecompressAheadPosition: a frame decompressed ahead is used only at the stream offset it
// was found at. Here the reader's owner reads the bytes of frame B raw (as it would a packet that
// happened to look like a frame), so the next frame read must give C, not B.
func TestDecompressAheadPosition(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	a := frameTestData("text", 300_000)
	b := bytes.Repeat([]byte("B"), 200_000)
	c := bytes.Repeat([]byte("C"), 200_000)
	var stream []byte
	for _, d := range [][]byte{a, a, b, c} {
		stream = append(stream, mustCompressFrames(t, d, MethodLZ4, 0)...)
	}
	fb := mustCompressFrames(t, b, MethodLZ4, 0)
	raw := wire.NewReader(bytes.NewReader(stream))
	r := NewFrameReader(raw)
	got := make([]byte, len(a))
	for range 2 { // the first frame grows the source's buffer; the second starts B ahead
		if _, err := io.ReadFull(r, got); err != nil || !bytes.Equal(got, a) {
			t.Fatalf("frame A: %v", err)
		}
	}
	if r.aheadN == 0 {
		t.Fatal("frame B is not being decompressed ahead")
	}
	if err := raw.Skip(len(fb)); err != nil {
		t.Fatal(err)
	}
	got = make([]byte, len(c))
	if _, err := io.ReadFull(r, got); err != nil || !bytes.Equal(got, c) {
		t.Fatalf("after B read raw: %v, got C: %v", err, bytes.Equal(got, c))
	}
	if r.aheadTaken != 0 {
		t.Fatalf("%d frames taken ahead", r.aheadTaken)
	}
}

// A frame decompressed ahead that is past the frame limit (block_memory_limit lowered meanwhile)
// is not taken: the inline read refuses it, as it refuses any such frame.
func TestDecompressAheadFrameLimit(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	stream, _ := aheadStream(t, MethodLZ4, 4)
	p := NewPacketReader(&chunkReader{b: stream, rnd: rand.New(rand.NewPCG(1, 1)), max: 300 << 10})
	p.SetRevision(54460)
	p.SetCompression(true)
	if code, err := p.ReadCode(); err != nil || code != ServerCodeData {
		t.Fatalf("first packet: %v, %v", code, err)
	}
	if _, _, err := p.ReadBlock(nil); err != nil {
		t.Fatal(err)
	}
	p.SetBlockMemoryLimit(64 << 10) // below the next blocks' frames
	var err error
	for err == nil {
		var code ServerCode
		if code, err = p.ReadCode(); err == nil && (code == ServerCodeData || code == ServerCodeTotals) {
			_, _, err = p.ReadBlock(nil)
		} else if err == nil && code == ServerCodeProgress {
			_, err = p.ReadProgress()
		} else if err == nil {
			t.Fatalf("the stream ended (%v) with no frame refused", code)
		}
	}
	var fe *FrameError
	if !errors.As(err, &fe) || !strings.Contains(fe.Reason, "block_memory_limit") {
		t.Fatalf("after lowering the limit: %v, want a *FrameError naming block_memory_limit", err)
	}
}
