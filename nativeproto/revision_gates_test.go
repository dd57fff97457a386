package nativeproto

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/chnative/chnative/internal/wire"
)

// Tests of the fields gated from 54461 to 54488: golden bytes written in the order of the C++
// writers (TCPHandler::sendHello, ClientInfo::write, ProgressValues::write, ProfileInfo::write,
// TableStatus::write) and captures of a 26.7 server (testdata/captures/*_26_7.raw, taken at
// revision 54488).

func TestServerHello267Capture(t *testing.T) {
	raw := capture(t, "server_hello_26_7.raw")
	r := wire.NewBytesReader(raw)
	if code, err := r.UVarInt(); err != nil || ServerCode(code) != ServerCodeHello {
		t.Fatalf("code %d, %v", code, err)
	}
	var h ServerHello
	if err := h.Decode(r, LatestRevision); err != nil {
		t.Fatal(err)
	}
	if r.Buffered() != 0 {
		t.Fatalf("%d bytes left after the Hello", r.Buffered())
	}
	want := ServerHello{Name: "ClickHouse", Major: 26, Minor: 7, Revision: 54488,
		ParallelReplicasVersion: 8, Timezone: "Etc/UTC", DisplayName: "vm", Patch: 2,
		ChunkedSend: "notchunked", ChunkedRecv: "notchunked", Nonce: h.Nonce,
		Settings: []Setting{{Key: "max_execution_time", Value: "600"}, {Key: "max_memory_usage", Value: "4000000000"},
			{Key: "allow_introspection_functions", Value: "1"}, {Key: "storage_file_read_method", Value: "mmap"},
			{Key: "implicit_select", Value: "1"}, {Key: "output_format_arrow_use_native_writer", Value: "0"}},
		QueryPlanVersion: 3, ClusterFunctionVersion: 8}
	if !reflect.DeepEqual(h, want) {
		t.Fatalf("got  %+v\nwant %+v", h, want)
	}
	if h.Nonce == 0 {
		t.Fatal("no nonce")
	}
	var w wire.Writer
	if err := h.Encode(&w, LatestRevision); err != nil {
		t.Fatal(err)
	}
	requireBytes(t, w.Buf, raw)
	requireNoShortRead(t, raw[1:], func(r *wire.Reader) error { return h.Decode(r, LatestRevision) })
	if err := CheckNotChunked(&h, LatestRevision); err != nil {
		t.Fatal(err)
	}
}

func TestServerHelloGolden54479(t *testing.T) {
	h := ServerHello{Name: "CH", Major: 26, Minor: 7, Revision: 54488, ParallelReplicasVersion: 8,
		Timezone: "UTC", DisplayName: "d", Patch: 2, ChunkedSend: "chunked_optional", ChunkedRecv: "notchunked",
		PasswordRules: []PasswordRule{{Pattern: ".{8}", Message: "8+"}}, Nonce: 0x0807060504030201,
		Settings: []Setting{{Key: "k", Value: "v", Important: true}}, QueryPlanVersion: 21, ClusterFunctionVersion: 11}
	// sendHello order: name, major, minor, revision, [54471] parallel replicas version,
	// timezone, display name, patch, [54470] send/recv caps, [54461] rules, [54462] nonce
	// (UInt64 LE), [54474] settings with flags + "", [54477] plan version, [54479] cluster
	// function version.
	tail := map[Revision]string{
		54478: ``,
		54479: `0b`,
	}
	for rev, extra := range tail {
		want := unhex(t, `00 02 "CH" 1a 07 d8a903 08 03 "UTC" 01 "d" 02
			10 "chunked_optional" 0a "notchunked"
			01 04 ".{8}" 02 "8+"
			01 02 03 04 05 06 07 08
			01 "k" 01 01 "v" 00
			15 `+extra)
		var w wire.Writer
		if err := h.Encode(&w, rev); err != nil {
			t.Fatal(err)
		}
		requireBytes(t, w.Buf, want)
		var got ServerHello
		requireNoShortRead(t, want[1:], func(r *wire.Reader) error { return got.Decode(r, rev) })
		if err := got.Decode(wire.NewBytesReader(want[1:]), rev); err != nil {
			t.Fatal(err)
		}
		exp := h
		if !rev.Has(RevVersionedClusterFunction) {
			exp.ClusterFunctionVersion = 0
		}
		if !reflect.DeepEqual(got, exp) {
			t.Fatalf("rev %d: got %+v", rev, got)
		}
	}
}

