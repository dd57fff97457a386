package dsn

import (
	"net"
	"net/url"
	"strconv"
	"strings"
)

// Query keys understood by the driver. Every other key is a server setting.
const (
	KeyDialTimeout      = "dial_timeout"
	KeyReadTimeout      = "read_timeout"
	KeyCompress         = "compress"
	KeyCompressLevel    = "compress_level"
	KeySecure           = "secure"
	KeySkipVerify       = "skip_verify"
	KeyTLSServerName    = "tls_server_name"
	KeyConnOpenStrategy = "connection_open_strategy"
	KeyInsertBlockRows  = "insert_block_rows"
	KeyClientName       = "client_name"
	KeyQuotaKey         = "quota_key"
	KeyDebug            = "debug"
	KeyProtocolRevision = "protocol_revision"
	KeyHostBackoff      = "host_backoff"
	KeyReadRetries      = "read_retries"
	// KeyInsertRetries and KeyInsertRetryBuffer set [Config.InsertRetries] and
	// [Config.InsertRetryBuffer].
	KeyInsertRetries     = "insert_retries"
	KeyInsertRetryBuffer = "insert_retry_buffer"
	// KeyInsertBlockBytes and KeyBlockKeepBytes set [Config.InsertBlockBytes] and
	// [Config.BlockKeepBytes].
	KeyInsertBlockBytes = "insert_block_bytes"
	KeyBlockKeepBytes   = "block_keep_bytes"
	// KeyBlockMemoryLimit sets [Config.BlockMemoryLimit].
	KeyBlockMemoryLimit = "block_memory_limit"

	// Authentication and TLS beyond user and password, and the wake-up budget: they set
	// [Config.JWT], [Config.SSHKey], [Config.SSHKeyPassphrase], [Config.TLSCert],
	// [Config.TLSKey] and [Config.WakeUpTimeout].
	KeyJWT              = "jwt"
	KeySSHKey           = "ssh_key"
	KeySSHKeyPassphrase = "ssh_key_passphrase"
	KeyTLSCert          = "tls_cert"
	KeyTLSKey           = "tls_key"
	KeyWakeUpTimeout    = "wake_up_timeout"

	// Accepted in the query for clickhouse-go's tcp:// form; FormatDSN puts
	// them in the URL instead.
	KeyDatabase = "database"
	KeyUsername = "username"
	KeyPassword = "password"

	// clickhouse-go's own keys. hosts and alt_hosts add servers before and after the URL's
	// host list (FormatDSN writes them all in the URL); the others set Config fields.
	KeyHosts                = "hosts"
	KeyAltHosts             = "alt_hosts"
	KeyClientInfoProduct    = "client_info_product"
	KeyMaxOpenConns         = "max_open_conns"
	KeyMaxIdleConns         = "max_idle_conns"
	KeyConnMaxLifetime      = "conn_max_lifetime"
	KeyBlockBufferSize      = "block_buffer_size"
	KeyMaxCompressionBuffer = "max_compression_buffer"

	// clickhouse-go's HTTP transport keys, refused: chnative speaks the native protocol only.
	KeyHTTPProxy = "http_proxy"
	KeyHTTPPath  = "http_path"
)

// isReservedKey reports whether k is a driver key and so cannot be a setting.
func isReservedKey(k string) bool {
	switch k {
	case KeyDialTimeout, KeyReadTimeout, KeyCompress, KeyCompressLevel,
		KeySecure, KeySkipVerify, KeyTLSServerName, KeyConnOpenStrategy, KeyInsertBlockRows,
		KeyClientName, KeyQuotaKey, KeyDebug, KeyProtocolRevision, KeyHostBackoff, KeyReadRetries,
		KeyInsertRetries, KeyInsertRetryBuffer, KeyInsertBlockBytes, KeyBlockKeepBytes, KeyBlockMemoryLimit,
		KeyJWT, KeySSHKey, KeySSHKeyPassphrase, KeyTLSCert, KeyTLSKey, KeyWakeUpTimeout,
		KeyDatabase, KeyUsername, KeyPassword,
		KeyHosts, KeyAltHosts, KeyClientInfoProduct, KeyMaxOpenConns, KeyMaxIdleConns,
		KeyConnMaxLifetime, KeyBlockBufferSize, KeyMaxCompressionBuffer:
		return true
	}
	return refusedKey(k) != nil
}

