package ingest

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/nativeproto"
)

// A fake server in a SendFunc: it records each (token, ids) it confirms, so tests can check that a
// block resent after a failure carries the same token and rows, and count rows exactly once.

var errCut = errors.New("connection cut") // a transport failure for these tests

func isCut(err error) bool { return errors.Is(err, errCut) }

type fakeSink struct {
	mu     sync.Mutex
	gate   chan struct{}                     // when not nil, each send waits for a value (or its ctx)
	fail   func(try int, token string) error // the error of a send; nil: none
	tries  map[string]int
	tokens map[string][]uint64 // confirmed blocks by token: their ids
	sends  int
}

func (f *fakeSink) send(ctx context.Context, _ int, b *nativeproto.Block, token string) error {
	if f.gate != nil {
		select {
		case <-f.gate:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	ids := slices.Clone(b.Column(0).(*columns.UInt64).Values())
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sends++
	try := f.tries[token]
	f.tries[token]++
	if f.fail != nil {
		if err := f.fail(try, token); err != nil {
			if isCut(err) && try%2 == 1 { // the server had the block before the cut: dedup by token
				f.tokens[token] = ids
			}
			return err
		}
	}
	if was, ok := f.tokens[token]; ok && !slices.Equal(was, ids) {
		return fmt.Errorf("token %s sent again with other rows", token)
	}
	f.tokens[token] = ids // a resent token is dropped by the server: stored once
	return nil
}

// ids returns every confirmed id, sorted.
func (f *fakeSink) ids() []uint64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	var all []uint64
	for _, ids := range f.tokens {
		all = append(all, ids...)
	}
	slices.Sort(all)
	return all
}

func newSink() *fakeSink {
	return &fakeSink{tries: map[string]int{}, tokens: map[string][]uint64{}}
}

// start starts an engine sending to f, with one lane unless cfg says otherwise (the tests that
// count blocks need the rows in one open block).
func start(t *testing.T, cfg Config, f *fakeSink) *Engine {
	t.Helper()
	if cfg.Lanes == 0 {
		cfg.Lanes = 1
	}
	e, err := New([]string{"id", "s"}, []string{"UInt64", "String"}, cfg, f.send, isCut)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		e.Close(ctx)
	})
	return e
}

func appendN(t *testing.T, e *Engine, from, n int) {
	t.Helper()
	for i := from; i < from+n; i++ {
		if err := e.AppendRow(context.Background(), []any{uint64(i), "row"}); err != nil {
			t.Fatalf("row %d: %v", i, err)
		}
	}
}

func TestResendSameTokenAfterCut(t *testing.T) {
	f := newSink()
	f.fail = func(try int, token string) error {
		if try < 2 { // cut before the block arrived, then after it had
			return fmt.Errorf("write: %w", errCut)
		}
		return nil
	}
	e := start(t, Config{MaxRows: 10, Backoff: time.Millisecond}, f)
	appendN(t, e, 0, 25)
	if err := e.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := f.ids()
	if len(got) != 25 || got[0] != 0 || got[24] != 24 || len(slices.Compact(got)) != 25 {
		t.Fatalf("ids %v, want 0..24 once each", got)
	}
	st := e.Stats()
	if st.Retried != 6 || st.SentRows != 25 || st.SentBlocks != 3 || st.FailedRows != 0 || st.BufferedRows != 0 || st.BufferedBytes != 0 {
		t.Fatalf("stats %+v", st)
	}
	for tok, n := range f.tries {
		if n != 3 {
			t.Fatalf("token %s sent %d times, want 3", tok, n)
		}
	}
}

func TestServerErrorNotRetried(t *testing.T) {
	f := newSink()
	refused := errors.New("Code: 53. TYPE_MISMATCH")
	f.fail = func(try int, token string) error { return refused }
	var got []uint64
	var gotErr error
	cfg := Config{MaxRows: 5, OnError: func(b *nativeproto.Block, err error) {
		got = append(got, b.Column(0).(*columns.UInt64).Values()...)
		gotErr = err
	}}
	e := start(t, cfg, f)
	appendN(t, e, 0, 5)
	err := e.Flush(context.Background())
	var be *BlockError
	if !errors.As(err, &be) || !errors.Is(err, refused) || be.Rows != 5 {
		t.Fatalf("Flush: %v", err)
	}
	if f.sends != 1 || len(got) != 5 || gotErr != refused {
		t.Fatalf("%d sends, OnError got %v (%v)", f.sends, got, gotErr)
	}
	if st := e.Stats(); st.FailedRows != 5 || st.FailedBlocks != 1 || st.SentRows != 0 || st.Retried != 0 {
		t.Fatalf("stats %+v", st)
	}
	if err := e.Flush(context.Background()); err != nil {
		t.Fatalf("second Flush: %v (the failure was returned once)", err)
	}
}

