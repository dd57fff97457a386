package nativeproto

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/chnative/chnative/internal/wire"
)

func TestServerHelloGolden(t *testing.T) {
	raw := capture(t, "ServerHello.raw")
	r := wire.NewBytesReader(raw)
	code, err := r.UVarInt()
	if err != nil || ServerCode(code) != ServerCodeHello {
		t.Fatalf("code %d, %v", code, err)
	}
	var h ServerHello
	if err := h.Decode(r, ClientRevision); err != nil {
		t.Fatal(err)
	}
	if r.Buffered() != 0 {
		t.Fatalf("%d bytes left", r.Buffered())
	}
	want := ServerHello{Name: "ClickHouse server", Major: 21, Minor: 11, Revision: 54450,
		Timezone: "Europe/Moscow", DisplayName: "alpha", Patch: 3}
	if !reflect.DeepEqual(h, want) {
		t.Fatalf("got %+v\nwant %+v", h, want)
	}
	var w wire.Writer
	if err := h.Encode(&w, ClientRevision); err != nil {
		t.Fatal(err)
	}
	requireBytes(t, w.Buf, raw)
	requireNoShortRead(t, raw[1:], func(r *wire.Reader) error {
		var h ServerHello
		return h.Decode(r, ClientRevision)
	})
}

func TestServerHelloRevisions(t *testing.T) {
	full := ServerHello{Name: "ClickHouse", Major: 25, Minor: 8, Revision: 54480,
		ParallelReplicasVersion: 8, Timezone: "UTC", DisplayName: "srv", Patch: 7,
		ChunkedSend: "notchunked", ChunkedRecv: "chunked_optional",
		PasswordRules: []PasswordRule{{"^.{8,}$", "at least 8"}}, Nonce: 0x0102030405060708,
		Settings:         []Setting{{Key: "max_threads", Value: "4", Important: true}},
		QueryPlanVersion: 21, ClusterFunctionVersion: 11}
	for _, clientRev := range []Revision{54000, 54058, 54372, 54401, 54412, 54450, 54460, 54461, 54462, 54470, 54471, 54474, 54477, 54479, 54480} {
		var w wire.Writer
		if err := full.Encode(&w, clientRev); err != nil {
			t.Fatal(err)
		}
		r := wire.NewBytesReader(w.Buf[1:])
		var got ServerHello
		if err := got.Decode(r, clientRev); err != nil {
			t.Fatalf("rev %d: %v", clientRev, err)
		}
		if r.Buffered() != 0 {
			t.Fatalf("rev %d: %d bytes left", clientRev, r.Buffered())
		}
		want := full
		if !clientRev.Has(RevVersionedParallelReplicas) {
			want.ParallelReplicasVersion = 0
		}
		if !clientRev.Has(RevServerTimezone) {
			want.Timezone = ""
		}
		if !clientRev.Has(RevServerDisplayName) {
			want.DisplayName = ""
		}
		if !clientRev.Has(RevVersionPatch) {
			want.Patch = uint64(full.Revision)
		}
		if !clientRev.Has(RevChunkedPackets) {
			want.ChunkedSend, want.ChunkedRecv = "", ""
		}
		if !clientRev.Has(RevPasswordComplexityRules) {
			want.PasswordRules = nil
		}
		if !clientRev.Has(RevInterserverSecretV2) {
			want.Nonce = 0
		}
		if !clientRev.Has(RevServerSettings) {
			want.Settings = nil
		}
		if !clientRev.Has(RevQueryPlanSerialization) {
			want.QueryPlanVersion = 0
		}
		if !clientRev.Has(RevVersionedClusterFunction) {
			want.ClusterFunctionVersion = 0
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("rev %d:\n got %+v\nwant %+v", clientRev, got, want)
		}
		requireNoShortRead(t, w.Buf[1:], func(r *wire.Reader) error {
			var h ServerHello
			return h.Decode(r, clientRev)
		})
	}
}

func TestServerHelloOldServerNewClient(t *testing.T) {
	// An 18.16 server (54412) answering our 54460: no fields above 54412.
	h := ServerHello{Name: "ClickHouse", Major: 18, Minor: 16, Revision: 54412, Timezone: "UTC", DisplayName: "x", Patch: 1}
	var w wire.Writer
	if err := h.Encode(&w, ClientRevision); err != nil {
		t.Fatal(err)
	}
	requireBytes(t, w.Buf, unhex(t, `00 0a "ClickHouse" 12 10 8ca903 03 "UTC" 01 "x" 01`))
}

