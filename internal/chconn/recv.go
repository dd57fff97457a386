package chconn

import (
	"time"

	"github.com/chnative/chnative/nativeproto"
)

// event is what recv returns: a block, the end of the stream, or an error.
type event struct {
	code  nativeproto.ServerCode
	block *nativeproto.Block
}

// recv reads packets until one the caller must see: Data, Totals, Extremes (with their block),
// EndOfStream, or an Exception (returned as *Exception). Progress, logs, profile packets and
// table descriptions are consumed here.
func (c *Conn) recv(reuse *nativeproto.Block) (event, error) {
	var scratch *nativeproto.Block
	for {
		c.readDeadline()
		code, err := c.pr.ReadCode()
		if err != nil {
			return event{}, err
		}
		switch code {
		case nativeproto.ServerCodeData:
			first := reuse == nil // a result's (or an Exec's) first block: the read role's
			if first {
				reuse = c.blocks.get(roleRead)
			}
			_, b, err := c.pr.ReadBlock(reuse)
			if err != nil {
				if first {
					c.blocks.keep(roleRead, nil)
				}
				return event{}, err
			}
			if first {
				c.blocks.keep(roleRead, b)
			}
			c.traceBlock(b.Rows())
			return event{code: code, block: b}, nil
		case nativeproto.ServerCodeTotals, nativeproto.ServerCodeExtremes:
			_, b, err := c.pr.ReadBlock(scratch)
			if err != nil {
				return event{}, err
			}
			return event{code: code, block: b}, nil
		case nativeproto.ServerCodeEndOfStream:
			if err := c.awaitPong(); err != nil {
				return event{}, err
			}
			c.traceEnd(OutcomeDone, nil)
			return event{code: code}, nil
		case nativeproto.ServerCodeException:
			ex, err := c.pr.ReadException()
			if err != nil {
				return event{}, err
			}
			c.traceEnd(OutcomeFailed, ex)
			if c.pendingPong {
				// An old server that failed while reading the query may have lost the Ping with
				// the rest of the packet: give the Pong a bounded time, else drop the connection.
				_ = c.nc.SetReadDeadline(time.Now().Add(DrainTimeout))
				if err := c.awaitPong(); err != nil {
					c.markBad()
				}
				c.readDeadline()
			}
			return event{code: code}, ex
		case nativeproto.ServerCodePong:
			if !c.pendingPong {
				return event{}, &nativeproto.UnexpectedPacketError{Code: code, Want: "a query result"}
			}
			c.pendingPong = false
		case nativeproto.ServerCodeHello, nativeproto.ServerCodeSSHChallenge,
			nativeproto.ServerCodeReadTaskRequest:
			return event{}, &nativeproto.UnexpectedPacketError{Code: code, Want: "a query result"}
		default:
			if err := c.info(code); err != nil {
				return event{}, err
			}
		}
	}
}

// info reads a packet that is not part of the result: Progress, ProfileInfo, Log and
// ProfileEvents go to the query's callbacks, when it has them; a TimezoneUpdate changes the
// time zone of zone-less DateTime values; the rest is skipped. Every packet a query, an insert
// or a cancelled query may bring besides its blocks and its end comes here, whichever path
// reads it (recv, awaitPong, drainAfterCancel).
func (c *Conn) info(code nativeproto.ServerCode) error {
	if code == nativeproto.ServerCodeTimezoneUpdate {
		tz, err := c.pr.ReadTimezoneUpdate()
		if err == nil {
			c.timezoneUpdate(tz)
		}
		return err
	}
	o := c.cur
	if code == nativeproto.ServerCodeProgress && (c.obs != nil || o != nil && o.OnProgress != nil) {
		p, err := c.pr.ReadProgress()
		if err == nil {
			c.traceProgress(p) // observe.go: the server's totals
			if o != nil && o.OnProgress != nil {
				c.progress.Add(p)
				o.OnProgress(c.progress)
			}
		}
		return err
	}
	switch {
	case o == nil:
	case code == nativeproto.ServerCodeProfileInfo && o.OnProfileInfo != nil:
		p, err := c.pr.ReadProfileInfo()
		if err == nil {
			o.OnProfileInfo(p)
		}
		return err
	case code == nativeproto.ServerCodeLog && o.OnLogs != nil:
		_, b, err := c.pr.ReadLogBlock(nil)
		if err == nil {
			err = nativeproto.DecodeLogs(b, o.OnLogs)
		}
		return err
	case code == nativeproto.ServerCodeProfileEvents && o.OnProfileEvents != nil:
		_, b, err := c.pr.ReadLogBlock(nil)
		if err == nil && b.Rows() > 0 {
			var evs []nativeproto.ProfileEvent
			if evs, err = nativeproto.DecodeProfileEvents(b); err == nil {
				o.OnProfileEvents(evs)
			}
		}
		return err
	}
	return c.pr.SkipPacket(code)
}

// awaitPong reads the Pong that answers the Ping sent after a query to an old server, when the
// query ended before the server read it. Anything but Progress or profile packets before it means
// the stream is out of sync.
func (c *Conn) awaitPong() error {
	for c.pendingPong {
		code, err := c.pr.ReadCode()
		if err != nil {
			return err
		}
		switch code {
		case nativeproto.ServerCodePong:
			c.pendingPong = false
			return nil
		case nativeproto.ServerCodeProgress, nativeproto.ServerCodeProfileInfo, nativeproto.ServerCodeLog,
			nativeproto.ServerCodeProfileEvents, nativeproto.ServerCodeTimezoneUpdate:
			if err := c.info(code); err != nil {
				return err
			}
		default:
			return &nativeproto.UnexpectedPacketError{Code: code, Want: "Pong"}
		}
	}
	return nil
}
