package chnative

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/chnative/chnative/dsn"
	"github.com/chnative/chnative/internal/chconn"
)

// Failover over the DSN's hosts.
//
// Design note: a Connector opens every connection of its *sql.DB, so it is where what is known
// about the hosts lives. A host whose dial or handshake failed (or whose connection broke under
// a query that was then retried elsewhere) backs off: new connections pass over it for 1 s,
// then 2 s, 4 s, ... up to dsn.Config.HostBackoff, while another host answers; one that answers
// is trusted again at once. So a dead replica costs one failed dial per back-off period instead
// of one per new connection, and a stalled one (which accepts TCP but never answers) one dial
// timeout. When every host backs off, all are tried, soonest back first: a connection is never
// refused for what is remembered alone. The order among hosts that do not back off is the
// connection_open_strategy's.

// firstBackoff is how long a host is passed over after its first failure.
const firstBackoff = time.Second

// hostHealth is a Connector's record of the hosts backing off. Its methods are safe for
// concurrent use.
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

// redialAfter records that addr's connection failed under a statement (it backs off) and dials
// a new connection, to another host first: what a retried read or insert runs on.
func (c *Connector) redialAfter(ctx context.Context, addr string) (*chconn.Conn, error) {
	c.health.failed(addr, c.cfg.HostBackoff, time.Now())
	return c.dial(ctx, addr)
}

// addrs returns the configuration's addresses, or the default one.
func (c *Connector) addrs() []string {
	if len(c.cfg.Addrs) == 0 {
		return []string{fmt.Sprintf("%s:%d", dsn.DefaultHost, dsn.DefaultPort)}
	}
	return c.cfg.Addrs
}

// dial opens a native connection, trying the hosts in the order the connection_open_strategy
// says, the ones backing off last, and failing over on dial and handshake errors. avoid, when
// not "", is a host to try only after every other (the one a retried query broke on).
func (c *Connector) dial(ctx context.Context, avoid string) (*chconn.Conn, error) {
	log := c.logger()
	addrs := c.addrs()
	start := 0
	switch c.cfg.ConnOpenStrategy {
	case dsn.ConnOpenRoundRobin:
		start = int((c.next.Add(1) - 1) % uint64(len(addrs)))
	case dsn.ConnOpenRandom:
		start = rand.IntN(len(addrs))
	}
	order, passed := c.health.order(addrs, start, time.Now())
	if i := slices.Index(order, avoid); i >= 0 && len(order) > 1 {
		order = append(slices.Delete(order, i, i+1), avoid)
	}
	if log != nil && passed > 0 {
		log.Debug("chnative: hosts backing off, tried last", slog.Any("addrs", order[len(order)-passed:]))
	}
	var errs []error
	for i, addr := range order {
		began := time.Now()
		cc, err := chconn.Dial(ctx, c.cfg, addr, chconn.Dialer{TLS: c.TLS, Dial: c.Dialer, Log: log})
		if err == nil {
			c.health.answered(addr)
			if log != nil {
				h := cc.Hello()
				log.Debug("chnative: connected", slog.String("addr", addr),
					slog.String("server", fmt.Sprintf("%d.%d.%d", h.Major, h.Minor, h.Patch)), slog.Uint64("revision", uint64(cc.Revision())),
					slog.String("client_name", cc.ClientName()), slog.Duration("elapsed", time.Since(began)))
			}
			return cc, nil
		}
		var ex *Exception
		answered := errors.As(err, &ex)
		var wait time.Duration
		if !answered && ctx.Err() == nil {
			wait = c.health.failed(addr, c.cfg.HostBackoff, time.Now())
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
			return nil, err // the server answered: another host would answer the same
		}
		errs = append(errs, err)
		if ctx.Err() != nil {
			break
		}
	}
	return nil, errors.Join(errs...)
}
