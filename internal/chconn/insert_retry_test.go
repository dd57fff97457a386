package chconn

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/dsn"
	"github.com/chnative/chnative/nativeproto"
)

// The codes of the table are ClickHouse's (src/Common/ErrorCodes.cpp); a data error is never
// among them.
func TestRetryableInsertCodes(t *testing.T) {
	want := map[int32]string{32: "ATTEMPT_TO_READ_AFTER_EOF", 209: "SOCKET_TIMEOUT", 210: "NETWORK_ERROR", 225: "NO_ZOOKEEPER", 242: "TABLE_IS_READ_ONLY",
		279: "ALL_CONNECTION_TRIES_FAILED", 319: "UNKNOWN_STATUS_OF_INSERT", 999: "KEEPER_EXCEPTION"}
	if len(retryableInsertCodes) != len(want) {
		t.Fatalf("%d codes, want %d", len(retryableInsertCodes), len(want))
	}
	for code, name := range want {
		if !RetryableInsertCode(code) || retryableInsertCodeName(code) != name {
			t.Errorf("code %d: retryable %v, name %q; want %s", code, RetryableInsertCode(code), retryableInsertCodeName(code), name)
		}
	}
	// TYPE_MISMATCH, CANNOT_PARSE_TEXT, TOO_MANY_PARTS, VIOLATED_CONSTRAINT, UNKNOWN_TABLE, MEMORY_LIMIT_EXCEEDED.
	for _, code := range []int32{53, 6, 252, 469, 60, 241, 0} {
		if RetryableInsertCode(code) {
			t.Errorf("code %d retryable", code)
		}
	}
}

// pendingPacket returns a packet writer holding one Data packet of n bytes or so.
func pendingPacket(t *testing.T, rows int) *nativeproto.PacketWriter {
	t.Helper()
	b := nativeproto.NewBlock()
	col := columns.NewFixed[uint64]("")
	for i := range rows {
		col.Append(uint64(i))
	}
	b.Add("id", col)
	pw := nativeproto.NewPacketWriter()
	if err := pw.WriteDataStream("", b, nil); err != nil {
		t.Fatal(err)
	}
	return pw
}

func TestInsertRetryKeepBound(t *testing.T) {
	one := pendingPacket(t, 5000) // about 40 kB, borrowed
	size := one.PendingLen()
	r := insertRetry{limit: 3*size + 10}
	for i := range 3 {
		r.keep(one)
		if r.dropped || len(r.pkts) != i+1 || r.size != (i+1)*size || cap(r.pkts[i]) != size {
			t.Fatalf("after %d packets: dropped %v, %d packets, %d bytes, cap %d", i+1, r.dropped, len(r.pkts), r.size, cap(r.pkts[i]))
		}
	}
	for i := range r.pkts {
		if !bytes.Equal(r.pkts[i], one.AppendPending(nil)) {
			t.Fatalf("kept packet %d is not the packet's bytes", i)
		}
	}
	r.keep(one) // past the bound: every copy goes
	if !r.dropped || r.pkts != nil || r.size != 0 {
		t.Fatalf("past the bound: dropped %v, %d bytes kept", r.dropped, r.size)
	}
	r.keep(one)
	if r.pkts != nil {
		t.Fatal("a packet kept after the copies were dropped")
	}
	none := insertRetry{limit: 0}
	none.keep(pendingPacket(t, 1))
	if !none.dropped || none.pkts != nil {
		t.Fatal("insert_retry_buffer=0 kept a packet")
	}
}