func TestServerHelloLimits(t *testing.T) {
	hello := func(rules int, rule, value string) []byte {
		var w wire.Writer
		w.String("ClickHouse")
		w.UVarInt(26)
		w.UVarInt(7)
		w.UVarInt(54488)
		w.UVarInt(8)
		w.String("UTC")
		w.String("x")
		w.UVarInt(2)
		w.String("notchunked")
		w.String("notchunked")
		w.UVarInt(uint64(rules))
		for range min(rules, 2) {
			w.String(rule)
			w.String("m")
		}
		return w.Buf
	}
	var h ServerHello
	var le *wire.LimitError
	err := h.Decode(wire.NewBytesReader(hello(MaxPasswordRules+1, "p", "")), LatestRevision)
	if !errors.As(err, &le) || le.Max != MaxPasswordRules || !strings.Contains(err.Error(), "password rules") {
		t.Fatalf("rule count: want a LimitError at %d, got %v", MaxPasswordRules, err)
	}
	err = h.Decode(wire.NewBytesReader(hello(1, strings.Repeat("p", MaxHelloStringSize+1), "")), LatestRevision)
	if !errors.As(err, &le) || !strings.Contains(err.Error(), "password rule pattern") {
		t.Fatalf("rule size: want a LimitError, got %v", err)
	}
	// A setting value above maxSettingValueSize.
	b := hello(0, "", "")
	var w wire.Writer
	w.Raw(b)
	w.Uint64(1)
	w.String("k")
	w.UVarInt(0)
	w.UVarInt(maxSettingValueSize + 1)
	err = h.Decode(wire.NewBytesReader(w.Buf), LatestRevision)
	if !errors.As(err, &le) || !strings.Contains(err.Error(), "setting value") {
		t.Fatalf("setting value: want a LimitError, got %v", err)
	}
}

func TestChunkedNegotiation(t *testing.T) {
	for _, tt := range []struct {
		caps          string
		client        bool
		chunked, isOK bool
	}{
		{"notchunked", false, false, true},
		{"notchunked", true, false, false},
		{"chunked", false, true, false},
		{"chunked", true, true, true},
		{"chunked_optional", false, false, true},
		{"chunked_optional", true, true, true},
		{"notchunked_optional", false, false, true},
		{"notchunked_optional", true, true, true},
		{"", false, false, true}, // anything not starting with "chunked" is notchunked
		{"junk", true, false, false},
	} {
		c, ok := ChunkedDirection(tt.caps, tt.client)
		if c != tt.chunked || ok != tt.isOK {
			t.Errorf("ChunkedDirection(%q, %v) = %v, %v; want %v, %v", tt.caps, tt.client, c, ok, tt.chunked, tt.isOK)
		}
	}
	for _, tt := range []struct {
		send, recv string
		rev        Revision
		errWith    string
	}{
		{"notchunked", "notchunked", 54488, ""},
		{"chunked_optional", "notchunked_optional", 54488, ""},
		{"chunked", "notchunked", 54488, "proto_caps.send"},
		{"notchunked", "chunked", 54488, "proto_caps.recv"},
		{"chunked", "chunked", 54469, ""}, // not negotiated below 54470
	} {
		h := ServerHello{ChunkedSend: tt.send, ChunkedRecv: tt.recv}
		err := CheckNotChunked(&h, tt.rev)
		var pe *ProtocolError
		switch {
		case tt.errWith == "" && err != nil:
			t.Errorf("%s/%s at %d: %v", tt.send, tt.recv, tt.rev, err)
		case tt.errWith != "" && (!errors.As(err, &pe) || !strings.Contains(err.Error(), tt.errWith) || !strings.Contains(err.Error(), "chunked")):
			t.Errorf("%s/%s: want a ProtocolError naming %s, got %v", tt.send, tt.recv, tt.errWith, err)
		}
	}
}

func TestAddendumGolden(t *testing.T) {
	for _, tt := range []struct {
		rev  Revision
		want string
	}{
		{54457, ``},
		{54458, `02 "qk"`},
		{54469, `02 "qk"`},
		{54470, `02 "qk" 0a "notchunked" 0a "notchunked"`},
		{54471, `02 "qk" 0a "notchunked" 0a "notchunked" 08`},
		{54488, `02 "qk" 0a "notchunked" 0a "notchunked" 08`},
	} {
		var w wire.Writer
		WriteAddendum(&w, tt.rev, "qk")
		requireBytes(t, w.Buf, unhex(t, tt.want))
	}
}

