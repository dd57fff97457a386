package dsn

import (
	"errors"
	"strconv"
	"strings"
)

// Error is the error type returned by [Parse] and [Config.Validate].
//
// Key names the part of the DSN that is wrong: a query key such as
// "dial_timeout", or one of "dsn" (the string as a whole), "scheme", "user",
// "password", "host", "port", "database", "query" (the query string syntax) or
// "setting" (a bad setting name). Value is the offending text as written, or
// empty when showing it could reveal a secret: it is never set for the
// password, and no part of an Error ever contains the password.
type Error struct {
	Key   string
	Value string
	Err   error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("dsn: invalid ")
	if e.Key != "" {
		b.WriteString(e.Key)
	} else {
		b.WriteString("DSN")
	}
	if e.Value != "" {
		b.WriteByte(' ')
		b.WriteString(strconv.Quote(e.Value))
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	if strings.ContainsAny(e.Value, " \t") {
		b.WriteString(" (the value contains a space: remove it, or percent-encode it as %20)")
	}
	return b.String()
}

// Unwrap returns e.Err.
func (e *Error) Unwrap() error { return e.Err }

// The messages below never include input text, so wrapping them is safe.
var (
	errControlChar           = errors.New("contains a control character")
	errScheme                = errors.New("unsupported scheme (want clickhouse:// or tcp://)")
	errHTTPScheme            = errors.New("selects ClickHouse's HTTP interface (clickhouse-go's HTTP protocol); chnative speaks the native TCP protocol only: write clickhouse://host:9000 (the native port; 9440 with secure=true)")
	errJDBC                  = errors.New("a JDBC URL: drop the jdbc: prefix and use the native port, clickhouse://host:9000/db")
	errSchemeSlashes         = errors.New("the scheme needs \"://\": write clickhouse://host:9000/db")
	errMissingAt             = errors.New("has more than one ':' and is not an IPv6 address: it looks like user:password before the host with the '@' left out; write clickhouse://user:password@host:9000 (the text is not shown: it may hold a password; an IPv6 address goes in brackets, [::1]:9000)")
	errManyColons            = errors.New("has more than one ':' (host:port has one; an IPv6 address goes in brackets, e.g. [::1]:9000)")
	errEmptyValue            = errors.New("must not be empty")
	errCertKeyPair           = errors.New("tls_cert and tls_key go together: give both files (the client certificate and its private key) or neither")
	errCertNeedsSecure       = errors.New("a client certificate needs secure=true (it is presented in the TLS handshake)")
	errPassphraseNeedsKey    = errors.New("ssh_key_passphrase without ssh_key: name the private key file it decrypts")
	errAmpInPassword         = errors.New("is followed by a query part without '=', which is most likely the rest of a password holding an unescaped '&' (not shown): percent-encode '&' in the password as %26")
	errHTTPKey               = errors.New("is a clickhouse-go key of its HTTP protocol; chnative speaks the native TCP protocol only (to reach the server through a proxy, give the Connector a Dialer)")
	errKeyUser               = errors.New("is not a key: the user name is username=..., or the URL's user info (clickhouse://user:password@host)")
	errKeyPass               = errors.New("is not a key: the password is password=..., or the URL's user info (clickhouse://user:password@host)")
	errKeyDB                 = errors.New("is not a key: the database is database=..., or the URL path (clickhouse://host:9000/db)")
	errKeySSL                = errors.New("is not a key: TLS is secure=true (and skip_verify=true to skip checking the certificate, tls_server_name=... to check it under another name)")
	errServerNameNeedsSecure = errors.New("needs secure=true (as in clickhouse-go)")
	errServerName            = errors.New("must be a host name or an IP address")
	errBlockBufferSize       = errors.New("must be from 1 to 255 (clickhouse-go's range)")
	errProductName           = errors.New("want name/version entries separated by commas, e.g. myapp/1.2,mylib/0.3 (a name must not be empty)")
	errProductChars          = errors.New("a product name must not contain a space, '/', ',' or parentheses, nor a version a space, ',' or parentheses")
	errEscape                = errors.New("malformed percent-encoding")
	errEmptyHost             = errors.New("empty host name")
	errHostChars             = errors.New("host name may only contain letters, digits, '-', '.', '_' (use [..] for IPv6)")
	errBadIPv6               = errors.New("not an IPv6 address")
	errIPv6Brackets          = errors.New("an IPv6 address must be enclosed in brackets, e.g. [::1]:9000")
	errBracket               = errors.New("missing ']' after IPv6 address")
	errAfterBracket          = errors.New("unexpected text after ']' (want :port)")
	errAddrForm              = errors.New("want host:port")
	errEmptyUser             = errors.New("empty user name (the server's default user is \"default\")")
	errNoAddrs               = errors.New("no server address")
	errPort                  = errors.New("port must be a number from 1 to 65535")
	errPathSegments          = errors.New("database must be a single path segment (percent-encode '/' as %2F)")
	errPathAt                = errors.New("raw '@' in the database name (percent-encode it as %40; if it belongs to the password, percent-encode '/' and '?' in the password)")
	errConflict              = errors.New("given twice with different values (in the URL and in the query)")
	errDuplicate             = errors.New("key given more than once")
	errEmptyKey              = errors.New("empty query key")
	errSettingName           = errors.New("setting names may only contain letters, digits and '_', and must not start with a digit")
	errReservedSetting       = errors.New("is a driver option, not a setting; set the Config field instead")
	errDuration              = errors.New("want a Go duration such as 5s or 1m30s, or a whole number of seconds")
	errNegative              = errors.New("must not be negative")
	errBool                  = errors.New("want true or false (also 1, 0, t, f)")
	errInt                   = errors.New("want an integer")
	errNotPositive           = errors.New("must be greater than zero")
	errRevisionRange         = errors.New("must be 0 (the driver's default) or a revision from " +
		strconv.Itoa(MinProtocolRevision) + " (ClickHouse 18.16, the oldest supported) to " +
		strconv.Itoa(MaxProtocolRevision) + " (the highest the driver implements)")
)

// errRedacted wraps an error whose details were hidden; see redact.
type errRedacted struct{ err error }

func (e errRedacted) Error() string {
	return e.err.Error() + " (details hidden: the DSN has an '@' after the host list, which usually means the user name or password holds an unescaped '/', '?' or '#' and pieces of it ended up here; percent-encode them as %2F, %3F and %23, and '@' as %40)"
}

func (e errRedacted) Unwrap() error { return e.err }