func TestInsertRetryReleaseRetains(t *testing.T) {
	c := &Conn{cfg: &dsn.Config{InsertRetries: 2, InsertRetryBuffer: 64 << 20}}
	var r insertRetry
	r.start(c, nil)
	pw := pendingPacket(t, 5000)
	r.keep(pw)
	r.keep(pw)
	first := &r.pkts[0][0]
	r.release(c)
	if len(c.keptSpare) != 2 || r.pkts != nil || r.size != 0 {
		t.Fatalf("%d buffers kept for the next insert, want 2", len(c.keptSpare))
	}
	var next insertRetry
	next.start(c, nil)
	if c.keptSpare != nil || len(next.spare) != 2 || next.limit != 64<<20 {
		t.Fatal("the next insert did not take the kept buffers")
	}
	next.keep(pendingPacket(t, 10)) // smaller: reuses a spare
	next.keep(pw)
	next.keep(pw) // a third one is new
	if len(next.spare) != 0 || len(next.pkts) != 3 {
		t.Fatalf("%d spares left, %d packets", len(next.spare), len(next.pkts))
	}
	reused := false
	for _, p := range next.pkts[:2] {
		reused = reused || &p[:1][0] == first
	}
	if !reused {
		t.Fatal("a spare buffer was not reused")
	}
	big := insertRetry{pkts: [][]byte{make([]byte, 0, keptRetain/2+1), make([]byte, 0, keptRetain/2+1)}}
	big.release(c)
	if len(c.keptSpare) != 1 {
		t.Fatalf("%d buffers kept, want 1 (within keptRetain)", len(c.keptSpare))
	}
}

func TestInsertHeaderDiff(t *testing.T) {
	mk := func(cols ...string) *nativeproto.Block {
		b := nativeproto.NewBlock()
		for i := 0; i < len(cols); i += 2 {
			col, err := columns.New(cols[i+1])
			if err != nil {
				t.Fatal(err)
			}
			b.Add(cols[i], col)
		}
		return b
	}
	was := mk("id", "UInt64", "s", "String")
	for _, tc := range []struct {
		now  *nativeproto.Block
		want string
	}{
		{mk("id", "UInt64", "s", "String"), ""},
		{mk("id", "UInt64", "s", "LowCardinality(String)"), "column 1 is s LowCardinality(String), was s String"},
		{mk("id", "UInt64", "t", "String"), "column 1 is t String, was s String"},
		{mk("id", "UInt64"), "column 1 s String is missing"},
		{mk("id", "UInt64", "s", "String", "x", "Int8"), "column 2 x Int8 is new"},
	} {
		if got := headerDiff(was, tc.now); tc.want == "" && got != "" || !strings.HasPrefix(got, tc.want) {
			t.Errorf("headerDiff = %q, want %q", got, tc.want)
		}
	}
}

func TestCheckDedupToken(t *testing.T) {
	opts := &Options{DedupToken: "t"}
	for _, tc := range []struct {
		major, minor uint64
		ok           bool
	}{{18, 16, false}, {21, 12, false}, {22, 1, false}, {22, 2, true}, {22, 8, true}, {23, 1, true}, {26, 7, true}} {
		c := &Conn{addr: "h:9000", hello: nativeproto.ServerHello{Name: "ClickHouse", Major: tc.major, Minor: tc.minor, Patch: 3}}
		err := c.checkDedupToken("INSERT INTO t VALUES", opts)
		var ue *UnsupportedError
		if tc.ok != (err == nil) || err != nil && (!errors.As(err, &ue) || !strings.Contains(err.Error(), "22.2") ||
			!strings.Contains(err.Error(), "h:9000")) {
			t.Errorf("%d.%d: %v", tc.major, tc.minor, err)
		}
		// A query that is not an INSERT, or no token, is never refused.
		if c.checkDedupToken("SELECT 1", opts) != nil || c.checkDedupToken("INSERT INTO t VALUES", &Options{}) != nil ||
			c.checkDedupToken("INSERT INTO t VALUES", nil) != nil {
			t.Errorf("%d.%d: refused without an insert token", tc.major, tc.minor)
		}
	}
	settings := map[string]string{}
	opts.applyOptions(settings, "INSERT INTO t VALUES")
	if settings["insert_deduplication_token"] != "t" {
		t.Fatalf("settings %v", settings)
	}
	settings = map[string]string{}
	opts.applyOptions(settings, "SELECT 1")
	if _, ok := settings["insert_deduplication_token"]; ok {
		t.Fatal("a SELECT got the insert's token")
	}
}
