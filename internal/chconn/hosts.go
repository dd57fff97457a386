package chconn

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chnative/chnative/dsn"
)

// Failover over a configuration's hosts.
//
// Design note: Hosts opens every connection of one configuration (the root's Connector holds
// one), so it is where what is known about the hosts lives. A host whose dial or handshake
// failed (or whose connection broke under a statement that was then retried elsewhere) backs
// off: new connections pass over it for 1 s, then 2 s, 4 s, ... up to dsn.Config.HostBackoff,
// while another host answers; one that answers is trusted again at once. So a dead replica
// costs one failed dial per back-off period instead of one per new connection, and a stalled
// one (which accepts TCP but never answers) one dial timeout. When every host backs off, all
// are tried, soonest back first: a connection is never refused for what is remembered alone.
// The order among hosts that do not back off is the connection_open_strategy's. A connection
// Hosts dialed remembers it, so that a read retry (read_retry.go) or an insert resume
// (insert_failover.go) dials its replacement here, with the same Dialer.

// firstBackoff is how long a host is passed over after its first failure.
const firstBackoff = time.Second

// Hosts is the host set of one configuration, Config (which the caller does not change
// afterwards): its addresses, their health and the open strategy. Its methods are safe for
// concurrent use.
type Hosts struct {
	Config *dsn.Config
	next   atomic.Uint64 // round robin position
	health hostHealth
	auth   authCache // the key and certificate files, loaded once (wakeup.go)
}

// hostHealth is the record of the hosts backing off.
type hostHealth struct {
	mu   sync.Mutex
	down map[string]hostDown // by address
}

type hostDown struct {
	until    time.Time
	failures int
}

// failed records that addr failed at now and returns how long it backs off (0: max is 0, the
// back-off is off).
func (h *hostHealth) failed(addr string, max time.Duration, now time.Time) time.Duration {
	if max <= 0 {
		return 0
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.down == nil {
		h.down = make(map[string]hostDown)
	}
	d := h.down[addr]
	d.failures++
	wait := min(firstBackoff<<min(d.failures-1, 30), max)
	d.until = now.Add(wait)
	h.down[addr] = d
	return wait
}

// answered records that addr answered: it no longer backs off.
func (h *hostHealth) answered(addr string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.down, addr)
}

// order returns addrs rotated to start at start, with the hosts backing off at now moved to the
// end, soonest back first; passed is how many of them there are.
func (h *hostHealth) order(addrs []string, start int, now time.Time) (out []string, passed int) {
	out = make([]string, 0, len(addrs))
	h.mu.Lock()
	defer h.mu.Unlock()
	var late []string
	for i := range addrs {
		a := addrs[(start+i)%len(addrs)]
		if d, ok := h.down[a]; ok && now.Before(d.until) {
			late = append(late, a)
			continue
		}
		out = append(out, a)
	}
	slices.SortStableFunc(late, func(a, b string) int { return h.down[a].until.Compare(h.down[b].until) })
	return append(out, late...), len(late)
}

// failed records that addr failed (it backs off) and returns for how long.
func (h *Hosts) failed(addr string) time.Duration {
	return h.health.failed(addr, h.Config.HostBackoff, time.Now())
}

// addrs returns the configuration's addresses, or the default one.
func (h *Hosts) addrs() []string {
	if len(h.Config.Addrs) == 0 {
		return []string{fmt.Sprintf("%s:%d", dsn.DefaultHost, dsn.DefaultPort)}
	}
	return h.Config.Addrs
}

// Dial opens a connection with d, trying the hosts in the order the connection_open_strategy
// says, the ones backing off last, and failing over on dial and handshake errors; a server's
// exception (a refused login) ends it at once, for another host would answer the same. avoid,
// when not "", is a host to try only after every other (the one a retried statement broke on).
func (h *Hosts) Dial(ctx context.Context, d Dialer, avoid string) (*Conn, error) {
	if err := h.auth.fill(h, &d); err != nil {
		return nil, err
	}
	start := time.Now()
	for round := 0; ; round++ {
		cc, allTimedOut, err := h.dialRound(ctx, d, avoid)
		if err == nil || !allTimedOut || ctx.Err() != nil {
			return cc, err
		}
		wait, ok := wakeWait(h.Config.WakeUpTimeout, start, round)
		if !ok {
			return nil, err
		}
		if d.Log != nil {
			d.Log.Debug("chnative: every host timed out, dialing again within wake_up_timeout",
				slog.Duration("wait", wait), slog.Int("round", round+1), slog.Any("error", err))
		}
		d.observeRetry(ctx, RetryEvent{Op: "dial", Try: round + 1, Err: err})
		if !sleepCtx(ctx, wait) {
			return nil, err
		}
	}
}

