// Package dsn parses and formats the data source names (DSNs) of the
// chnative ClickHouse driver.
//
// # Forms
//
// The canonical form, written by [Config.FormatDSN], is
//
//	clickhouse://user:password@host1:9000,host2:9000/database?key=value&key=value
//
// [Parse] also accepts what clickhouse-go users already write:
//
//	tcp://host:9000?username=user&password=secret&database=db&debug=true
//	host:9000/db?compress=lz4        (no scheme: clickhouse:// is assumed)
//	""                               (every default; see NewConfig)
//
// The scheme is case-insensitive. Several servers are separated by commas.
// A missing port is 9000, or 9440 when secure=true; a missing host list means
// localhost. IPv6 addresses go in brackets: [::1]:9000, with an optional zone
// written [fe80::1%25eth0]:9000. The user name, password and database are
// percent-decoded, so a user name or password containing '/', '?', '%', ':'
// or '@' must be percent-encoded (a raw '@', ':' or '#' in the password is
// tolerated, but encoding is safer).
// User name, password and database may instead be given as the query keys
// username, password and database (clickhouse-go's tcp:// form); giving one
// both ways is an error unless the values agree. Query keys and values are
// form-decoded, so '+' is a space; each key may appear once.
//
// # Keys
//
//	key                       type      values                               default
//	------------------------  --------  -----------------------------------  ---------
//	dial_timeout              duration  Go duration (5s, 1m30s) or integer   30s
//	                                    seconds; 0 = no timeout
//	read_timeout              duration  as dial_timeout; 0 = no timeout      5m
//	compress                  enum      none, lz4, zstd; also true/1/empty   none
//	                                    = lz4, false/0 = none
//	compress_level            int       codec-specific; 0 = codec default    0
//	secure                    bool      true/false/1/0/t/f; empty = true     false
//	skip_verify               bool      as secure (TLS only)                 false
//	connection_open_strategy  enum      in_order, round_robin, random        in_order
//	max_block_size            int       rows per block for inserts, > 0      1000000
//	client_name               string    any                                  "" (driver default)
//	quota_key                 string    any                                  ""
//	debug                     bool      as secure                            false
//	protocol_revision         int       highest native protocol revision     0 (driver default)
//	                                    to advertise, 54412..54488; 0 =
//	                                    the driver's default
//	username                  string    same as the URL user name            default
//	password                  string    same as the URL password             ""
//	database                  string    same as the URL path                 "" (server default)
//
// Every other key is a ClickHouse setting, stored in [Config.Settings] and
// sent to the server: for example ?max_execution_time=60&readonly=1. Setting
// names must be identifiers ([A-Za-z_][A-Za-z0-9_]*); values are passed
// through unchanged. Enum values are case-insensitive; FormatDSN writes them
// in lower case.
//
// # Errors and secrets
//
// Parse returns a *[Error] naming the offending key (or part of the URL, such
// as "host" or "port"). Neither an error, nor [Config.String], nor
// [Config.GoString] ever contains the password: String replaces it with
// [Redacted]. If a password is not percent-encoded and contains '/' or '?',
// the parser cannot know where it ends: whenever an '@' appears after the
// host list, errors therefore leave out the offending text and suggest
// encoding the password. Such a DSN may even parse into a wrong Config
// (u:1?a=b@h reads as host u, port 1, setting a=b@h), so always encode.
// [Config.FormatDSN] does include the password, since its result must parse
// back.
//
// # Round trip
//
// For any Config c returned by Parse, Parse(c.FormatDSN()) returns a Config
// equal to c (reflect.DeepEqual), and FormatDSN of that is the same string.
package dsn