func TestRetriesRunOut(t *testing.T) {
	f := newSink()
	f.fail = func(int, string) error { return errCut }
	e := start(t, Config{MaxRows: 3, Retries: 2, Backoff: time.Millisecond}, f)
	appendN(t, e, 0, 3)
	if err := e.Flush(context.Background()); !isCut(err) {
		t.Fatalf("Flush: %v", err)
	}
	if st := e.Stats(); st.Retried != 2 || st.FailedRows != 3 || f.sends != 3 {
		t.Fatalf("stats %+v, %d sends", st, f.sends)
	}
}

// The memory bound: with the senders stalled, 1+InFlight blocks fill and then Append waits (or
// fails at once with NoWait); buffered bytes stay under (1+InFlight) x (MaxBytes + a row).
func TestMemoryBound(t *testing.T) {
	for _, c := range []struct {
		noWait bool
		lanes  int
	}{{false, 1}, {true, 1}, {false, 3}, {true, 3}} {
		noWait, lanes := c.noWait, c.lanes
		t.Run(fmt.Sprintf("NoWait=%v/Lanes=%d", noWait, lanes), func(t *testing.T) {
			f := newSink()
			f.gate = make(chan struct{})
			const maxBytes = 4000
			e := start(t, Config{MaxRows: 1 << 20, MaxBytes: maxBytes, Senders: 1, InFlight: 2, NoWait: noWait, Lanes: lanes}, f)
			row := string(make([]byte, 100))
			accepted := 0
			for ; ; accepted++ {
				ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
				err := e.AppendRow(ctx, []any{uint64(accepted), row})
				cancel()
				if err == nil {
					continue
				}
				if noWait && !errors.Is(err, ErrFull) || !noWait && !errors.Is(err, context.DeadlineExceeded) {
					t.Fatalf("row %d: %v", accepted, err)
				}
				break
			}
			st := e.Stats()
			rowBytes := int64(8 + 1 + 100)
			blocks := int64(lanes + 2) // the open ones and InFlight
			if st.BufferedBytes > blocks*(maxBytes+rowBytes) || st.BufferedBytes < 2*maxBytes || st.Blocks < 3 || st.Blocks > blocks {
				t.Fatalf("%d rows accepted; stats %+v", accepted, st)
			}
			close(f.gate) // the server answers again: the appends go on
			if noWait {
				if err := e.Flush(context.Background()); err != nil { // wait for room
					t.Fatal(err)
				}
			}
			if err := e.AppendRow(context.Background(), []any{uint64(accepted), row}); err != nil {
				t.Fatal(err)
			}
			if err := e.Close(context.Background()); err != nil {
				t.Fatal(err)
			}
			if n := len(f.ids()); n != accepted+1 {
				t.Fatalf("%d rows inserted, %d accepted", n, accepted+1)
			}
		})
	}
}

func TestCloseSemantics(t *testing.T) {
	f := newSink()
	e := start(t, Config{MaxRows: 100, MaxDelay: time.Hour}, f)
	appendN(t, e, 0, 7)
	if err := e.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := len(f.ids()); n != 7 {
		t.Fatalf("Close sent %d rows, want 7", n)
	}
	if err := e.AppendRow(context.Background(), []any{uint64(1), "x"}); !errors.Is(err, ErrClosed) {
		t.Fatalf("Append after Close: %v", err)
	}
	if err := e.Close(context.Background()); !errors.Is(err, ErrClosed) {
		t.Fatalf("second Close: %v", err)
	}
}