// dialRound tries each host once (Dial); allTimedOut says that every failure was a timeout.
func (h *Hosts) dialRound(ctx context.Context, d Dialer, avoid string) (_ *Conn, allTimedOut bool, _ error) {
	log := d.Log
	addrs := h.addrs()
	start := 0
	switch h.Config.ConnOpenStrategy {
	case dsn.ConnOpenRoundRobin:
		start = int((h.next.Add(1) - 1) % uint64(len(addrs)))
	case dsn.ConnOpenRandom:
		start = rand.IntN(len(addrs))
	}
	order, passed := h.health.order(addrs, start, time.Now())
	if i := slices.Index(order, avoid); i >= 0 && len(order) > 1 {
		order = append(slices.Delete(order, i, i+1), avoid)
	}
	if log != nil && passed > 0 {
		log.Debug("chnative: hosts backing off, tried last", slog.Any("addrs", order[len(order)-passed:]))
	}
	var errs []error
	for i, addr := range order {
		began := time.Now()
		cc, err := Dial(ctx, h.Config, addr, d)
		if err == nil {
			h.health.answered(addr)
			cc.hosts, cc.dialer = h, d
			if log != nil {
				hello := cc.Hello()
				log.Debug("chnative: connected", slog.String("addr", addr),
					slog.String("server", fmt.Sprintf("%d.%d.%d", hello.Major, hello.Minor, hello.Patch)), slog.Uint64("revision", uint64(cc.Revision())),
					slog.String("client_name", cc.ClientName()), slog.Duration("elapsed", time.Since(began)))
			}
			return cc, false, nil
		}
		var ex *Exception
		var ae *AuthError
		answered := errors.As(err, &ex) || errors.As(err, &ae) // another host would answer the same
		var wait time.Duration
		if !answered && ctx.Err() == nil {
			wait = h.failed(addr)
		}
		if log != nil {
			next := ""
			if i+1 < len(order) {
				next = order[i+1]
			}
			log.Debug("chnative: connect failed", slog.String("addr", addr), slog.Any("error", err),
				slog.Duration("elapsed", time.Since(began)), slog.String("next", next), slog.Duration("backoff", wait))
		}
		if answered {
			return nil, false, err
		}
		errs = append(errs, err)
		if ctx.Err() != nil {
			break
		}
	}
	allTimedOut = len(errs) > 0
	for _, e := range errs {
		allTimedOut = allTimedOut && timedOut(e)
	}
	return nil, allTimedOut, errors.Join(errs...)
}

// redial dials a new connection to replace c, whose connection failed under a statement: c's
// host backs off, and another host is tried first; errNoHosts when c was not dialed by Hosts.
func (c *Conn) redial(ctx context.Context) (*Conn, error) {
	if c.hosts == nil {
		return nil, errNoHosts
	}
	c.hosts.failed(c.addr)
	return c.hosts.Dial(ctx, c.dialer, c.addr)
}

// errNoHosts: a connection not dialed through Hosts has nothing to fail over to.
var errNoHosts = errors.New("chnative: the connection was not dialed through a host set, so it has no other host to fail over to")

// replaceBy hands c's place to cc, dialed to replace it: an open transaction carries over, and
// c is closed.
func (c *Conn) replaceBy(cc *Conn) {
	cc.inTx = c.inTx
	c.next = cc
	_ = c.Close()
}

// logRedial writes the debug line of a retry that dialed cc (or failed to: derr) after err
// broke the statement on old, its try-th; attrs are the retry's own.
//
// It also tells old's observer of the retry (op "read" or "insert"), with ctx, the statement's.
func logRedial(ctx context.Context, old *Conn, op, msg string, err error, try int, cc *Conn, derr error, attrs ...any) {
	if old.dialer.Observer != nil {
		old.dialer.Observer.Retry(ctx, &RetryEvent{Op: op, Try: try, Addr: old.addr, Err: err})
	}
	log := old.log
	if log == nil {
		return
	}
	attrs = append([]any{slog.String("addr", old.addr), slog.Any("error", err), slog.Int("retry", try)}, attrs...)
	if derr != nil {
		attrs = append(attrs, slog.Any("dial_error", derr))
	} else {
		attrs = append(attrs, slog.String("new_addr", cc.Addr()))
	}
	log.Debug(msg, attrs...)
}
