package chconn

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/go-faster/city"

	"github.com/chnative/chnative/dsn"
	"github.com/chnative/chnative/internal/faketest"
	"github.com/chnative/chnative/nativeproto"
)

// A block leaves in pieces as it is encoded (nativeproto.WriteDataStream), each kept for a
// Resume. A server that hangs up as the block starts makes a socket write fail partway: the rest
// of the block is still encoded and kept, not sent, so Resume on another connection sends the
// whole block, and that server reads every row once.
func TestInsertStreamedBlockCutThenResumed(t *testing.T) {
	const rows = 1 << 20 // 8 MiB of UInt64, LZ4 frames of 1 MiB: several pieces
	hello := faketest.ModernHello()
	hdr, err := faketest.EmptyBlock([2]string{"n", "UInt64"})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := faketest.NewServer(func(s *faketest.Session) {
		if s.HandshakeHello(hello) != nil {
			return
		}
		q, err := s.ReadQuery()
		if err != nil {
			return
		}
		pkt, err := faketest.HeaderPacket(nil, s.Revision(), q.Compression, hdr)
		if err == nil {
			_ = s.Write(pkt)
		}
		// and hangs up: the client's writes of the block fail.
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	const query = "?compress=lz4&insert_retries=1"
	cfg, err := dsn.Parse("clickhouse://default@" + srv.Addr() + "/default" + query)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c1, err := Dial(ctx, cfg, srv.Addr(), Dialer{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c1.Close() })
	ins, err := c1.OpenInsert(ctx, "INSERT INTO t (n) VALUES", &Options{BlockSize: 2 * rows}, true)
	if err != nil {
		t.Fatal(err)
	}
	appendRows(t, ins, 0, rows)
	err = ins.flush()
	if err == nil { // every piece fitted in the socket's buffers: the end of the data fails
		err = ins.finish(ctx)
	}
	if err == nil || !IsTransport(err) {
		t.Fatalf("sending to a server that hung up: %v", err)
	}
	if !ins.Resumable() || !c1.bad {
		t.Fatalf("resumable %v, connection bad %v", ins.Resumable(), c1.bad)
	}
	if n := len(ins.retry.pkts); n < 2 {
		t.Fatalf("the block was kept as %d pieces: it was not streamed", n)
	}
	c2, seen := dialInsertServer(t, hello, true, query)
	if err := ins.Resume(ctx, c2, nil); err != nil {
		t.Fatal(err)
	}
	if err := ins.finish(ctx); err != nil {
		t.Fatalf("Finish after Resume: %v", err)
	}
	checkSeen(t, <-seen, []int{rows}, rows)
}

// The pieces of a streamed block, put together, are the packet the server reads: a block of long
// strings many times the writer's buffer, sent to the test server with and without compression,
// is all there when read back.
func TestInsertStreamedBlockRealServer(t *testing.T) {
	const rows = 200_000
	for _, compress := range []string{"none", "lz4"} {
		t.Run("compress="+compress, func(t *testing.T) {
			method, err := dsn.ParseCompression(compress)
			if err != nil {
				t.Fatal(err)
			}
			c := dialTest(t, func(cfg *dsn.Config) { cfg.Compress = method })
			ctx := context.Background()
			table := "j38_chconn_stream_" + compress
			nsTable(t, c, table)
			ins, err := c.OpenInsert(ctx, "INSERT INTO "+table+" (n, s) VALUES", &Options{BlockSize: 2 * rows}, true)
			if err != nil {
				t.Fatal(err)
			}
			wantLen, wantHash := 0, uint64(0)
			for i := range rows {
				s := strings.Repeat(strconv.Itoa(i%10), 50+i%100)
				wantLen += len(s)
				wantHash += city.CH64([]byte(s)) * uint64(i+1)
				if err := ins.Append(ctx, []any{uint64(i), s}); err != nil {
					t.Fatal(err)
				}
			}
			if err := ins.finish(ctx); err != nil {
				t.Fatal(err)
			}
			if wantLen < 50*nativeproto.StreamChunk {
				t.Fatalf("a block of %d bytes does not test streaming", wantLen)
			}
			row := readBackRow(t, c, "SELECT count(), sum(n), sum(length(s)), sum(cityHash64(s) * (n + 1)) FROM "+table)
			got := [4]any{row[0], row[1], row[2], row[3]}
			want := [4]any{uint64(rows), uint64(rows * (rows - 1) / 2), uint64(wantLen), wantHash}
			if got != want {
				t.Fatalf("read back count, sum(n), sum(length(s)), sum of the rows' string hashes %v, want %v", got, want)
			}
		})
	}
}
