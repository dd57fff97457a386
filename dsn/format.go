package dsn

import (
	"cmp"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// FormatDSN returns the canonical DSN for c:
//
//	clickhouse://[user[:password]@]host:port[,host:port...][/database][?key=value&...]
//
// Every address has an explicit port, the user info is omitted when it is the
// default user without a password, options equal to their default are
// omitted, and the query keys (options and settings together) are sorted.
// For a valid Config (see [Config.Validate]) Parse(c.FormatDSN()) returns a
// Config equal to c, except for what a DSN cannot hold: Logger (nil after
// Parse). The
// hosts of clickhouse-go's hosts and alt_hosts keys are in Addrs, written in
// the URL.
//
// The result contains the password; use [Config.String] for logging.
func (c *Config) FormatDSN() string {
	var b strings.Builder
	b.WriteString("clickhouse://")

	if (c.User != "" && c.User != DefaultUser) || c.Password != "" {
		b.WriteString(escapeComponent(c.User))
		if c.Password != "" {
			b.WriteByte(':')
			b.WriteString(escapeComponent(c.Password))
		}
		b.WriteByte('@')
	}

	for i, a := range c.Addrs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(formatAddr(a))
	}

	if c.Database != "" {
		b.WriteByte('/')
		b.WriteString(escapeComponent(c.Database))
	}

	type kv struct{ k, v string }
	var params []kv
	add := func(k, v string) { params = append(params, kv{k, v}) }
	if c.DialTimeout != DefaultDialTimeout {
		add(KeyDialTimeout, c.DialTimeout.String())
	}
	if c.ReadTimeout != DefaultReadTimeout {
		add(KeyReadTimeout, c.ReadTimeout.String())
	}
	if c.HostBackoff != DefaultHostBackoff {
		add(KeyHostBackoff, c.HostBackoff.String())
	}
	if c.ReadRetries != DefaultReadRetries {
		add(KeyReadRetries, strconv.Itoa(c.ReadRetries))
	}
	if c.InsertRetries != DefaultInsertRetries {
		add(KeyInsertRetries, strconv.Itoa(c.InsertRetries))
	}
	if c.BlockMemoryLimit != DefaultBlockMemoryLimit {
		add(KeyBlockMemoryLimit, strconv.FormatInt(c.BlockMemoryLimit, 10))
	}
	if c.InsertRetryBuffer != DefaultInsertRetryBuffer {
		add(KeyInsertRetryBuffer, strconv.Itoa(c.InsertRetryBuffer))
	}
	if c.InsertBlockBytes != DefaultInsertBlockBytes {
		add(KeyInsertBlockBytes, strconv.Itoa(c.InsertBlockBytes))
	}
	if c.BlockKeepBytes != DefaultBlockKeepBytes {
		add(KeyBlockKeepBytes, strconv.Itoa(c.BlockKeepBytes))
	}
	if c.Compress != CompressionNone {
		add(KeyCompress, c.Compress.String())
	}
	if c.CompressLevel != 0 {
		add(KeyCompressLevel, strconv.Itoa(c.CompressLevel))
	}
	if c.Secure {
		add(KeySecure, "true")
	}
	if c.SkipVerify {
		add(KeySkipVerify, "true")
	}
	if c.TLSServerName != "" {
		add(KeyTLSServerName, c.TLSServerName)
	}
	if c.ConnOpenStrategy != ConnOpenInOrder {
		add(KeyConnOpenStrategy, c.ConnOpenStrategy.String())
	}
	if n := c.InsertBlockRows; n != DefaultInsertBlockRows {
		add(KeyInsertBlockRows, strconv.Itoa(n))
	}
	if c.ClientName != "" {
		add(KeyClientName, c.ClientName)
	}
	if len(c.ClientProducts) > 0 {
		ps := make([]string, len(c.ClientProducts))
		for i, p := range c.ClientProducts {
			ps[i] = p.String()
		}
		add(KeyClientInfoProduct, strings.Join(ps, ","))
	}
	if c.MaxOpenConns != 0 {
		add(KeyMaxOpenConns, strconv.Itoa(c.MaxOpenConns))
	}
	if c.MaxIdleConns != 0 {
		add(KeyMaxIdleConns, strconv.Itoa(c.MaxIdleConns))
	}
	if c.ConnMaxLifetime != 0 {
		add(KeyConnMaxLifetime, c.ConnMaxLifetime.String())
	}
	if c.BlockBufferSize != 0 {
		add(KeyBlockBufferSize, strconv.Itoa(c.BlockBufferSize))
	}
	if c.MaxCompressionBuffer != 0 {
		add(KeyMaxCompressionBuffer, strconv.Itoa(c.MaxCompressionBuffer))
	}
	if c.QuotaKey != "" {
		add(KeyQuotaKey, c.QuotaKey)
	}
	for _, kv := range [...]struct{ k, v string }{
		{KeyJWT, c.JWT}, {KeySSHKey, c.SSHKey}, {KeySSHKeyPassphrase, c.SSHKeyPassphrase},
		{KeyTLSCert, c.TLSCert}, {KeyTLSKey, c.TLSKey},
	} {
		if kv.v != "" {
			add(kv.k, kv.v)
		}
	}
	if c.WakeUpTimeout != 0 {
		add(KeyWakeUpTimeout, c.WakeUpTimeout.String())
	}
	if c.Debug {
		add(KeyDebug, "true")
	}
	if c.ProtocolRevision != 0 {
		add(KeyProtocolRevision, strconv.FormatUint(c.ProtocolRevision, 10))
	}
	for k, v := range c.Settings {
		add(k, v)
	}
	slices.SortFunc(params, func(x, y kv) int { return cmp.Compare(x.k, y.k) })

	for i, p := range params {
		if i == 0 {
			b.WriteByte('?')
		} else {
			b.WriteByte('&')
		}
		b.WriteString(url.QueryEscape(p.k))
		b.WriteByte('=')
		b.WriteString(url.QueryEscape(p.v))
	}
	return b.String()
}

// formatAddr writes host:port with an IPv6 address in brackets and its zone
// escaped as %25zone. An entry that is not host:port is written unchanged.
func formatAddr(a string) string {
	host, port, err := net.SplitHostPort(a)
	if err != nil {
		return a
	}
	if strings.IndexByte(host, ':') < 0 {
		return host + ":" + port
	}
	if i := strings.IndexByte(host, '%'); i >= 0 {
		return "[" + host[:i] + "%25" + escapeComponent(host[i+1:]) + "]:" + port
	}
	return "[" + host + "]:" + port
}

// escapeComponent percent-encodes every byte except the RFC 3986 unreserved
// characters, so the result is safe in user info, path and zone alike.
func escapeComponent(s string) string {
	const hex = "0123456789ABCDEF"
	n := 0
	for i := 0; i < len(s); i++ {
		if !unreserved(s[i]) {
			n++
		}
	}
	if n == 0 {
		return s
	}
	buf := make([]byte, 0, len(s)+2*n)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if unreserved(c) {
			buf = append(buf, c)
		} else {
			buf = append(buf, '%', hex[c>>4], hex[c&15])
		}
	}
	return string(buf)
}

func unreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}