// clientInfoTail is the ClientInfo of TestClientInfoGates up to the parallel replica fields.
const clientInfoHead = `01 00 02 "id" 09 "0.0.0.0:0" 0000000000000000 01 02 "os" 02 "hn" 02 "ch" 01 02`

func TestClientInfoGates(t *testing.T) {
	ci := ClientInfo{Kind: QueryKindInitial, InitialQueryID: "id", InitialAddress: "0.0.0.0:0", Interface: InterfaceTCP,
		OSUser: "os", ClientHostname: "hn", ClientName: "ch", Major: 1, Minor: 2, ProtocolVersion: 54488,
		QuotaKey: "q", Patch: 3, ScriptQueryNumber: 4, ScriptLineNumber: 5, JWT: "j",
		ClientAgent: "agent", IsInternal: true, CurrentRoles: []string{"r1", "r2"}}
	// After the head: protocol version, quota key, distributed depth, patch, no trace, the three
	// parallel replica varints, then the gated tail.
	common := func(rev Revision) string {
		return clientInfoHead + ` ` + map[Revision]string{54474: "ca a9 03", 54475: "cb a9 03", 54476: "cc a9 03",
			54484: "d4 a9 03", 54485: "d5 a9 03", 54486: "d6 a9 03", 54487: "d7 a9 03", 54488: "d8 a9 03"}[rev] +
			` 01 "q" 00 03 00 00 00 00`
	}
	for _, tt := range []struct {
		rev  Revision
		tail string
	}{
		{54474, ``},
		{54475, `04 05`},
		{54476, `04 05 01 01 "j"`},
		{54484, `04 05 01 01 "j"`},
		{54485, `04 05 01 01 "j" 05 "agent"`},
		{54486, `04 05 01 01 "j" 05 "agent" 01`},
		{54487, `04 05 01 01 "j" 05 "agent" 01`},
		{54488, `04 05 01 01 "j" 05 "agent" 01 01 02 02 "r1" 02 "r2"`},
	} {
		c := ci
		c.ProtocolVersion = tt.rev
		want := unhex(t, common(tt.rev)+` `+tt.tail)
		var w wire.Writer
		if err := c.Encode(&w, tt.rev); err != nil {
			t.Fatal(err)
		}
		requireBytes(t, w.Buf, want)
		var got ClientInfo
		requireNoShortRead(t, want, func(r *wire.Reader) error { return got.Decode(r, tt.rev) })
		if err := got.Decode(wire.NewBytesReader(want), tt.rev); err != nil {
			t.Fatal(err)
		}
		exp := c
		if !tt.rev.Has(RevQueryAndLineNumbers) {
			exp.ScriptQueryNumber, exp.ScriptLineNumber = 0, 0
		}
		if !tt.rev.Has(RevJWTInInterserver) {
			exp.JWT = ""
		}
		if !tt.rev.Has(RevClientAgentInClientInfo) {
			exp.ClientAgent = ""
		}
		if !tt.rev.Has(RevInternalQueryFlag) {
			exp.IsInternal = false
		}
		if !tt.rev.Has(RevInterserverCurrentRoles) {
			exp.CurrentRoles = nil
		}
		if !reflect.DeepEqual(got, exp) {
			t.Fatalf("rev %d:\n got %+v\nwant %+v", tt.rev, got, exp)
		}
	}

	// What the driver sends at 54488: no JWT, empty agent, not internal, no roles.
	c := ClientInfo{InitialQueryID: "id", InitialAddress: "0.0.0.0:0", OSUser: "os", ClientHostname: "hn",
		ClientName: "ch", Major: 1, Minor: 2, ProtocolVersion: 54488, QuotaKey: "q", Patch: 3}
	var w wire.Writer
	if err := c.Encode(&w, 54488); err != nil {
		t.Fatal(err)
	}
	requireBytes(t, w.Buf, unhex(t, common(54488)+` 00 00 00 00 00 00`))
	// An empty, non-nil role list sends the flag and a zero count.
	c.CurrentRoles = []string{}
	w.Reset()
	_ = c.Encode(&w, 54488)
	requireBytes(t, w.Buf, unhex(t, common(54488)+` 00 00 00 00 00 01 00`))
}

