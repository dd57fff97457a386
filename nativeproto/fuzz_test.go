package nativeproto

import (
	"bytes"
	"testing"

	"github.com/chnative/chnative/columns"
)

func addCaptureSeeds(f *testing.F, names ...string) {
	for _, n := range names {
		f.Add(capture(f, n))
	}
}

// FuzzServerPackets reads packet codes and bodies from arbitrary bytes until an error: it must
// never panic, and allocation is bounded by the decoders' limits.
func FuzzServerPackets(f *testing.F) {
	addCaptureSeeds(f, "ServerHello.raw")
	var s columns.Writer
	(&Progress{ReadRows: 1}).Encode(&s, ClientRevision)
	s.Raw(serverData(f, ServerCodeData, "", testBlock(f), ClientRevision, 0))
	(&ProfileInfo{Rows: 3}).Encode(&s, ClientRevision)
	(&Exception{Code: 1, Name: "x", Message: "y", Nested: &Exception{}}).Encode(&s)
	(&TableColumns{Description: "d"}).Encode(&s)
	s.UVarInt(uint64(ServerCodeEndOfStream))
	f.Add(append([]byte{0}, s.Buf...))
	f.Add(append([]byte{1}, serverData(f, ServerCodeData, "", testBlock(f), ClientRevision, MethodLZ4)...))
	f.Add(append([]byte{1}, serverData(f, ServerCodeTotals, "t", testBlock(f), ClientRevision, MethodZSTD)...))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		// The first byte picks compression and revision.
		p := NewPacketReader(bytes.NewReader(data[1:]))
		p.SetCompression(data[0]&1 == 1)
		revs := [...]Revision{ClientRevision, 54412, 54450, 54480}
		p.SetRevision(revs[(data[0]>>1)%4])
		var reuse *Block
		for range 64 {
			code, err := p.ReadCode()
			if err != nil {
				return
			}
			switch code {
			case ServerCodeData, ServerCodeTotals, ServerCodeExtremes:
				_, reuse, err = p.ReadBlock(reuse)
			default:
				err = p.SkipPacket(code)
			}
			if err != nil {
				return
			}
		}
	})
}

// FuzzReadBlock decodes one protocol block from arbitrary bytes, and re-encodes what decodes.
func FuzzReadBlock(f *testing.F) {
	for _, rev := range []Revision{54460, 54412} {
		var w columns.Writer
		_ = WriteBlock(&w, rev, true, testBlock(f))
		f.Add(w.Buf)
	}
	b := NewBlock()
	b.Add("a", mustCol(f, "Array(LowCardinality(String))", []string{"x"}, []string{}))
	b.Add("n", mustCol(f, "Nullable(Int32)", nil, int32(5)))
	var w columns.Writer
	_ = WriteBlock(&w, 54460, true, b)
	f.Add(w.Buf)
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := ReadBlock(columns.NewBytesReader(data), 54460, true, nil)
		if err != nil {
			return
		}
		var w columns.Writer
		if err := WriteBlock(&w, 54460, true, b); err != nil {
			t.Fatalf("re-encoding a decoded block: %v", err)
		}
		if _, err := ReadBlock(columns.NewBytesReader(w.Buf), 54460, true, nil); err != nil {
			t.Fatalf("decoding a re-encoded block: %v", err)
		}
	})
}

// FuzzNativeReader reads Native-format blocks from arbitrary bytes until an error.
func FuzzNativeReader(f *testing.F) {
	addCaptureSeeds(f, "select_lc.raw", "test_dump_native.raw")
	f.Fuzz(func(t *testing.T, data []byte) {
		nr := NewNativeReader(bytes.NewReader(data))
		for range 64 {
			if _, err := nr.Next(); err != nil {
				return // io.EOF or a decoding error; only a panic fails
			}
		}
	})
}