func TestServerHelloStringCap(t *testing.T) {
	var w wire.Writer
	w.String("ClickHouse")
	w.UVarInt(25)
	w.UVarInt(1)
	w.UVarInt(54460)
	w.String(strings.Repeat("z", MaxHelloStringSize+1))
	var h ServerHello
	err := h.Decode(wire.NewBytesReader(w.Buf), ClientRevision)
	var le *wire.LimitError
	if !errors.As(err, &le) || !strings.Contains(err.Error(), "timezone") {
		t.Fatalf("want a LimitError naming the timezone, got %v", err)
	}
}

// TestServerHelloRefusesOldRevision: a Hello announcing a revision below OldestRevision (1, or
// one below 18.16's) is a ProtocolError naming both revisions; 18.16's own is accepted.
func TestServerHelloRefusesOldRevision(t *testing.T) {
	for _, srv := range []uint64{0, 1, 54032, uint64(OldestRevision) - 1, uint64(OldestRevision)} {
		var w wire.Writer
		w.String("ClickHouse")
		w.UVarInt(18)
		w.UVarInt(16)
		w.UVarInt(srv)
		w.String("UTC")
		w.String("x")
		w.UVarInt(1)
		var h ServerHello
		err := h.Decode(wire.NewBytesReader(w.Buf), ClientRevision)
		if srv == uint64(OldestRevision) {
			if err != nil {
				t.Fatalf("revision %d: %v", srv, err)
			}
			continue
		}
		var pe *ProtocolError
		if !errors.As(err, &pe) {
			t.Fatalf("revision %d: want a ProtocolError, got %v", srv, err)
		}
		for _, want := range []string{fmt.Sprint(srv), fmt.Sprint(uint64(OldestRevision))} {
			if !strings.Contains(err.Error(), " "+want+" ") {
				t.Fatalf("revision %d: error %q does not name %s", srv, err, want)
			}
		}
	}
}

func TestClientHelloGolden(t *testing.T) {
	// ch-go proto/_golden/client_hello.raw.
	want := unhex(t, `00 02 63 68 01 01 a8 c0 02 06 67 69 74 68 75 62 03 6e 65 6f 00`)
	h := ClientHello{ClientName: "ch", Major: 1, Minor: 1, Revision: 41000, Database: "github", User: "neo"}
	var w wire.Writer
	h.Encode(&w)
	requireBytes(t, w.Buf, want)
	var got ClientHello
	requireNoShortRead(t, want[1:], got.Decode)
	if err := got.Decode(wire.NewBytesReader(want[1:])); err != nil {
		t.Fatal(err)
	}
	if got != h {
		t.Fatalf("got %+v", got)
	}
}

func TestAddendum(t *testing.T) {
	for _, rev := range []Revision{54450, 54458, 54460, 54470, 54471} {
		var w wire.Writer
		WriteAddendum(&w, rev, "qk")
		var a Addendum
		if !rev.Has(RevAddendum) {
			if len(w.Buf) != 0 {
				t.Fatalf("rev %d: addendum written", rev)
			}
			continue
		}
		requireNoShortRead(t, w.Buf, func(r *wire.Reader) error { return a.Decode(r, rev) })
		if err := a.Decode(wire.NewBytesReader(w.Buf), rev); err != nil {
			t.Fatal(err)
		}
		if a.QuotaKey != "qk" {
			t.Fatalf("rev %d: %+v", rev, a)
		}
		if rev.Has(RevChunkedPackets) && (a.ChunkedSend != "notchunked" || a.ChunkedRecv != "notchunked") {
			t.Fatalf("rev %d: %+v", rev, a)
		}
		if rev.Has(RevVersionedParallelReplicas) && a.ParallelReplicasVersion != ParallelReplicasProtocolVersion {
			t.Fatalf("rev %d: %+v", rev, a)
		}
	}
	var w wire.Writer
	WriteAddendum(&w, 54460, "")
	requireBytes(t, w.Buf, []byte{0})
}
