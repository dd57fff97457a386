package chconn

import (
	"log/slog"
	"time"

	"github.com/chnative/chnative/internal/sqltext"
)

// helloLocation returns the server's time zone from its Hello; UTC when the Hello names none or
// one this machine's time zone database does not know.
func (c *Conn) helloLocation() *time.Location {
	if c.hello.Timezone != "" {
		if loc, err := time.LoadLocation(c.hello.Timezone); err == nil {
			return loc
		}
	}
	return time.UTC
}

// zone returns the location of a session_timezone value: the server's for "" (the setting's
// default), and ok false for a name this machine's time zone database does not know.
func (c *Conn) zone(tz string) (loc *time.Location, ok bool) {
	if tz == "" {
		return c.helloLocation(), true
	}
	loc, err := time.LoadLocation(tz)
	if err != nil {
		return nil, false
	}
	return loc, true
}

// startQueryLocation sets the time zone of the query about to be sent, whose settings are
// settings: its own session_timezone when it sets one, else the session's.
func (c *Conn) startQueryLocation(settings map[string]string) {
	c.queryTZ = false
	c.loc = c.sessLoc
	if tz, ok := settings["session_timezone"]; ok {
		c.queryTZ = true
		if loc, ok := c.zone(tz); ok {
			c.loc = loc
		}
	}
}

// timezoneUpdate applies a TimezoneUpdate packet: the running query's zone, and the session's
// unless the query set session_timezone itself. A zone this machine does not know changes
// nothing.
func (c *Conn) timezoneUpdate(tz string) {
	loc, ok := c.zone(tz)
	if !ok {
		if c.log != nil {
			c.log.Debug("chnative: unknown time zone in TimezoneUpdate, keeping the current one", slog.String("tz", tz))
		}
		return
	}
	c.loc = loc
	if !c.queryTZ {
		c.sessLoc = loc
	}
}

// setSessionTimezone applies a SET statement that the server executed: when it assigns
// session_timezone, the session's time zone becomes that zone.
func (c *Conn) setSessionTimezone(stmt string) {
	tz, ok := sqltext.SessionTimezoneOfSet(stmt)
	if !ok {
		return
	}
	if loc, ok := c.zone(tz); ok {
		c.sessLoc, c.loc = loc, loc
	}
}
