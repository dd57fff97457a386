package chnative

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chnative/chnative/internal/faketest"
	"github.com/chnative/chnative/nativeproto"
)

// Hostile input: a scripted fake server answers a query with malformed or hostile packets. Each
// case must end in an error within a second, with a bounded heap, and the connection must be
// closed, never reused: the next query comes on a new connection.

// okQuery is answered with goodResponse by hostileServer; every other query gets the script.
const okQuery = "SELECT 'ok'"

// goodResponse is a full, valid answer: header, a block of 3 rows of several column kinds,
// progress, EndOfStream and the Pong of the Ping that ended the query.
func goodResponse(t testing.TB, compressed bool) []byte {
	t.Helper()
	mk := func(name, typ string, vals ...any) faketest.Col {
		c, err := faketest.EncodeColumn(name, typ, vals...)
		if err != nil {
			t.Fatalf("%s: %v", typ, err)
		}
		return c
	}
	header := []faketest.Col{mk("n", "UInt64"), mk("s", "String"), mk("a", "Array(UInt8)"),
		mk("ns", "Nullable(String)"), mk("lc", "LowCardinality(String)")}
	body := []faketest.Col{
		mk("n", "UInt64", uint64(1), uint64(2), uint64(3)),
		mk("s", "String", "one", "two", "three"),
		mk("a", "Array(UInt8)", []uint8{1}, []uint8{}, []uint8{2, 3}),
		mk("ns", "Nullable(String)", "x", nil, "z"),
		mk("lc", "LowCardinality(String)", "a", "b", "a"),
	}
	var b []byte
	b = faketest.DataPacket(b, 0, header, compressed)
	b = faketest.Progress(b, 3, 100)
	b = faketest.DataPacket(b, 3, body, compressed)
	b = faketest.EndOfStream(b)
	return faketest.Pong(b)
}

// hostileServer answers okQuery with a good response and any other query with script.
func hostileServer(t testing.TB, compressed bool, script []byte) *faketest.Server {
	t.Helper()
	good := goodResponse(t, compressed)
	s, err := faketest.NewServer(func(s *faketest.Session) {
		if err := s.Handshake(); err != nil {
			return
		}
		for {
			q, err := s.ReadQuery()
			if err != nil {
				return
			}
			if q.Body == okQuery {
				if s.Write(good) != nil {
					return
				}
				continue
			}
			_ = s.Write(script)
			if !strings.HasSuffix(q.Body, "eof") {
				s.Drain(5 * time.Second) // until the client hangs up
			}
			return
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// heapWatch samples the heap in a goroutine until stopped, and returns the peak HeapInuse
// above the start and the bytes allocated in between.
func heapWatch() (stop func() (peak, allocated uint64)) {
	runtime.GC()
	var start runtime.MemStats
	runtime.ReadMemStats(&start)
	done := make(chan struct{})
	var wg sync.WaitGroup
	var peak uint64
	wg.Add(1)
	go func() {
		defer wg.Done()
		var m runtime.MemStats
		tk := time.NewTicker(2 * time.Millisecond)
		defer tk.Stop()
		for {
			runtime.ReadMemStats(&m)
			if m.HeapInuse > start.HeapInuse && m.HeapInuse-start.HeapInuse > peak {
				peak = m.HeapInuse - start.HeapInuse
			}
			select {
			case <-done:
				return
			case <-tk.C:
			}
		}
	}()
	return func() (uint64, uint64) {
		close(done)
		wg.Wait()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return peak, m.TotalAlloc - start.TotalAlloc
	}
}

// readAll runs query and reads every row, returning the rows read and the first error.
func readAll(ctx context.Context, db *sql.DB, query string) (int, error) {
	rows, err := db.QueryContext(ctx, query)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	dest := make([]any, len(cols))
	for i := range dest {
		dest[i] = new(any)
	}
	n := 0
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return n, err
		}
		n++
	}
	return n, rows.Err()
}

func hostileCases(t testing.TB) []struct {
	name       string
	compressed bool
	script     []byte
} {
	col := func(name, typ string, data []byte) faketest.Col {
		return faketest.Col{Name: name, Type: typ, Data: data}
	}
	u64s := func(vs ...uint64) []byte {
		var b []byte
		for _, v := range vs {
			b = binary.LittleEndian.AppendUint64(b, v)
		}
		return b
	}
	lc, err := faketest.EncodeColumn("lc", "LowCardinality(String)", "a", "b", "a")
	if err != nil {
		t.Fatal(err)
	}
	lc.Data = append([]byte(nil), lc.Data...)
	lc.Data[len(lc.Data)-1] = 200 // the last row's index, far past the 3-entry dictionary

	validBlock := faketest.DataPacket(nil, 1, []faketest.Col{col("n", "UInt8", []byte{7})}, true)
	badSum := append([]byte(nil), validBlock...)
	badSum[2] ^= 0xff // first checksum byte, after the code and the empty table name

	var w []byte
	w = append(w, byte(nativeproto.ServerCodeData), 0) // code, empty table name
	huge := append(w, faketest.Frame(0x82, []byte{0, 1, 2, 3}, 0xFFFFFFFF, false)...)

	return []struct {
		name       string
		compressed bool
		script     []byte
	}{
		{"string2^40", false, faketest.DataPacket(nil, 1, []faketest.Col{col("s", "String", faketest.UVarInt(nil, 1<<40))}, false)},
		{"rows2^40", false, faketest.DataPacket(nil, 1<<40, []faketest.Col{col("n", "UInt8", []byte{1, 2, 3})}, false)},
		{"arrayOffsetBackwards", false, faketest.DataPacket(nil, 2, []faketest.Col{col("a", "Array(UInt8)", append(u64s(5, 3), 1, 2, 3, 4, 5))}, false)},
		{"arrayOffsetPastEnd", false, faketest.DataPacket(nil, 2, []faketest.Col{col("a", "Array(UInt8)", append(u64s(2, 1<<40), 1, 2))}, false)},
		{"lowCardinalityIndexPastDictionary", false, faketest.DataPacket(nil, 3, []faketest.Col{lc}, false)},
		{"badChecksum", true, badSum},
		{"frame4GiB", true, huge},
		{"unknownPacketCode", false, faketest.UVarInt(nil, 99)},
		{"exceptionNested10000", false, faketest.Exception(nil, 1, "nested", 10_000)},
		// Lengths under the limits whose data never comes: nothing may be allocated for them
		// up front (the server closes right after).
		{"string1GiBThenEOF", false, faketest.DataPacket(nil, 1, []faketest.Col{col("s", "String", faketest.UVarInt(nil, 1<<30-1))}, false)},
		{"rows2^31ThenEOF", false, faketest.DataPacket(nil, 1<<31-1, []faketest.Col{col("n", "UInt64", u64s(1, 2))}, false)},
		{"arrayElements2^34ThenEOF", false, faketest.DataPacket(nil, 2, []faketest.Col{col("a", "Array(UInt64)", u64s(2, 1<<34, 1, 2))}, false)},
		{"columns2^40", false, append([]byte{byte(nativeproto.ServerCodeData), 0, 1, 0, 2, 0xff, 0xff, 0xff, 0xff, 0}, faketest.UVarInt(faketest.UVarInt(nil, 1<<40), 1)...)},
	}
}

// TestHostileServer sends each hostile answer and checks error, time, heap and connection.
func TestHostileServer(t *testing.T) {
	for _, tc := range hostileCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			srv := hostileServer(t, tc.compressed, tc.script)
			params := []string{}
			if tc.compressed {
				params = append(params, "compress=lz4")
			}
			db := openAt(t, []string{srv.Addr()}, params...)
			db.SetMaxOpenConns(1)
			if n, err := readAll(context.Background(), db, okQuery); err != nil || n != 3 {
				t.Fatalf("good response: %d rows, %v", n, err)
			}

			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			stop := heapWatch()
			start := time.Now()
			query := "SELECT hostile"
			if strings.HasSuffix(tc.name, "ThenEOF") {
				query += " eof"
			}
			n, err := readAll(ctx, db, query)
			d := time.Since(start)
			peak, allocated := stop()
			if err == nil {
				t.Fatalf("hostile answer read as %d rows without error", n)
			}
			t.Logf("%v, peak heap +%d KiB, allocated %d KiB: %v", d, peak>>10, allocated>>10, err)
			if d > time.Second {
				t.Errorf("error after %v, want < 1s", d)
			}
			if peak > 64<<20 || allocated > 64<<20 {
				t.Errorf("peak heap +%d MiB, allocated %d MiB: want < 64 MiB", peak>>20, allocated>>20)
			}
			before := srv.Accepts()
			if n, err := readAll(context.Background(), db, okQuery); err != nil || n != 3 {
				t.Fatalf("after the hostile answer: %d rows, %v", n, err)
			}
			if got := srv.Accepts(); got != before+1 {
				t.Errorf("%d new connections for the next query, want 1: the broken one was reused", got-before)
			}
		})
	}
}

