package nativeproto

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/chnative/chnative/internal/wire"
)

// createDBQuery is the Query of captures/query_create_db.raw (clickhouse-client 21.11.4, rev 54450).
func createDBQuery() Query {
	const id = "23ad2c07-2f68-4005-9bac-da8f467bdd3b"
	return Query{
		ID: id,
		ClientInfo: ClientInfo{
			Kind:            QueryKindInitial,
			InitialQueryID:  id,
			InitialAddress:  "0.0.0.0:0",
			Interface:       InterfaceTCP,
			OSUser:          "ernado",
			ClientHostname:  "nexus",
			ClientName:      "ClickHouse ",
			Major:           21,
			Minor:           11,
			ProtocolVersion: 54450,
			Patch:           4,
		},
		Stage: StageComplete,
		Body:  "CREATE DATABASE test;",
	}
}

func TestQueryGolden(t *testing.T) {
	raw := capture(t, "query_create_db.raw")
	q := createDBQuery()
	var w wire.Writer
	if err := q.Encode(&w, 54450); err != nil {
		t.Fatal(err)
	}
	requireBytes(t, w.Buf, raw)

	var got Query
	requireNoShortRead(t, raw[1:], func(r *wire.Reader) error { return got.Decode(r, 54450) })
	if err := got.Decode(wire.NewBytesReader(raw[1:]), 54450); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, q) {
		t.Fatalf("got %+v\nwant %+v", got, q)
	}
}

func TestQueryRoundTrip(t *testing.T) {
	for _, rev := range []Revision{54000, 54032, 54412, 54429, 54441, 54450, 54459, 54460, 54475, 54476, 54480} {
		q := createDBQuery()
		q.ClientInfo.QuotaKey = "quota"
		q.ClientInfo.DistributedDepth = 2
		q.ClientInfo.InitialQueryStartTime = 1700000000000000
		q.ClientInfo.CollaborateWithInitiator = 1
		q.ClientInfo.ScriptQueryNumber = 3
		q.ClientInfo.Trace = &Trace{TraceID: [16]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16},
			SpanID: [8]byte{1, 2, 3, 4, 5, 6, 7, 8}, State: "st", Flags: 1}
		q.Compression = true
		q.Settings = []Setting{{Key: "max_block_size", Value: "1000"}, {Key: "send_logs_level", Value: "trace"},
			{Key: "network_zstd_compression_level", Value: "-3"}, {Key: "max_threads", Value: "auto"}}
		if rev.Has(RevParameters) {
			q.Parameters = []Setting{{Key: "x", Value: QuoteParameter("it's"), Custom: true}}
		}
		var w wire.Writer
		if err := q.Encode(&w, rev); err != nil {
			t.Fatalf("rev %d: %v", rev, err)
		}
		var got Query
		requireNoShortRead(t, w.Buf[1:], func(r *wire.Reader) error { return got.Decode(r, rev) })
		if err := got.Decode(wire.NewBytesReader(w.Buf[1:]), rev); err != nil {
			t.Fatal(err)
		}
		want := q
		ci := &want.ClientInfo
		if !rev.Has(RevClientInfo) {
			*ci = ClientInfo{}
		}
		if !rev.Has(RevInitialQueryStartTime) {
			ci.InitialQueryStartTime = 0
		}
		if !rev.Has(RevQuotaKeyInClientInfo) {
			ci.QuotaKey = ""
		}
		if !rev.Has(RevVersionPatch) {
			ci.Patch = 0
		}
		if !rev.Has(RevDistributedDepth) {
			ci.DistributedDepth = 0
		}
		if !rev.Has(RevOpenTelemetry) {
			ci.Trace = nil
		}
		if !rev.Has(RevParallelReplicas) {
			ci.CollaborateWithInitiator = 0
		}
		if !rev.Has(RevQueryAndLineNumbers) {
			ci.ScriptQueryNumber = 0
		}
		want.Settings = append([]Setting(nil), q.Settings...)
		if !rev.Has(RevSettingsAsStrings) {
			want.Settings[3].Value = "0" // auto in the binary format
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("rev %d:\n got %+v\nwant %+v", rev, got, want)
		}
	}
}

func TestQueryOTelBytes(t *testing.T) {
	// protocol.md §2.4: trace id 01..10, span 01..08.
	ci := ClientInfo{Trace: &Trace{TraceID: [16]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16},
		SpanID: [8]byte{1, 2, 3, 4, 5, 6, 7, 8}}}
	var w wire.Writer
	if err := ci.Encode(&w, 54460); err != nil {
		t.Fatal(err)
	}
	want := unhex(t, "01 08 07 06 05 04 03 02 01 10 0f 0e 0d 0c 0b 0a 09 08 07 06 05 04 03 02 01 00 00")
	if !strings.Contains(string(w.Buf), string(want)) {
		t.Fatalf("trace bytes not found in %x", w.Buf)
	}
}

func TestSettingsBinary(t *testing.T) {
	var w wire.Writer
	err := encodeSettings(&w, 54412, []Setting{
		{Key: "max_block_size", Value: "65536"},
		{Key: "network_zstd_compression_level", Value: "-1"},
		{Key: "totals_auto_threshold", Value: "0.5"},
		{Key: "join_use_nulls", Value: "true"},
		{Key: "network_compression_method", Value: "zstd"},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := unhex(t, `0e "max_block_size" 808004 1e "network_zstd_compression_level" 01
		15 "totals_auto_threshold" 03 "0.5" 0e "join_use_nulls" 01
		1a "network_compression_method" 04 "zstd" 00`)
	requireBytes(t, w.Buf, want)

	w.Reset()
	if err := encodeSettings(&w, 54460, []Setting{{Key: "a", Value: "1", Important: true}, {Key: "b", Value: "x", Custom: true}}); err != nil {
		t.Fatal(err)
	}
	requireBytes(t, w.Buf, unhex(t, `01 "a" 01 01 "1" 01 "b" 02 01 "x" 00`))
}

func TestSettingsBinaryErrors(t *testing.T) {
	for _, s := range []Setting{
		{Key: "no_such_setting_in_18", Value: "1"},
		{Key: "max_block_size", Value: "lots"},
		{Key: "network_zstd_compression_level", Value: "x"},
		{Key: "my_custom", Value: "1", Custom: true},
	} {
		q := Query{Settings: []Setting{s}}
		var w wire.Writer
		err := q.Encode(&w, 54412)
		var pe *ProtocolError
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), s.Key) {
			t.Fatalf("%+v: want a ProtocolError naming the setting, got %v", s, err)
		}
		if len(w.Buf) != 0 {
			t.Fatalf("%+v: partial packet left in the buffer", s)
		}
	}
	q := Query{Parameters: []Setting{{Key: "p", Value: "'1'"}}}
	var w wire.Writer
	if err := q.Encode(&w, 54458); err == nil {
		t.Fatal("parameters accepted below RevParameters")
	}
}

func TestQuoteParameter(t *testing.T) {
	if got := QuoteParameter(`a'b\c`); got != `'a\'b\\c'` {
		t.Fatal(got)
	}
}
