package chconn

import (
	"fmt"
	"slices"
	"time"

	"github.com/chnative/chnative/nativeproto"
)

// ServerInfo describes the server a connection talks to: what its Hello said, for the revision
// the connection negotiated (fields of newer revisions are zero below them).
type ServerInfo struct {
	Name        string
	Major       uint64
	Minor       uint64
	Patch       uint64
	Revision    uint64 // the server's protocol revision
	Negotiated  uint64 // the revision both sides use: min(advertised, Revision)
	Advertised  uint64 // the revision the driver sent (protocol_revision, else its default)
	Timezone    string
	DisplayName string
	// Addr is the address this connection dialed: one of the DSN's hosts, as host:port.
	Addr string
	// Location is the session's time zone: the one DateTime values without a time zone in their
	// type are read in. It is the server's (Timezone) until a SET session_timezone or a
	// TimezoneUpdate from the server changes it.
	Location *time.Location

	// Settings are the settings of the session that differ from their defaults, as the server
	// announced them (revision 54474 and newer, when the user's apply_settings_from_server is on;
	// nil otherwise). The map is the caller's.
	Settings map[string]string
	// PasswordRules are the server's password complexity rules (revision 54461 and newer).
	PasswordRules []nativeproto.PasswordRule
	// QueryPlanVersion and ClusterFunctionVersion are the server's query plan serialization
	// (54477) and cluster function (54479) protocol versions; 0 below those revisions.
	QueryPlanVersion       uint64
	ClusterFunctionVersion uint64
}

// Version returns "major.minor.patch".
func (s ServerInfo) Version() string { return fmt.Sprintf("%d.%d.%d", s.Major, s.Minor, s.Patch) }

// ServerInfo returns what the server said about itself in its Hello, and the session's time zone.
func (c *Conn) ServerInfo() ServerInfo {
	c.awaitDrain() // a TimezoneUpdate read by the drain may change the session's zone
	h := c.Hello()
	si := ServerInfo{Name: h.Name, Major: h.Major, Minor: h.Minor, Patch: h.Patch,
		Revision: uint64(h.Revision), Negotiated: uint64(c.Revision()), Advertised: uint64(c.ClientRevision()),
		Timezone: h.Timezone, DisplayName: h.DisplayName, Addr: c.Addr(), Location: c.sessLoc,
		QueryPlanVersion: h.QueryPlanVersion, ClusterFunctionVersion: h.ClusterFunctionVersion}
	if len(h.Settings) > 0 {
		si.Settings = make(map[string]string, len(h.Settings))
		for _, s := range h.Settings {
			si.Settings[s.Key] = s.Value
		}
	}
	si.PasswordRules = slices.Clone(h.PasswordRules)
	return si
}