func TestClientInfoDecodeLimits(t *testing.T) {
	base := unhex(t, clientInfoHead+` d8 a9 03 01 "q" 00 03 00 00 00 00 00 00 00 00 00`)
	var w wire.Writer
	w.Raw(base)
	w.Byte(1)
	w.UVarInt(maxCurrentRoles + 1)
	var c ClientInfo
	var le *wire.LimitError
	if err := c.Decode(wire.NewBytesReader(w.Buf), 54488); !errors.As(err, &le) || !strings.Contains(err.Error(), "current roles") {
		t.Fatalf("want a LimitError for the roles, got %v", err)
	}
	// A role count with fewer names than it says fails on the missing bytes, without
	// allocating for the count.
	w.Reset()
	w.Raw(base)
	w.Byte(1)
	w.UVarInt(maxCurrentRoles)
	w.String("only")
	if err := c.Decode(wire.NewBytesReader(w.Buf), 54488); err == nil {
		t.Fatal("a short role list decoded")
	}
	// Any non-zero internal flag byte is set, as on the server.
	w.Reset()
	w.Raw(unhex(t, clientInfoHead+` d8 a9 03 01 "q" 00 03 00 00 00 00 00 00 00 00 02 00`))
	if err := c.Decode(wire.NewBytesReader(w.Buf), 54488); err != nil || !c.IsInternal || c.CurrentRoles != nil {
		t.Fatalf("%+v %v", c, err)
	}
}

func TestQueryExtraRoles(t *testing.T) {
	q := createDBQuery()
	q.ExtraRoles = "roles"
	for _, rev := range []Revision{54471, 54472, 54488} {
		q.ClientInfo.ProtocolVersion = rev
		var w wire.Writer
		if err := q.Encode(&w, rev); err != nil {
			t.Fatal(err)
		}
		// Settings terminator, [54472] extra roles, interserver hash, stage, compression, query.
		tail := `00 00 02 00 15 "CREATE DATABASE test;" 00`
		if rev.Has(RevInterserverExternalRoles) {
			tail = `00 05 "roles" 00 02 00 15 "CREATE DATABASE test;" 00`
		}
		want := unhex(t, tail)
		if got := w.Buf[len(w.Buf)-len(want):]; string(got) != string(want) {
			t.Fatalf("rev %d: tail %x, want %x", rev, got, want)
		}
		var got Query
		requireNoShortRead(t, w.Buf[1:], func(r *wire.Reader) error { return got.Decode(r, rev) })
		if err := got.Decode(wire.NewBytesReader(w.Buf[1:]), rev); err != nil {
			t.Fatal(err)
		}
		exp := q
		if !rev.Has(RevInterserverExternalRoles) {
			exp.ExtraRoles = ""
		}
		if rev.Has(RevClientAgentInClientInfo) {
			exp.ClientInfo.ClientAgent = "" // not set in createDBQuery either
		}
		if !reflect.DeepEqual(got, exp) {
			t.Fatalf("rev %d:\n got %+v\nwant %+v", rev, got, exp)
		}
	}
}

func TestProgressTotalBytesGolden(t *testing.T) {
	p := Progress{ReadRows: 1, ReadBytes: 2, TotalRows: 3, TotalBytes: 300, WrittenRows: 5, WrittenBytes: 6, ElapsedNS: 7}
	// ProgressValues::write: read rows, read bytes, total rows, [54463] total bytes, written
	// rows and bytes, elapsed ns.
	for rev, want := range map[Revision]string{
		54462: `03 01 02 03 05 06 07`,
		54463: `03 01 02 03 ac02 05 06 07`,
		54488: `03 01 02 03 ac02 05 06 07`,
	} {
		var w wire.Writer
		p.Encode(&w, rev)
		requireBytes(t, w.Buf, unhex(t, want))
		var got Progress
		requireNoShortRead(t, w.Buf[1:], func(r *wire.Reader) error { return got.Decode(r, rev) })
		if err := got.Decode(wire.NewBytesReader(w.Buf[1:]), rev); err != nil {
			t.Fatal(err)
		}
		exp := p
		if !rev.Has(RevTotalBytesInProgress) {
			exp.TotalBytes = 0
		}
		if got != exp {
			t.Fatalf("rev %d: %+v", rev, got)
		}
	}
}

func TestProfileInfoGolden54469(t *testing.T) {
	p := ProfileInfo{Rows: 1, Blocks: 2, Bytes: 3, AppliedLimit: true, RowsBeforeLimit: 4,
		CalculatedRowsBeforeLimit: true, AppliedAggregation: true, RowsBeforeAggregation: 200}
	for rev, want := range map[Revision]string{
		54468: `06 01 02 03 01 04 01`,
		54469: `06 01 02 03 01 04 01 01 c801`,
	} {
		var w wire.Writer
		p.Encode(&w, rev)
		requireBytes(t, w.Buf, unhex(t, want))
	}
}