// TestHostileTruncated cuts a full valid answer after every byte: each cut must be an error
// (never a shorter result read as complete), and the next query must run on a new connection.
func TestHostileTruncated(t *testing.T) {
	for _, compressed := range []bool{false, true} {
		t.Run(fmt.Sprintf("compressed=%v", compressed), func(t *testing.T) {
			base := runtime.NumGoroutine()
			full := goodResponse(t, compressed)
			var cut int
			var mu sync.Mutex
			srv, err := faketest.NewServer(func(s *faketest.Session) {
				if s.Handshake() != nil {
					return
				}
				if _, err := s.ReadQuery(); err != nil {
					return
				}
				mu.Lock()
				n := cut
				mu.Unlock()
				_ = s.Write(full[:n])
				// Close at once: the answer ends there.
			})
			if err != nil {
				t.Fatal(err)
			}
			// read_retries=0: a cut before the first row is an error here, not a read retried on a
			// new connection (retry_test.go tests those).
			params := []string{"dial_timeout=5s", "read_timeout=5s", "read_retries=0"}
			if compressed {
				params = append(params, "compress=lz4")
			}
			db := openAt(t, []string{srv.Addr()}, params...)
			db.SetMaxOpenConns(1)
			deadline := time.Now().Add(60 * time.Second)
			for n := 0; n <= len(full); n++ {
				if time.Now().After(deadline) {
					t.Fatalf("stopped at cut %d of %d: out of time", n, len(full))
				}
				mu.Lock()
				cut = n
				mu.Unlock()
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				rows, err := readAll(ctx, db, "SELECT truncated")
				cancel()
				if n < len(full) && err == nil {
					t.Fatalf("answer cut after %d of %d bytes read as %d rows without error", n, len(full), rows)
				}
				if n == len(full) && (err != nil || rows != 3) {
					t.Fatalf("full answer: %d rows, %v", rows, err)
				}
			}
			// Every query ran on its own connection: cut ones were never reused. The last (full)
			// one stays in the pool.
			if got, want := srv.Accepts(), int64(len(full)+1); got != want {
				t.Errorf("%d connections for %d queries", got, want)
			}
			db.Close()
			srv.Close()
			settleGoroutines(t, base)
		})
	}
}
