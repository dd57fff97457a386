package nativeproto

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/chnative/chnative/internal/wire"
)

func testBlock(t testing.TB) *Block {
	b := NewBlock()
	b.Add("n", mustCol(t, "UInt64", uint64(1), uint64(2), uint64(3)))
	b.Add("s", mustCol(t, "String", "a", "bb", "ccc"))
	return b
}

// serverData encodes a server block packet (code, table, block) compressed with m if not 0.
func serverData(t testing.TB, code ServerCode, table string, b *Block, rev Revision, m Method) []byte {
	var w, body wire.Writer
	w.UVarInt(uint64(code))
	w.String(table)
	if err := WriteBlock(&body, rev, true, b); err != nil {
		t.Fatal(err)
	}
	if m == 0 {
		w.Raw(body.Buf)
		return w.Buf
	}
	out, err := AppendCompressed(w.Buf, body.Buf, m, 0)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestPacketReaderStream(t *testing.T) {
	for _, m := range []Method{0, MethodNone, MethodLZ4, MethodZSTD} {
		for _, rev := range []Revision{54412, 54450, 54460} {
			var s wire.Writer
			(&Progress{ReadRows: 1, ReadBytes: 2, ElapsedNS: 3}).Encode(&s, rev)
			s.Raw(serverData(t, ServerCodeData, "", testBlock(t), rev, m))
			(&TableColumns{Description: "d"}).Encode(&s)
			// Log blocks are never compressed below 54481.
			s.Raw(serverData(t, ServerCodeLog, "", testBlock(t), rev, 0))
			s.Raw(serverData(t, ServerCodeTotals, "t", testBlock(t), rev, m))
			(&ProfileInfo{Rows: 3}).Encode(&s, rev)
			(&Exception{Code: 1, Name: "x", Message: "y"}).Encode(&s)
			s.UVarInt(uint64(ServerCodePong))
			s.UVarInt(uint64(ServerCodeEndOfStream))

			p := NewPacketReader(bytes.NewReader(s.Buf))
			p.SetRevision(rev)
			p.SetCompression(m != 0)
			var reuse *Block
			var codes []ServerCode
			for {
				code, err := p.ReadCode()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				codes = append(codes, code)
				switch code {
				case ServerCodeData, ServerCodeTotals:
					table, b, err := p.ReadBlock(reuse)
					if err != nil {
						t.Fatalf("method %v rev %d: %v", m, rev, err)
					}
					if b.Rows() != 3 || b.Column(1).Value(2) != "ccc" || (code == ServerCodeTotals) != (table == "t") {
						t.Fatal("bad block")
					}
					reuse = b
				case ServerCodeLog:
					if _, _, err := p.ReadLogBlock(nil); err != nil {
						t.Fatal(err)
					}
				case ServerCodeProgress:
					pr, err := p.ReadProgress()
					if err != nil || pr.ReadRows != 1 || pr.ElapsedNS != map[bool]uint64{true: 3}[rev >= 54460] {
						t.Fatalf("%+v %v", pr, err)
					}
				case ServerCodeException:
					e, err := p.ReadException()
					if err != nil || e.Code != 1 {
						t.Fatal(err)
					}
				default:
					if err := p.SkipPacket(code); err != nil {
						t.Fatal(err)
					}
				}
			}
			if len(codes) != 9 {
				t.Fatalf("codes %v", codes)
			}
		}
	}
}

func TestPacketReaderSkipAll(t *testing.T) {
	var s wire.Writer
	s.Raw(serverData(t, ServerCodeData, "", testBlock(t), 54460, MethodLZ4))
	s.Raw(serverData(t, ServerCodeProfileEvents, "", testBlock(t), 54460, 0))
	(&TablesStatusResponse{Tables: []TableStatus{{Database: "a", Table: "b"}}}).Encode(&s, 54460)
	s.UVarInt(uint64(ServerCodeTimezoneUpdate))
	s.String("UTC")
	s.UVarInt(uint64(ServerCodePartUUIDs))
	s.UVarInt(1)
	s.Raw(make([]byte, 16))
	p := NewPacketReader(bytes.NewReader(s.Buf))
	p.SetRevision(54460) // the packets above are of that revision (ProfileEvents raw below 54481)
	p.SetCompression(true)
	for {
		code, err := p.ReadCode()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := p.SkipPacket(code); err != nil {
			t.Fatalf("%v: %v", code, err)
		}
	}
}

func TestPacketReaderLeftover(t *testing.T) {
	var body wire.Writer
	_ = WriteBlock(&body, 54460, true, testBlock(t))
	body.Raw([]byte{0xde, 0xad}) // garbage after the block inside the frame
	var s wire.Writer
	s.UVarInt(uint64(ServerCodeData))
	s.String("")
	out, err := AppendCompressed(s.Buf, body.Buf, MethodLZ4, 0)
	if err != nil {
		t.Fatal(err)
	}
	p := NewPacketReader(bytes.NewReader(out))
	p.SetCompression(true)
	if _, err := p.ReadCode(); err != nil {
		t.Fatal(err)
	}
	_, _, err = p.ReadBlock(nil)
	var pe *ProtocolError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "left over") {
		t.Fatalf("got %v", err)
	}
}