func TestTablesStatusReadonlyGolden(t *testing.T) {
	s := TablesStatusResponse{Tables: []TableStatus{
		{Database: "d", Table: "r", IsReplicated: true, AbsoluteDelay: 7, IsReadonly: true},
		{Database: "d", Table: "m"},
	}}
	// TableStatus::write: is_replicated, and for a replicated table the delay and [54467]
	// is_readonly, both VarUInt.
	for rev, want := range map[Revision]string{
		54466: `09 02 01 "d" 01 "r" 01 07 01 "d" 01 "m" 00`,
		54467: `09 02 01 "d" 01 "r" 01 07 01 01 "d" 01 "m" 00`,
	} {
		var w wire.Writer
		s.Encode(&w, rev)
		requireBytes(t, w.Buf, unhex(t, want))
		var got TablesStatusResponse
		requireNoShortRead(t, w.Buf[1:], func(r *wire.Reader) error { return got.Decode(r, rev) })
		if err := got.Decode(wire.NewBytesReader(w.Buf[1:]), rev); err != nil {
			t.Fatal(err)
		}
		if got.Tables[0].IsReadonly != rev.Has(RevTableReadOnlyCheck) || got.Tables[0].AbsoluteDelay != 7 {
			t.Fatalf("rev %d: %+v", rev, got)
		}
	}
	// The request is the same at every revision for a client: nothing follows the tables.
	var w wire.Writer
	(&TablesStatusRequest{Tables: []QualifiedTable{{"d", "t"}}}).Encode(&w)
	requireBytes(t, w.Buf, unhex(t, `05 01 01 "d" 01 "t"`))
}

func TestDataHeader267Capture(t *testing.T) {
	// SELECT 1 AS x at 54488: BlockInfo carries field 3 (no out-of-order buckets).
	raw := capture(t, "data_header_26_7.raw")
	requireBytes(t, raw[:12], unhex(t, `01 00 01 00 02 ffffffff 03 00 00`))
	p := NewPacketReader(strings.NewReader(string(raw)))
	p.SetRevision(LatestRevision)
	code, err := p.ReadCode()
	if err != nil || code != ServerCodeData {
		t.Fatal(code, err)
	}
	_, b, err := p.ReadBlock(nil)
	if err != nil {
		t.Fatal(err)
	}
	if b.NumColumns() != 1 || b.Name(0) != "x" || b.Type(0) != "UInt8" || b.Rows() != 0 || b.Info.BucketNum != -1 || len(b.Info.OutOfOrderBuckets) != 0 {
		t.Fatalf("%+v %d", b.Info, b.NumColumns())
	}
	// Below 54480 field 3 is unknown.
	p = NewPacketReader(strings.NewReader(string(raw)))
	p.SetRevision(54479)
	_, _ = p.ReadCode()
	if _, _, err := p.ReadBlock(nil); err == nil || !strings.Contains(err.Error(), "block info field 3") {
		t.Fatalf("want an unknown field 3 error at 54479, got %v", err)
	}
	// Out-of-order buckets survive a round trip at 54480.
	info := BlockInfo{Overflows: true, BucketNum: 5, OutOfOrderBuckets: []int32{3, -1}}
	var w wire.Writer
	info.Encode(&w, 54480)
	requireBytes(t, w.Buf, unhex(t, `01 01 02 05000000 03 02 03000000 ffffffff 00`))
	var got BlockInfo
	requireNoShortRead(t, w.Buf, func(r *wire.Reader) error { return got.Decode(r, 54480) })
	if err := got.Decode(wire.NewBytesReader(w.Buf), 54480); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, info) {
		t.Fatalf("%+v", got)
	}
}

