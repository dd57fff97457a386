package chconn

import (
	"context"
	"time"
)

// watch arranges for blocked socket calls to fail when ctx is done. The returned function stops
// watching and reports whether ctx fired.
func (c *Conn) watch(ctx context.Context) func() bool {
	if ctx.Done() == nil {
		return func() bool { return false }
	}
	c.ctxDeadline, _ = ctx.Deadline()
	c.fired.Store(false)
	done := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		c.fired.Store(true)
		_ = c.nc.SetDeadline(aLongTimeAgo)
		close(done)
	})
	return func() bool {
		fired := !stop()
		if fired {
			<-done // the callback's SetDeadline must not land after the reset below
		}
		c.ctxDeadline = time.Time{}
		c.fired.Store(false)
		_ = c.nc.SetDeadline(time.Time{})
		return fired
	}
}

// aLongTimeAgo is a deadline in the past: it makes blocked socket calls return at once.
var aLongTimeAgo = time.Unix(1, 0)

// deadline returns the deadline for the next socket call: the configured read timeout, bounded
// by the deadline of the watched context.
func (c *Conn) deadline() time.Time {
	var d time.Time
	if c.cfg.ReadTimeout > 0 {
		d = time.Now().Add(c.cfg.ReadTimeout)
	}
	if !c.ctxDeadline.IsZero() && (d.IsZero() || c.ctxDeadline.Before(d)) {
		d = c.ctxDeadline
	}
	return d
}

// readDeadline applies the read timeout (and the context's deadline) to the next read. When the
// watched context has already fired, the deadline stays in the past; the check after setting
// closes the race with the watcher's callback.
func (c *Conn) readDeadline() {
	if c.fired.Load() {
		return
	}
	_ = c.nc.SetReadDeadline(c.deadline())
	if c.fired.Load() {
		_ = c.nc.SetReadDeadline(aLongTimeAgo)
	}
}

// flush sends pending packets, bounded like reads.
func (c *Conn) flush() error {
	if !c.fired.Load() {
		_ = c.nc.SetWriteDeadline(c.deadline())
		if c.fired.Load() {
			_ = c.nc.SetWriteDeadline(aLongTimeAgo)
		}
	}
	return c.pw.Flush(c.nc)
}

// packetWithin reports whether a packet starts arriving within d, consuming nothing: a timeout
// while waiting for the first byte leaves the stream in step.
func (c *Conn) packetWithin(d time.Duration) bool {
	if c.bad {
		return false
	}
	if c.pr.Buffered() > 0 {
		return true
	}
	_ = c.nc.SetReadDeadline(time.Now().Add(d))
	_, err := c.pr.Reader().Peek(1)
	_ = c.nc.SetReadDeadline(time.Time{})
	return err == nil
}