// refusedKey returns why k is refused as a query key: clickhouse-go's HTTP keys, and names
// that are neither driver keys nor ClickHouse settings but are what other drivers call one
// (user for username, ...). Sent as settings they would fail every query.
func refusedKey(k string) error {
	switch k {
	case KeyHTTPProxy, KeyHTTPPath:
		return errHTTPKey
	case "user":
		return errKeyUser
	case "pass", "pwd":
		return errKeyPass
	case "db", "dbname":
		return errKeyDB
	case "ssl", "tls", "sslmode", "use_ssl":
		return errKeySSL
	}
	return nil
}

// secretKey reports whether k's value is a secret that no error or String may show.
func secretKey(k string) bool {
	return k == KeyPassword || k == KeyJWT || k == KeySSHKeyPassphrase
}

// isStaticKey reports whether k is safe to show in a redacted error.
func isStaticKey(k string) bool {
	switch k {
	case "dsn", "scheme", "user", "host", "port", "query", "setting":
		return true
	}
	return isReservedKey(k)
}

// Parse parses a DSN. Accepted forms:
//
//	clickhouse://user:password@host1:9000,host2:9000/database?key=value&...
//	tcp://host1:9000?username=user&password=secret&database=db&key=value
//	host:port[/database][?key=value...]        (no scheme: clickhouse:// is assumed)
//	""                                         (all defaults, same as NewConfig)
//
// User name, password and database are percent-decoded, query keys and values
// are decoded as in an HTML form (so '+' is a space). See the package
// documentation for the keys. Errors are of type *Error and never contain the
// password.
func Parse(s string) (*Config, error) {
	var p parser
	c, err := p.parse(s)
	if err == nil {
		// What Parse accepts must also pass Validate (and so format and parse back): for
		// example an IPv6 zone holding brackets parses as an address but cannot be written.
		err = c.Validate()
	}
	if err != nil {
		if e, ok := err.(*Error); ok && p.redact {
			e.Value = ""
			if !isStaticKey(e.Key) {
				e.Key = "query"
			}
			e.Err = errRedacted{e.Err}
		}
		return nil, err
	}
	return c, nil
}

type parser struct {
	// redact is set when '@' occurs after the authority. That is what a
	// password with an unencoded '/' or '?' looks like, and then pieces of
	// the password may sit anywhere, so error values are dropped.
	redact bool
}