func TestCompressedTableColumns267Capture(t *testing.T) {
	// INSERT INTO t (id UInt64, name String, t DateTime) VALUES with lz4 at 54488: the whole
	// TableColumns body, table name included, is one LZ4 frame.
	raw := capture(t, "table_columns_lz4_26_7.raw")
	p := NewPacketReader(strings.NewReader(string(raw)))
	p.SetRevision(LatestRevision)
	p.SetCompression(true)
	code, err := p.ReadCode()
	if err != nil || code != ServerCodeTableColumns {
		t.Fatal(code, err)
	}
	tc, err := p.ReadTableColumns()
	if err != nil {
		t.Fatal(err)
	}
	if tc.Table != "" || tc.Description != "columns format version: 1\n3 columns:\n`id` UInt64\n`name` String\n`t` DateTime\n" {
		t.Fatalf("%+v", tc)
	}
	if p.Buffered() != 0 {
		t.Fatalf("%d bytes left", p.Buffered())
	}
	// Below 54481 the same packet is raw; a compressed one does not parse.
	for _, tt := range []struct {
		rev      Revision
		compress bool
	}{{54480, true}, {54488, false}} {
		p = NewPacketReader(strings.NewReader(string(raw)))
		p.SetRevision(tt.rev)
		p.SetCompression(tt.compress)
		_, _ = p.ReadCode()
		if tc, err := p.ReadTableColumns(); err == nil && strings.HasPrefix(tc.Description, "columns format") {
			t.Fatalf("rev %d compress %v: read as raw: %+v", tt.rev, tt.compress, tc)
		}
	}
	// A frame holding more than the packet is an error, not a desync.
	var body wire.Writer
	body.String("")
	body.String("d")
	body.Byte(0x05)
	var w wire.Writer
	w.UVarInt(uint64(ServerCodeTableColumns))
	out, err := AppendCompressed(w.Buf, body.Buf, MethodLZ4, 0)
	if err != nil {
		t.Fatal(err)
	}
	p = NewPacketReader(strings.NewReader(string(out)))
	p.SetRevision(LatestRevision)
	p.SetCompression(true)
	_, _ = p.ReadCode()
	var pe *ProtocolError
	if _, err := p.ReadTableColumns(); !errors.As(err, &pe) || !strings.Contains(err.Error(), "left over") {
		t.Fatalf("want a left-over error, got %v", err)
	}
}

func TestCompressedProfileEvents267Capture(t *testing.T) {
	raw := capture(t, "profile_events_lz4_26_7.raw")
	p := NewPacketReader(strings.NewReader(string(raw)))
	p.SetRevision(LatestRevision)
	p.SetCompression(true)
	code, err := p.ReadCode()
	if err != nil || code != ServerCodeProfileEvents {
		t.Fatal(code, err)
	}
	table, b, err := p.ReadLogBlock(nil)
	if err != nil {
		t.Fatal(err)
	}
	if table != "" || b.Rows() == 0 || b.Index("name") < 0 || b.Index("value") < 0 || b.Type(b.Index("value")) != "Int64" {
		t.Fatalf("table %q, %d rows, %d columns", table, b.Rows(), b.NumColumns())
	}
	if p.Buffered() != 0 {
		t.Fatalf("%d bytes left", p.Buffered())
	}
	// The same packet cannot be read as uncompressed, which 54480 would mean.
	p = NewPacketReader(strings.NewReader(string(raw)))
	p.SetRevision(54480)
	p.SetCompression(true)
	_, _ = p.ReadCode()
	if _, _, err := p.ReadLogBlock(nil); err == nil {
		t.Fatal("a compressed ProfileEvents block decoded as raw at 54480")
	}
}

func TestRevisionConstants(t *testing.T) {
	gates := []Revision{RevPasswordComplexityRules, RevInterserverSecretV2, RevTotalBytesInProgress, RevTimezoneUpdates,
		RevSparseSerialization, RevSSHAuthentication, RevTableReadOnlyCheck, RevSystemKeywordsTable,
		RevRowsBeforeAggregation, RevChunkedPackets, RevVersionedParallelReplicas, RevInterserverExternalRoles,
		RevV2DynamicAndJSON, RevServerSettings, RevQueryAndLineNumbers, RevJWTInInterserver,
		RevQueryPlanSerialization, RevParallelBlockMarshalling, RevVersionedClusterFunction, RevOutOfOrderBuckets,
		RevCompressedLogsProfileEvents, RevReplicatedSerialization, RevNullableSparseSerialization,
		RevProgressInAsyncInsert, RevClientAgentInClientInfo, RevInternalQueryFlag,
		RevInterserverSecretTablesStatus, RevInterserverCurrentRoles}
	for i, g := range gates {
		if g != Revision(54461+i) {
			t.Fatalf("gate %d is %d, want %d", i, g, 54461+i)
		}
	}
	if LatestRevision != 54488 || OldestRevision != 54412 || ClientRevision > LatestRevision || ClientRevision < OldestRevision {
		t.Fatalf("latest %d oldest %d client %d", LatestRevision, OldestRevision, ClientRevision)
	}
}