func TestPacketReaderUnknownCode(t *testing.T) {
	for _, code := range []uint64{20, 100, 1 << 40} {
		var s wire.Writer
		s.UVarInt(code)
		p := NewPacketReader(bytes.NewReader(s.Buf))
		_, err := p.ReadCode()
		var ue *UnexpectedPacketError
		if !errors.As(err, &ue) || uint64(ue.Code) != code || !strings.Contains(err.Error(), "ServerCode(") {
			t.Fatalf("code %d: %v", code, err)
		}
	}
	p := NewPacketReader(bytes.NewReader(nil))
	var ue *UnexpectedPacketError
	if err := p.SkipPacket(ServerCodeMergeTreeReadTaskRequest); !errors.As(err, &ue) {
		t.Fatal(err)
	}
	if _, err := p.ReadCode(); err != io.EOF {
		t.Fatalf("empty stream: %v", err)
	}
}

func TestPacketReaderHello(t *testing.T) {
	raw := capture(t, "ServerHello.raw")
	p := NewPacketReader(bytes.NewReader(raw))
	code, err := p.ReadCode()
	if err != nil || code != ServerCodeHello {
		t.Fatal(code, err)
	}
	var h ServerHello
	if err := p.ReadHello(&h, ClientRevision); err != nil || h.DisplayName != "alpha" {
		t.Fatal(err)
	}
}

func TestPacketWriter(t *testing.T) {
	p := NewPacketWriter()
	p.SetRevision(54460)
	if err := p.WriteEmptyData(); err != nil {
		t.Fatal(err)
	}
	requireBytes(t, p.Buffer().Buf, unhex(t, "02 00 01 00 02 ff ff ff ff 00 00 00"))
	p.Reset()
	p.WritePing()
	p.WriteCancel()
	requireBytes(t, p.Buffer().Buf, []byte{4, 3})
	var out bytes.Buffer
	if err := p.Flush(&out); err != nil || p.Len() != 0 || out.Len() != 2 {
		t.Fatal(err)
	}

	// Data packets, compressed and not, decode with a PacketReader (after swapping the code).
	for _, m := range []Method{0, MethodLZ4, MethodZSTD} {
		p := NewPacketWriter()
		if m != 0 {
			c, err := NewCompressor(m, 0)
			if err != nil {
				t.Fatal(err)
			}
			p.SetCompressor(c)
		}
		if err := p.WriteData("ext", testBlock(t)); err != nil {
			t.Fatal(err)
		}
		if err := p.WriteEmptyData(); err != nil {
			t.Fatal(err)
		}
		buf := append([]byte(nil), p.Buffer().Buf...)
		buf[0] = byte(ServerCodeData)
		r := NewPacketReader(bytes.NewReader(buf))
		r.SetCompression(m != 0)
		if _, err := r.ReadCode(); err != nil {
			t.Fatal(err)
		}
		table, b, err := r.ReadBlock(nil)
		if err != nil || table != "ext" || b.Rows() != 3 {
			t.Fatalf("%v %q", err, table)
		}
		if code, err := r.ReadCode(); err != nil || code != ServerCode(ClientCodeData) {
			t.Fatal(code, err)
		}
		if _, b, err = r.ReadBlock(b); err != nil || b.Rows() != 0 || b.NumColumns() != 0 {
			t.Fatal(err)
		}
	}

	// Errors leave nothing in the buffer.
	bad := NewBlock()
	bad.Add("a", mustCol(t, "UInt8", uint8(1)))
	bad.Add("b", mustCol(t, "UInt8"))
	p = NewPacketWriter()
	if err := p.WriteData("", bad); err == nil || p.Len() != 0 {
		t.Fatal("bad block accepted")
	}
	if err := p.WriteQuery(&Query{Settings: []Setting{{Key: "", Value: "1"}}}); err == nil || p.Len() != 0 {
		t.Fatal("bad query accepted")
	}
}