func (p *parser) parse(s string) (*Config, error) {
	s = strings.TrimSpace(s)
	c := NewConfig()
	if s == "" {
		return c, nil
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == 0x7f {
			return nil, &Error{Key: "dsn", Err: errControlChar}
		}
	}

	rest := s
	if i := strings.Index(s, "://"); i >= 0 && validScheme(s[:i]) {
		switch scheme := strings.ToLower(s[:i]); scheme {
		case "clickhouse", "tcp":
		case "http", "https":
			return nil, &Error{Key: "scheme", Value: s[:i], Err: errHTTPScheme}
		default:
			return nil, &Error{Key: "scheme", Value: s[:i], Err: errScheme}
		}
		rest = s[i+3:]
	} else if strings.HasPrefix(s, "//") {
		rest = s[2:] // a network-path reference, as clickhouse-go accepts: //host:9000/db
	} else if err := schemeMistake(s); err != nil {
		return nil, err
	}

	authority, after := rest, ""
	if i := strings.IndexAny(rest, "/?"); i >= 0 {
		authority, after = rest[:i], rest[i:]
	}
	p.redact = strings.Contains(after, "@")

	path, query := after, ""
	if i := strings.IndexByte(after, '?'); i >= 0 {
		path, query = after[:i], after[i+1:]
	}

	// User info. The last '@' separates it from the hosts, so a raw '@' in
	// the password still works; the first ':' separates user and password.
	var urlUser, urlPassword string
	hostList := authority
	if at := strings.LastIndexByte(authority, '@'); at >= 0 {
		userinfo := authority[:at]
		hostList = authority[at+1:]
		rawUser, rawPass, _ := strings.Cut(userinfo, ":")
		var err error
		if urlUser, err = url.PathUnescape(rawUser); err != nil {
			return nil, &Error{Key: "user", Value: rawUser, Err: errEscape}
		}
		if urlPassword, err = url.PathUnescape(rawPass); err != nil {
			return nil, &Error{Key: KeyPassword, Err: errEscape}
		}
	}

	var hosts []hostPort
	if hostList != "" {
		for _, h := range strings.Split(hostList, ",") {
			hp, err := parseHost(h)
			if err != nil {
				return nil, hostMistake(err, h, strings.Contains(authority, "@"))
			}
			hosts = append(hosts, hp)
		}
	}

	// Database from the path.
	var pathDB string
	if path != "" { // starts with '/'
		raw := path[1:]
		if strings.IndexByte(raw, '/') >= 0 {
			return nil, &Error{Key: KeyDatabase, Value: raw, Err: errPathSegments}
		}
		if strings.IndexByte(raw, '@') >= 0 {
			return nil, &Error{Key: KeyDatabase, Err: errPathAt}
		}
		var err error
		if pathDB, err = url.PathUnescape(raw); err != nil {
			return nil, &Error{Key: KeyDatabase, Value: raw, Err: errEscape}
		}
	}

	q, err := parseQuery(c, query)
	if err != nil {
		return nil, err
	}

	// Merge URL parts with the tcp:// style query keys.
	if c.User, err = merge(KeyUsername, urlUser, q.user, c.User, false); err != nil {
		return nil, err
	}
	if c.Password, err = merge(KeyPassword, urlPassword, q.password, "", true); err != nil {
		return nil, err
	}
	if c.Database, err = merge(KeyDatabase, pathDB, q.database, "", false); err != nil {
		return nil, err
	}

	defPort := strconv.Itoa(DefaultPort)
	if c.Secure {
		defPort = strconv.Itoa(DefaultSecurePort)
	}
	// clickhouse-go's hosts go before the URL's, alt_hosts after them.
	hosts = append(append(q.hosts, hosts...), q.altHosts...)
	if len(hosts) == 0 {
		hosts = []hostPort{{host: DefaultHost}}
	}
	c.Addrs = make([]string, len(hosts))
	for i, hp := range hosts {
		port := hp.port
		if port == "" {
			port = defPort
		}
		c.Addrs[i] = net.JoinHostPort(hp.host, port)
	}
	return c, nil
}

// merge combines a value from the URL (user info or path) with the same value
// from the query; both may be given only if they agree.
func merge(key, fromURL, fromQuery, def string, secret bool) (string, error) {
	switch {
	case fromURL != "" && fromQuery != "" && fromURL != fromQuery:
		e := &Error{Key: key, Err: errConflict}
		if !secret {
			e.Value = fromQuery
		}
		return "", e
	case fromURL != "":
		return fromURL, nil
	case fromQuery != "":
		return fromQuery, nil
	}
	return def, nil
}

// queryUserInfo holds the query keys that Parse merges with parts of the URL.
type queryUserInfo struct {
	user, password, database string
	hosts, altHosts          []hostPort
}

// parseQuery applies the query string to c. Its own splitter is used rather
// than url.ParseQuery so that no error can echo a password.
func parseQuery(c *Config, query string) (queryUserInfo, error) {
	var q queryUserInfo
	seen := make(map[string]bool)
	afterPassword := false
	for part := range strings.SplitSeq(query, "&") {
		if part == "" {
			continue
		}
		rawKey, rawVal, hasValue := strings.Cut(part, "=")
		key, err := url.QueryUnescape(rawKey)
		if afterPassword && !hasValue && (err != nil || !isReservedKey(key)) {
			// password=ab&cd: most likely a password with an unescaped '&'; cd is not shown.
			return q, &Error{Key: KeyPassword, Err: errAmpInPassword}
		}
		afterPassword = key == KeyPassword
		if err != nil {
			return q, &Error{Key: "query", Err: errEscape}
		}
		if key == "" {
			return q, &Error{Key: "query", Err: errEmptyKey}
		}
		if strings.HasPrefix(key, "x-") {
			continue // a tool's own key (golang-migrate's x-multi-statement, ...), as clickhouse-go v1 ignores them
		}
		if !validSettingName(key) {
			return q, &Error{Key: "setting", Value: key, Err: errSettingName}
		}
		if err := refusedKey(key); err != nil {
			return q, &Error{Key: key, Err: err}
		}
		if seen[key] {
			return q, &Error{Key: key, Err: errDuplicate}
		}
		seen[key] = true
		val, err := url.QueryUnescape(rawVal)
		if err != nil {
			e := &Error{Key: key, Err: errEscape}
			if !secretKey(key) {
				e.Value = rawVal
			}
			return q, e
		}
		if err := applyKey(c, &q, key, val); err != nil {
			return q, err
		}
	}
	return q, nil
}