// A Close whose context ends while the server does not answer fails the blocks left, through
// OnError and Stats: every accepted row is sent or reported.
func TestCloseContextEndsReportsRows(t *testing.T) {
	f := newSink()
	f.gate = make(chan struct{}) // never answers
	var reported int
	var mu sync.Mutex
	e := start(t, Config{MaxRows: 4, OnError: func(b *nativeproto.Block, err error) {
		mu.Lock()
		reported += b.Rows()
		mu.Unlock()
	}}, f)
	appendN(t, e, 0, 10)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := e.Close(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Close: %v", err)
	}
	st := e.Stats()
	if reported != 10 || st.FailedRows != 10 || st.SentRows != 0 || st.BufferedRows != 0 {
		t.Fatalf("reported %d; stats %+v", reported, st)
	}
}

func TestMaxDelaySendsAlone(t *testing.T) {
	f := newSink()
	e := start(t, Config{MaxRows: 1000, MaxDelay: 20 * time.Millisecond}, f)
	appendN(t, e, 0, 3)
	deadline := time.Now().Add(5 * time.Second)
	for len(f.ids()) != 3 {
		if time.Now().After(deadline) {
			t.Fatalf("after MaxDelay: %d rows sent, want 3", len(f.ids()))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestBadRowKeepsBlock(t *testing.T) {
	f := newSink()
	e := start(t, Config{MaxRows: 100}, f)
	appendN(t, e, 0, 2)
	if err := e.AppendRow(context.Background(), []any{uint64(9), 3.5}); err == nil {
		t.Fatal("a float for a String column was accepted")
	}
	if err := e.AppendRow(context.Background(), []any{uint64(9)}); err == nil {
		t.Fatal("a row of 1 value for 2 columns was accepted")
	}
	appendN(t, e, 2, 1)
	if err := e.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := f.ids(); !slices.Equal(got, []uint64{0, 1, 2}) {
		t.Fatalf("ids %v", got)
	}
}

// 16 goroutines append while sends fail at random with transport failures: each id is stored
// once, and the goroutines come back.
func TestConcurrentAppendsExactlyOnce(t *testing.T) {
	before := runtime.NumGoroutine()
	f := newSink()
	f.fail = func(try int, token string) error {
		if try == 0 && len(token)%3 == 0 {
			return errCut
		}
		return nil
	}
	e, err := New([]string{"id", "s"}, []string{"UInt64", "String"},
		Config{MaxRows: 97, MaxDelay: 5 * time.Millisecond, Senders: 3, Lanes: 4, Backoff: time.Millisecond}, f.send, isCut)
	if err != nil {
		t.Fatal(err)
	}
	const G, N = 16, 2000
	var wg sync.WaitGroup
	for g := range G {
		wg.Go(func() {
			for i := range N {
				if err := e.AppendRow(context.Background(), []any{uint64(g*N + i), "r"}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if err := e.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := f.ids()
	if len(got) != G*N || len(slices.Compact(got)) != G*N {
		t.Fatalf("%d ids stored, want %d once each", len(got), G*N)
	}
	if st := e.Stats(); st.SentRows != G*N || st.AppendedRows != G*N || st.Retried == 0 {
		t.Fatalf("stats %+v", st)
	}
	time.Sleep(20 * time.Millisecond) // stopped timers' goroutines
	if n := runtime.NumGoroutine(); n > before {
		t.Fatalf("%d goroutines after Close, %d before", n, before)
	}
}

// The settings of an insert: async_insert=0 where the server has tokens (newer servers default
// to 1, whose async inserts ignore the token), the async ones with deduplication, the caller's
// on top, none for an old server without async.
func TestSettings(t *testing.T) {
	for _, c := range []struct {
		extra                map[string]string
		async, noWait, token bool
		want                 map[string]string
	}{
		{nil, false, false, false, nil},
		{nil, false, false, true, map[string]string{"async_insert": "0"}},
		{map[string]string{"max_partitions_per_insert_block": "0"}, false, false, false, map[string]string{"max_partitions_per_insert_block": "0"}},
		{nil, true, false, true, map[string]string{"async_insert": "1", "wait_for_async_insert": "1", "async_insert_deduplicate": "1"}},
		{nil, true, true, false, map[string]string{"async_insert": "1", "wait_for_async_insert": "0"}},
	} {
		got := Settings(c.extra, c.async, c.noWait, c.token)
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("Settings(%v, async %v, noWait %v, tokens %v) = %v, want %v", c.extra, c.async, c.noWait, c.token, got, c.want)
		}
	}
}
