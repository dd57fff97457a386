package dsn

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// Parsing of the values of query keys.

// settingValue is the text sent for a setting written val in a DSN: true and false become 1
// and 0, as clickhouse-go sends them (a numeric setting refuses "true" on some servers).
func settingValue(val string) string {
	switch {
	case strings.EqualFold(val, "true"):
		return "1"
	case strings.EqualFold(val, "false"):
		return "0"
	}
	return val
}

// parseProducts parses client_info_product: "name/version" entries separated by commas.
func parseProducts(val string) ([]ClientProduct, error) {
	var out []ClientProduct
	for _, chunk := range strings.Split(val, ",") {
		name, version, _ := strings.Cut(strings.TrimSpace(chunk), "/")
		p := ClientProduct{Name: name, Version: version}
		if err := checkProduct(p); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

func checkProduct(p ClientProduct) error {
	if p.Name == "" {
		return errProductName
	}
	if strings.ContainsAny(p.Name, " \t/,()") || strings.ContainsAny(p.Version, " \t,()") {
		return errProductChars
	}
	return nil
}

func parseNonNegative(s string) (int, error) {
	n, err := parseInt(s)
	if err == nil && n < 0 {
		err = errNegative
	}
	return n, err
}

// validSettingName accepts ClickHouse identifiers: [A-Za-z_][A-Za-z0-9_]*.
func validSettingName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		b := s[i]
		switch {
		case 'a' <= b && b <= 'z', 'A' <= b && b <= 'Z', b == '_':
		case i > 0 && '0' <= b && b <= '9':
		default:
			return false
		}
	}
	return true
}

// parseDuration accepts a Go duration ("5s", "1m30s") or whole seconds ("30").
func parseDuration(s string) (time.Duration, error) {
	if s != "" && strings.Trim(s, "0123456789") == "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n > math.MaxInt64/int64(time.Second) {
			return 0, errDuration
		}
		return time.Duration(n) * time.Second, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, errDuration
	}
	if d < 0 {
		return 0, errNegative
	}
	return d, nil
}

// parseBool is strconv.ParseBool, with an empty value ("?secure") meaning true.
func parseBool(s string) (bool, error) {
	if s == "" {
		return true, nil
	}
	b, err := strconv.ParseBool(s)
	if err != nil {
		return false, errBool
	}
	return b, nil
}

// parseRevision parses a protocol_revision value: a decimal revision within
// [MinProtocolRevision, MaxProtocolRevision], or 0 for the driver's default.
func parseRevision(s string) (uint64, error) {
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, errInt
	}
	return n, checkRevision(n)
}

func checkRevision(n uint64) error {
	if n != 0 && (n < MinProtocolRevision || n > MaxProtocolRevision) {
		return errRevisionRange
	}
	return nil
}

func parseInt(s string) (int, error) {
	n, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		return 0, errInt
	}
	return int(n), nil
}

// parseCompressArg accepts a codec name or, like clickhouse-go, a boolean
// (true means lz4). An empty value ("?compress") means lz4. clickhouse-go's HTTP-only codecs
// (gzip, deflate, br) are refused with a message that says so.
func parseCompressArg(s string) (Compression, error) {
	if c, err := ParseCompression(s); err == nil {
		return c, nil
	}
	if s == "" {
		return CompressionLZ4, nil
	}
	if b, err := strconv.ParseBool(s); err == nil {
		if b {
			return CompressionLZ4, nil
		}
		return CompressionNone, nil
	}
	switch strings.ToLower(s) {
	case "gzip", "deflate", "br":
		return 0, errHTTPCompression
	}
	return 0, errUnknownCompression
}