func applyKey(c *Config, q *queryUserInfo, key, val string) error {
	bad := func(e error) error { return &Error{Key: key, Value: val, Err: e} }
	var err error
	switch key {
	case KeyDialTimeout:
		c.DialTimeout, err = parseDuration(val)
	case KeyReadTimeout:
		c.ReadTimeout, err = parseDuration(val)
	case KeyHostBackoff:
		c.HostBackoff, err = parseDuration(val)
	case KeyReadRetries:
		c.ReadRetries, err = parseNonNegative(val)
	case KeyInsertRetries:
		c.InsertRetries, err = parseNonNegative(val)
	case KeyBlockMemoryLimit:
		c.BlockMemoryLimit, err = strconv.ParseInt(val, 10, 64)
		if err != nil {
			err = errInt
		} else if c.BlockMemoryLimit < 0 {
			err = errNegative
		}
	case KeyInsertRetryBuffer:
		c.InsertRetryBuffer, err = parseNonNegative(val)
	case KeyInsertBlockBytes:
		c.InsertBlockBytes, err = parseNonNegative(val)
	case KeyBlockKeepBytes:
		c.BlockKeepBytes, err = parseNonNegative(val)
	case KeyCompress:
		c.Compress, err = parseCompressArg(val)
	case KeyCompressLevel:
		c.CompressLevel, err = parseInt(val)
	case KeySecure:
		c.Secure, err = parseBool(val)
	case KeySkipVerify:
		c.SkipVerify, err = parseBool(val)
	case KeyTLSServerName:
		c.TLSServerName = strings.TrimSpace(val)
		if c.TLSServerName == "" {
			err = errEmptyValue
		}
	case KeyJWT:
		c.JWT = val
	case KeySSHKey:
		c.SSHKey = val
	case KeySSHKeyPassphrase:
		c.SSHKeyPassphrase = val
	case KeyTLSCert:
		c.TLSCert = val
	case KeyTLSKey:
		c.TLSKey = val
	case KeyWakeUpTimeout:
		c.WakeUpTimeout, err = parseDuration(val)
	case KeyDebug:
		c.Debug, err = parseBool(val)
	case KeyConnOpenStrategy:
		c.ConnOpenStrategy, err = ParseConnOpenStrategy(val)
	case KeyInsertBlockRows:
		c.InsertBlockRows, err = parseInt(val)
		if err == nil && c.InsertBlockRows <= 0 {
			err = errNotPositive
		}
	case KeyProtocolRevision:
		c.ProtocolRevision, err = parseRevision(val)
	case KeyClientName:
		c.ClientName = val
	case KeyClientInfoProduct:
		c.ClientProducts, err = parseProducts(val)
	case KeyQuotaKey:
		c.QuotaKey = val
	case KeyUsername:
		q.user = val
	case KeyPassword:
		q.password = val
	case KeyDatabase:
		q.database = val
	case KeyHosts, KeyAltHosts:
		list, err := parseHostList(val)
		if err != nil {
			if e, ok := err.(*Error); ok {
				e.Key = key
			}
			return err
		}
		if key == KeyHosts {
			q.hosts = list
		} else {
			q.altHosts = list
		}
	case KeyMaxOpenConns:
		c.MaxOpenConns, err = parseNonNegative(val)
	case KeyMaxIdleConns:
		c.MaxIdleConns, err = parseNonNegative(val)
	case KeyConnMaxLifetime:
		c.ConnMaxLifetime, err = parseDuration(val)
	case KeyBlockBufferSize:
		c.BlockBufferSize, err = parseInt(val)
		if err == nil && (c.BlockBufferSize < 1 || c.BlockBufferSize > 255) {
			err = errBlockBufferSize
		}
	case KeyMaxCompressionBuffer:
		c.MaxCompressionBuffer, err = parseNonNegative(val)
	default:
		if c.Settings == nil {
			c.Settings = make(map[string]string)
		}
		c.Settings[key] = settingValue(val)
	}
	if err != nil {
		return bad(err)
	}
	return nil
}
