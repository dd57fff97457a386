package ingest

import (
	"errors"
	"log/slog"
	"runtime"
	"time"

	"github.com/chnative/chnative/nativeproto"
)

// Config is what an Engine seals and sends by. Zero fields take the defaults noted.
type Config struct {
	MaxRows  int           // a block is sealed at this many rows (default 100,000)
	MaxBytes int64         // or at this many bytes of values (default 64 MiB)
	MaxDelay time.Duration // or this long after its first row (default 1s)
	Senders  int           // sender goroutines, each with its own connection (default 2)
	InFlight int           // blocks sealed and not yet confirmed (default Senders)
	Lanes    int           // open blocks appends are spread over (default GOMAXPROCS, at most 4)
	NoWait   bool          // Append fails with ErrFull instead of waiting for a free block
	Retries  int           // sends of a block again after a transport failure (default 5; <0: none)
	Backoff  time.Duration // wait before the first resend, doubled each time up to 2s (default 50ms)
	ID       string        // the token prefix (default random); unique per engine
	NoTokens bool          // the server takes no insert_deduplication_token: send gets "" (logs still name blocks by token)
	// Open's: the settings of every insert, and Async and AsyncNoWait's (see Settings).
	Settings           map[string]string
	Async, AsyncNoWait bool
	// OnError is called, on a sender goroutine, with a block that failed for good and why.
	// The block is valid during the call only.
	OnError func(b *nativeproto.Block, err error)
	Logger  *slog.Logger // debug log of seals, sends, resends and failures; nil: none
}

// ErrFull is Append's error under Config.NoWait when every block is full or in flight.
var ErrFull = errors.New("chnative: inserter full: every block is buffered or in flight")

// ErrClosed is Append's error after Close.
var ErrClosed = errors.New("chnative: inserter closed")

func (c *Config) defaults() {
	if c.MaxRows <= 0 {
		c.MaxRows = 100_000
	}
	if c.MaxBytes <= 0 {
		c.MaxBytes = 64 << 20
	}
	if c.MaxDelay <= 0 {
		c.MaxDelay = time.Second
	}
	if c.Senders <= 0 {
		c.Senders = 2
	}
	if c.InFlight <= 0 {
		c.InFlight = c.Senders
	}
	if c.Lanes <= 0 {
		c.Lanes = min(runtime.GOMAXPROCS(0), 4)
	}
	if c.Retries == 0 {
		c.Retries = 5
	}
	if c.Backoff <= 0 {
		c.Backoff = 50 * time.Millisecond
	}
}

// Settings returns the settings of every insert: extra's, and for async ones async_insert=1
// with wait_for_async_insert (1 unless noWait) and, where the server has tokens,
// async_insert_deduplicate=1 (an async insert deduplicates only with it). Where the server has
// tokens (22.2+, so async_insert too) a synchronous insert says async_insert=0: newer servers
// default to 1, and their async inserts would ignore the token. nil when none.
func Settings(extra map[string]string, async, noWait, tokens bool) map[string]string {
	set := map[string]string{}
	if tokens && !async {
		set["async_insert"] = "0"
	}
	for k, v := range extra {
		set[k] = v
	}
	if async {
		set["async_insert"], set["wait_for_async_insert"] = "1", "1"
		if noWait {
			set["wait_for_async_insert"] = "0"
		}
		if tokens {
			set["async_insert_deduplicate"] = "1"
		}
	}
	if len(set) == 0 {
		return nil
	}
	return set
}
