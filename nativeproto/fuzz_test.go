package nativeproto

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/chnative/chnative/internal/wire"
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
	var s wire.Writer
	(&Progress{ReadRows: 1}).Encode(&s, ClientRevision)
	s.Raw(serverData(f, ServerCodeData, "", testBlock(f), ClientRevision, 0))
	(&ProfileInfo{Rows: 3}).Encode(&s, ClientRevision)
	(&Exception{Code: 1, Name: "x", Message: "y", Nested: &Exception{}}).Encode(&s)
	(&TableColumns{Description: "d"}).Encode(&s)
	s.UVarInt(uint64(ServerCodeEndOfStream))
	f.Add(append([]byte{0}, s.Buf...))
	f.Add(append([]byte{1}, serverData(f, ServerCodeData, "", testBlock(f), ClientRevision, MethodLZ4)...))
	f.Add(append([]byte{1}, serverData(f, ServerCodeTotals, "t", testBlock(f), ClientRevision, MethodZSTD)...))
	// 26.7 captures at 54488 (revs index 4), compressed ones with the compression bit.
	f.Add(append([]byte{4 << 1}, capture(f, "server_hello_26_7.raw")...))
	f.Add(append([]byte{4 << 1}, capture(f, "data_header_26_7.raw")...))
	f.Add(append([]byte{4<<1 | 1}, capture(f, "table_columns_lz4_26_7.raw")...))
	f.Add(append([]byte{4<<1 | 1}, capture(f, "profile_events_lz4_26_7.raw")...))
	var m wire.Writer
	(&Progress{ReadRows: 1, TotalBytes: 9}).Encode(&m, LatestRevision)
	(&ProfileInfo{Rows: 3, AppliedAggregation: true, RowsBeforeAggregation: 4}).Encode(&m, LatestRevision)
	m.UVarInt(uint64(ServerCodeTimezoneUpdate))
	m.String("Asia/Tokyo")
	(&TablesStatusResponse{Tables: []TableStatus{{Database: "d", Table: "t", IsReplicated: true, IsReadonly: true}}}).Encode(&m, LatestRevision)
	f.Add(append([]byte{4 << 1}, m.Buf...))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		// The first byte picks compression and revision.
		p := NewPacketReader(bytes.NewReader(data[1:]))
		p.SetCompression(data[0]&1 == 1)
		revs := [...]Revision{ClientRevision, 54412, 54450, 54480, LatestRevision, 54481, 54469, 54463}
		p.SetRevision(revs[(data[0]>>1)%8])
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
		var w wire.Writer
		_ = WriteBlock(&w, rev, true, testBlock(f))
		f.Add(w.Buf)
	}
	b := NewBlock()
	b.Add("a", mustCol(f, "Array(LowCardinality(String))", []string{"x"}, []string{}))
	b.Add("n", mustCol(f, "Nullable(Int32)", nil, int32(5)))
	var w wire.Writer
	_ = WriteBlock(&w, 54460, true, b)
	f.Add(w.Buf)
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := ReadBlock(wire.NewBytesReader(data), 54460, true, nil)
		if err != nil {
			return
		}
		var w wire.Writer
		if err := WriteBlock(&w, 54460, true, b); err != nil {
			t.Fatalf("re-encoding a decoded block: %v", err)
		}
		if _, err := ReadBlock(wire.NewBytesReader(w.Buf), 54460, true, nil); err != nil {
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

// FuzzServerHello decodes a server Hello body for the revisions around its gates; what decodes
// must re-encode into bytes that decode to the same Hello.
func FuzzServerHello(f *testing.F) {
	f.Add(byte(0), capture(f, "ServerHello.raw")[1:])
	f.Add(byte(9), capture(f, "server_hello_26_7.raw")[1:])
	revs := [...]Revision{54412, 54460, 54461, 54462, 54470, 54471, 54474, 54477, 54479, LatestRevision}
	f.Fuzz(func(t *testing.T, pick byte, data []byte) {
		rev := revs[int(pick)%len(revs)]
		var h ServerHello
		if err := h.Decode(wire.NewBytesReader(data), rev); err != nil {
			return
		}
		var w wire.Writer
		if err := h.Encode(&w, rev); err != nil {
			t.Fatalf("re-encoding: %v", err)
		}
		var h2 ServerHello
		if err := h2.Decode(wire.NewBytesReader(w.Buf[1:]), rev); err != nil {
			t.Fatalf("decoding a re-encoded hello: %v", err)
		}
		if !reflect.DeepEqual(h, h2) {
			t.Fatalf("re-encoded hello differs:\n%+v\n%+v", h, h2)
		}
	})
}

// FuzzQuery decodes a Query body (with its ClientInfo) as a server does, for revisions around the
// gates from 54472 to 54488; what decodes must re-encode and decode to the same packet.
func FuzzQuery(f *testing.F) {
	revs := [...]Revision{54460, 54472, 54475, 54476, 54485, 54486, 54488}
	for i, rev := range revs {
		q := createDBQuery()
		q.ClientInfo.ProtocolVersion = rev
		q.ClientInfo.JWT = "j"
		q.ClientInfo.ClientAgent = "a"
		q.ClientInfo.IsInternal = true
		q.ClientInfo.CurrentRoles = []string{"r"}
		q.ExtraRoles = "x"
		var w wire.Writer
		if err := q.Encode(&w, rev); err != nil {
			f.Fatal(err)
		}
		f.Add(byte(i), w.Buf[1:])
	}
	f.Fuzz(func(t *testing.T, pick byte, data []byte) {
		rev := revs[int(pick)%len(revs)]
		var q Query
		if err := q.Decode(wire.NewBytesReader(data), rev); err != nil {
			return
		}
		var w wire.Writer
		if err := q.Encode(&w, rev); err != nil {
			return // e.g. a decoded HTTP interface or query kind the encoder refuses
		}
		var q2 Query
		if err := q2.Decode(wire.NewBytesReader(w.Buf[1:]), rev); err != nil {
			t.Fatalf("decoding a re-encoded query: %v", err)
		}
	})
}
