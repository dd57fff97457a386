package nativeproto

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/chnative/chnative/internal/wire"
)

func TestExceptionRoundTrip(t *testing.T) {
	e := &Exception{Code: 60, Name: "DB::Exception", Message: "DB::Exception: Table x doesn't exist", StackTrace: "0. foo\n1. bar",
		Nested: &Exception{Code: 1000, Name: "Poco::Exception", Message: "inner"}}
	var w wire.Writer
	e.Encode(&w)
	if ServerCode(w.Buf[0]) != ServerCodeException {
		t.Fatal("code")
	}
	var got Exception
	requireNoShortRead(t, w.Buf[1:], got.Decode)
	if err := got.Decode(wire.NewBytesReader(w.Buf[1:])); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&got, e) {
		t.Fatalf("got %+v", got)
	}
	if !strings.Contains(got.Error(), "60") || !strings.Contains(got.Error(), "Table x") {
		t.Fatal(got.Error())
	}
}

func TestExceptionLimits(t *testing.T) {
	// 10,000 nested records: fails at MaxExceptionDepth, quickly.
	var w wire.Writer
	for i := 0; i < 10000; i++ {
		w.Int32(1)
		w.String("n")
		w.String("m")
		w.String("")
		w.Bool(true)
	}
	start := time.Now()
	var e Exception
	err := e.Decode(wire.NewBytesReader(w.Buf))
	var pe *ProtocolError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "deeper") {
		t.Fatalf("want depth error, got %v", err)
	}
	if time.Since(start) > time.Second {
		t.Fatal("slow")
	}
	// A huge declared message.
	w.Reset()
	w.Int32(1)
	w.String("n")
	w.UVarInt(1 << 40)
	err = e.Decode(wire.NewBytesReader(w.Buf))
	var le *wire.LimitError
	if !errors.As(err, &le) {
		t.Fatalf("want LimitError, got %v", err)
	}
}

func TestProgressGolden(t *testing.T) {
	// ch-go proto/_golden/progress.raw (rev 54460).
	raw := unhex(t, "64 f88e25 e807 b903 8fc705 00")
	want := Progress{ReadRows: 100, ReadBytes: 608120, TotalRows: 1000, WrittenRows: 441, WrittenBytes: 91023}
	var p Progress
	requireNoShortRead(t, raw, func(r *wire.Reader) error { return p.Decode(r, 54460) })
	if err := p.Decode(wire.NewBytesReader(raw), 54460); err != nil || p != want {
		t.Fatalf("%+v %v", p, err)
	}
	var w wire.Writer
	want.Encode(&w, 54460)
	requireBytes(t, w.Buf[1:], raw)
}

func TestProgressRevisions(t *testing.T) {
	full := Progress{1, 2, 3, 4, 5, 6, 7}
	for _, rev := range []Revision{54412, 54420, 54450, 54460, 54463} {
		var w wire.Writer
		full.Encode(&w, rev)
		var got Progress
		requireNoShortRead(t, w.Buf[1:], func(r *wire.Reader) error { return got.Decode(r, rev) })
		_ = got.Decode(wire.NewBytesReader(w.Buf[1:]), rev)
		want := full
		if !rev.Has(RevTotalBytesInProgress) {
			want.TotalBytes = 0
		}
		if !rev.Has(RevClientWriteInfo) {
			want.WrittenRows, want.WrittenBytes = 0, 0
		}
		if !rev.Has(RevServerQueryTimeInProgress) {
			want.ElapsedNS = 0
		}
		if got != want {
			t.Fatalf("rev %d: %+v", rev, got)
		}
	}
}

func TestProfileInfoRevisions(t *testing.T) {
	full := ProfileInfo{Rows: 1, Blocks: 2, Bytes: 3, AppliedLimit: true, RowsBeforeLimit: 5,
		CalculatedRowsBeforeLimit: true, AppliedAggregation: true, RowsBeforeAggregation: 9}
	for _, rev := range []Revision{54412, 54460, 54469} {
		var w wire.Writer
		full.Encode(&w, rev)
		var got ProfileInfo
		requireNoShortRead(t, w.Buf[1:], func(r *wire.Reader) error { return got.Decode(r, rev) })
		_ = got.Decode(wire.NewBytesReader(w.Buf[1:]), rev)
		want := full
		if !rev.Has(RevRowsBeforeAggregation) {
			want.AppliedAggregation, want.RowsBeforeAggregation = false, 0
		}
		if got != want {
			t.Fatalf("rev %d: %+v", rev, got)
		}
	}
}

func TestTableColumnsGolden(t *testing.T) {
	tc := TableColumns{Description: "columns format version: 1\n1 columns:\n`id` UInt8\n"}
	var w wire.Writer
	tc.Encode(&w)
	requireBytes(t, w.Buf[:3], []byte{0x0b, 0x00, byte(len(tc.Description))})
	var got TableColumns
	requireNoShortRead(t, w.Buf[1:], got.Decode)
	_ = got.Decode(wire.NewBytesReader(w.Buf[1:]))
	if got != tc {
		t.Fatalf("%+v", got)
	}
}

func TestTablesStatus(t *testing.T) {
	s := TablesStatusResponse{Tables: []TableStatus{
		{Database: "db", Table: "a"},
		{Database: "db", Table: "b", IsReplicated: true, AbsoluteDelay: 12, IsReadonly: true},
	}}
	for _, rev := range []Revision{54460, 54467} {
		var w wire.Writer
		s.Encode(&w, rev)
		var got TablesStatusResponse
		requireNoShortRead(t, w.Buf[1:], func(r *wire.Reader) error { return got.Decode(r, rev) })
		_ = got.Decode(wire.NewBytesReader(w.Buf[1:]), rev)
		want := s
		if !rev.Has(RevTableReadOnlyCheck) {
			want.Tables = append([]TableStatus(nil), s.Tables...)
			want.Tables[1].IsReadonly = false
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("rev %d: %+v", rev, got)
		}
	}
	req := TablesStatusRequest{Tables: []QualifiedTable{{"db", "t"}}}
	var w wire.Writer
	req.Encode(&w)
	requireBytes(t, w.Buf, unhex(t, `05 01 02 "db" 01 "t"`))
}

func TestCodeStrings(t *testing.T) {
	if ServerCodeProfileEvents.String() != "ProfileEvents" || ServerCode(99).String() != "ServerCode(99)" {
		t.Fatal(ServerCodeProfileEvents.String())
	}
	if ClientCodeSSHChallengeResponse.String() != "SSHChallengeResponse" || ClientCode(15).String() != "ClientCode(15)" {
		t.Fatal(ClientCodeSSHChallengeResponse.String())
	}
	if len(serverCodeNames) != int(maxServerCode)+1 {
		t.Fatal("server code names")
	}
}
