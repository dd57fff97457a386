package chconn

import (
	"context"

	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/chnative/chnative/nativeproto"
)

// Ping sends Ping and waits for Pong. The first Ping of a connection whose DSN has settings runs
// SELECT 1 with them instead: a setting the server refuses (unknown, out of range, not allowed
// for the user, or, on a server below revision 54429, one the driver cannot encode) fails every
// query, so it fails Ping too.
func (c *Conn) Ping(ctx context.Context, opts *Options) error {
	if err := c.begin(); err != nil {
		return err
	}
	if !c.settingsChecked && len(c.cfg.Settings) > 0 {
		return c.checkSettings(ctx, opts)
	}
	fired := c.watch(ctx)
	c.pw.WritePing()
	if err := c.flush(); err != nil {
		f := fired()
		c.markBad()
		if f {
			return ctx.Err()
		}
		return ErrBadConn
	}
	for {
		c.readDeadline()
		code, err := c.pr.ReadCode()
		if err == nil && code == nativeproto.ServerCodePong {
			fired()
			return nil
		}
		if err == nil && code == nativeproto.ServerCodeProgress {
			if err = c.pr.SkipPacket(code); err == nil {
				continue
			}
		}
		f := fired()
		c.markBad()
		if f {
			return ctx.Err()
		}
		if err == nil {
			err = &nativeproto.UnexpectedPacketError{Code: code, Want: "Pong"}
		}
		return &ProtocolError{Op: "ping", Err: err}
	}
}

// checkSettings runs SELECT 1 with the DSN's settings (see Ping).
func (c *Conn) checkSettings(ctx context.Context, opts *Options) error {
	const probe = "SELECT 1"
	if err := c.Exec(ctx, probe, probe, opts); err != nil {
		if errors.Is(err, ErrBadConn) || ctx.Err() != nil {
			return err
		}
		keys := make([]string, 0, len(c.cfg.Settings))
		for k := range c.cfg.Settings {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		return fmt.Errorf("chnative: ping: a query with the DSN's settings (%s) fails, so every query would: %w",
			strings.Join(keys, ", "), err)
	}
	c.settingsChecked = true
	return nil
}
