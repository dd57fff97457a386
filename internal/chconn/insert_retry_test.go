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
	want := map[int32]string{209: "SOCKET_TIMEOUT", 210: "NETWORK_ERROR", 225: "NO_ZOOKEEPER", 242: "TABLE_IS_READ_ONLY",
		279: "ALL_CONNECTION_TRIES_FAILED", 319: "UNKNOWN_STATUS_OF_INSERT", 999: "KEEPER_EXCEPTION"}
	if len(retryableInsertCodes) != len(want) {
		t.Fatalf("%d codes, want %d", len(retryableInsertCodes), len(want))
	}
	for code, name := range want {
		if !RetryableInsertCode(code) || RetryableInsertCodeName(code) != name {
			t.Errorf("code %d: retryable %v, name %q; want %s", code, RetryableInsertCode(code), RetryableInsertCodeName(code), name)
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
	if err := pw.WriteDataBorrowed("", b); err != nil {
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
		if r.dropped || len(r.ends) != i+1 || len(r.buf) != (i+1)*size || cap(r.buf) > r.limit {
			t.Fatalf("after %d packets: dropped %v, %d ends, %d bytes, cap %d (limit %d)", i+1, r.dropped, len(r.ends), len(r.buf), cap(r.buf), r.limit)
		}
	}
	if !bytes.Equal(r.buf[:size], one.AppendPending(nil)) || !bytes.Equal(r.buf[2*size:], one.AppendPending(nil)) {
		t.Fatal("the kept bytes are not the packet's")
	}
	r.keep(one) // past the bound: every copy goes
	if !r.dropped || r.buf != nil || r.ends != nil {
		t.Fatalf("past the bound: dropped %v, %d bytes kept", r.dropped, len(r.buf))
	}
	r.keep(one)
	if r.buf != nil {
		t.Fatal("a packet kept after the copies were dropped")
	}
	none := insertRetry{limit: 0}
	none.keep(pendingPacket(t, 1))
	if !none.dropped || none.buf != nil {
		t.Fatal("insert_retry_buffer=0 kept a packet")
	}
}

func TestInsertRetryReleaseRetains(t *testing.T) {
	c := &Conn{cfg: &dsn.Config{InsertRetryBuffer: 64 << 20}}
	small := insertRetry{buf: make([]byte, 10, 1<<10), ends: []int{10}}
	small.release(c)
	if cap(c.keptBuf) != 1<<10 || len(c.keptBuf) != 0 || len(c.keptEnds) != 0 || small.buf != nil {
		t.Fatalf("a small buffer was not kept for the next insert: cap %d", cap(c.keptBuf))
	}
	var next insertRetry
	next.start(c, nil)
	if cap(next.buf) != 1<<10 || c.keptBuf != nil || next.limit != 64<<20 {
		t.Fatal("the next insert did not take the kept buffer")
	}
	big := insertRetry{buf: make([]byte, 0, keptRetain+1)}
	big.release(c)
	if c.keptBuf != nil {
		t.Fatal("a buffer above keptRetain was kept on the connection")
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
