package dsn

import (
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Hosts and ports of the DSN's address list: parsing, and the mistakes worth naming.

type hostPort struct {
	host, port string // port "" means default
}

// parseHostList parses the value of hosts or alt_hosts: comma-separated host[:port] entries;
// blanks around an entry are ignored, as clickhouse-go ignores them.
func parseHostList(val string) ([]hostPort, error) {
	var out []hostPort
	for _, h := range strings.Split(val, ",") {
		h = strings.TrimSpace(h)
		if h == "" {
			continue
		}
		hp, err := parseHost(h)
		if err != nil {
			return nil, hostMistake(err, h, false)
		}
		out = append(out, hp)
	}
	if len(out) == 0 {
		return nil, &Error{Err: errEmptyValue}
	}
	return out, nil
}

// schemeMistake recognises a scheme written without "//" (clickhouse:/h, clickhouse:h:9000)
// and a JDBC URL, in a DSN that has no "scheme://". "clickhouse:9000" stays a host and port.
func schemeMistake(s string) error {
	lower := strings.ToLower(s)
	if strings.HasPrefix(lower, "jdbc:") {
		return &Error{Key: "scheme", Value: s[:4], Err: errJDBC}
	}
	name, after, ok := strings.Cut(lower, ":")
	if !ok {
		return nil
	}
	switch name {
	case "clickhouse", "tcp", "http", "https":
	default:
		return nil
	}
	end := strings.IndexAny(after, "/?,")
	if end < 0 {
		end = len(after)
	}
	if port := after[:end]; port != "" && strings.Trim(port, "0123456789") == "" {
		return nil // host "clickhouse", a port, and maybe a path: clickhouse:9000/db
	}
	if end == 0 && !strings.HasPrefix(after, "/") {
		return nil // "clickhouse:" or "clickhouse:?x": host clickhouse, default port
	}
	return &Error{Key: "scheme", Value: s[:len(name)], Err: errSchemeSlashes}
}

// hostMistake turns a host error into one that names the likely mistake: an entry with
// several ':' that is not an IPv6 address is, without an '@' in the authority, user:password
// followed by the host with the '@' left out (default::127.0.0.1:9000); it is not echoed,
// since it may hold a password.
func hostMistake(err error, h string, hasAt bool) error {
	e, ok := err.(*Error)
	if !ok || e.Err != errIPv6Brackets {
		return err
	}
	if ip, perr := netip.ParseAddr(h); perr == nil && ip.Is6() {
		return err // a bare IPv6 address: say to bracket it
	}
	if i := strings.LastIndexByte(h, ':'); i > 0 {
		if ip, perr := netip.ParseAddr(h[:i]); perr == nil && ip.Is6() {
			return err // ::1:9000
		}
	}
	if hasAt {
		return &Error{Key: "host", Value: h, Err: errManyColons}
	}
	return &Error{Key: "host", Err: errMissingAt}
}

// parseHost parses one element of the host list: host, host:port, [v6] or
// [v6]:port. An IPv6 zone is written %25zone (RFC 6874); a raw %zone is
// accepted when it does not start with "25".
func parseHost(h string) (hostPort, error) {
	if h == "" {
		return hostPort{}, &Error{Key: "host", Err: errEmptyHost}
	}
	var hp hostPort
	var port string
	var hasPort bool
	if h[0] == '[' {
		end := strings.IndexByte(h, ']')
		if end < 0 {
			return hp, &Error{Key: "host", Value: h, Err: errBracket}
		}
		inner, tail := h[1:end], h[end+1:]
		if tail != "" {
			if tail[0] != ':' {
				return hp, &Error{Key: "host", Value: h, Err: errAfterBracket}
			}
			port, hasPort = tail[1:], true
		}
		addr := inner
		if i := strings.IndexByte(inner, '%'); i >= 0 {
			zone := inner[i+1:]
			if strings.HasPrefix(zone, "25") {
				z, err := url.PathUnescape(zone[2:])
				if err != nil {
					return hp, &Error{Key: "host", Value: h, Err: errEscape}
				}
				zone = z
			}
			addr = inner[:i] + "%" + zone
		}
		ip, err := netip.ParseAddr(addr)
		if err != nil || !ip.Is6() {
			return hp, &Error{Key: "host", Value: h, Err: errBadIPv6}
		}
		hp.host = addr
	} else {
		if strings.Count(h, ":") > 1 {
			return hp, &Error{Key: "host", Value: h, Err: errIPv6Brackets}
		}
		hp.host, port, hasPort = strings.Cut(h, ":")
		if hp.host == "" {
			return hp, &Error{Key: "host", Value: h, Err: errEmptyHost}
		}
		if !validHostname(hp.host) {
			return hp, &Error{Key: "host", Value: h, Err: errHostChars}
		}
	}
	if hasPort && port != "" { // "host:" means the default port, as in net/url
		n, err := parsePort(port)
		if err != nil {
			return hp, &Error{Key: "port", Value: port, Err: err}
		}
		hp.port = strconv.Itoa(n)
	}
	return hp, nil
}

func parsePort(s string) (int, error) {
	n, err := strconv.ParseUint(s, 10, 16)
	if err != nil || n == 0 {
		return 0, errPort
	}
	return int(n), nil
}

// validHostname accepts DNS names and IPv4 addresses: ASCII letters, digits,
// '-', '.', '_', plus UTF-8 for internationalized names.
func validHostname(h string) bool {
	if h == "" || !utf8.ValidString(h) {
		return false
	}
	for i := 0; i < len(h); i++ {
		b := h[i]
		switch {
		case 'a' <= b && b <= 'z', 'A' <= b && b <= 'Z', '0' <= b && b <= '9',
			b == '-', b == '.', b == '_', b >= 0x80:
		default:
			return false
		}
	}
	return true
}

// validScheme follows RFC 3986: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ).
func validScheme(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		b := s[i]
		switch {
		case 'a' <= b && b <= 'z', 'A' <= b && b <= 'Z':
		case i > 0 && ('0' <= b && b <= '9' || b == '+' || b == '-' || b == '.'):
		default:
			return false
		}
	}
	return true
}

// validServerName accepts what tls_server_name may hold: a host name or an IP address.
func validServerName(s string) bool {
	if _, err := netip.ParseAddr(s); err == nil {
		return true
	}
	return validHostname(s)
}
