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
//	compress                  enum      none, lz4, lz4hc, zstd; also         none
//	                                    true/1/empty = lz4, false/0 = none
//	compress_level            int       lz4hc 1..12 (above 12: 12; 0: 3),    0
//	                                    zstd levels; plain lz4 has none
//	secure                    bool      true/false/1/0/t/f; empty = true     false
//	skip_verify               bool      as secure (TLS only)                 false
//	tls_server_name           string    name to verify the certificate      "" (the host dialed)
//	                                    against (and SNI); needs secure
//	connection_open_strategy  enum      in_order, round_robin, random        in_order
//	host_backoff              duration  as dial_timeout: the longest a       30s
//	                                    failing host is passed over; 0 = off
//	read_retries              int       >= 0: reruns of a read-only          2
//	                                    statement whose connection broke
//	                                    before its first row
//	insert_retries            int       >= 0: resumes of a native insert     0
//	                                    on another host after its
//	                                    connection or replica failed
//	insert_retry_buffer       int       bytes, >= 0: the sent blocks an      67108864
//	                                    insert keeps for a retry; 0 = none   (64 MiB)
//	block_memory_limit        int       bytes, >= 0: the most one block the  1073741824
//	                                    server sends may make the client     (1 GiB)
//	                                    allocate (decoded and decompressed
//	                                    bytes, sparse and replicated
//	                                    expansion, names and types); past
//	                                    it a *ProtocolError, no retry. A
//	                                    query holds at most blocks in
//	                                    flight x this; 0 = the default
//	hosts                     hosts     host[:port],... tried before the     none
//	                                    URL's hosts
//	alt_hosts                 hosts     host[:port],... tried after them     none
//	insert_block_rows         int       rows per block for inserts, > 0      1000000
//	insert_block_bytes        int       bytes, >= 0: an insert block is      16777216
//	                                    also sent at this size; 0 = rows     (16 MiB)
//	                                    only
//	block_keep_bytes          int       bytes, >= 0: a block above this is   2097152
//	                                    not kept between queries; 0 = keep   (2 MiB)
//	                                    none
//	jwt                       string    a token sent instead of user and     "" (never printed)
//	                                    password (ClickHouse Cloud)
//	ssh_key                   string    private key file for SSH challenge   ""
//	                                    authentication (users with ssh_keys)
//	ssh_key_passphrase        string    decrypts ssh_key                     "" (never printed)
//	tls_cert, tls_key         string    client certificate and key PEM       ""
//	                                    files (mTLS); both, with secure
//	wake_up_timeout           duration  as dial_timeout: how long a dial or  0 (off)
//	                                    handshake that times out is retried
//	client_name               string    any                                  "" (driver default)
//	client_info_product       list      name/version,... put before the      none
//	                                    driver's name in the client name
//	quota_key                 string    any                                  ""
//	debug                     bool      as secure: the debug log (stderr     false
//	                                    without Config.Logger)
//	protocol_revision         int       highest native protocol revision     0 (driver default)
//	                                    to advertise, 54412..54488; 0 =
//	                                    the driver's default
//	max_open_conns            int       pool limit, >= 0 (see below)         0 (unset)
//	max_idle_conns            int       pool limit, >= 0 (see below)         0 (unset)
//	conn_max_lifetime         duration  as dial_timeout; 0 = unlimited       0
//	block_buffer_size         int       1..255, accepted (see Config)        0 (unset)
//	max_compression_buffer    int       bytes, >= 0, accepted (see Config)   0 (unset)
//	username                  string    same as the URL user name            default
//	password                  string    same as the URL password             ""
//	database                  string    same as the URL path                 "" (server default)
//
// Keys that start with x- are ignored: tools such as golang-migrate add their
// own (x-multi-statement, x-migrations-table, ...) to the DSN they open, and
// clickhouse-go v1 ignores them too. They are not kept, so FormatDSN drops them.
//
// Every other key is a ClickHouse setting, stored in [Config.Settings] and
// sent to the server with every query: for example ?max_execution_time=60&readonly=1,
// and max_block_size, which (as in clickhouse-go) is the server setting, not the
// rows per insert block (that is insert_block_rows). Setting names must be
// identifiers ([A-Za-z_][A-Za-z0-9_]*); values are passed through unchanged,
// except true and false, which become 1 and 0 as clickhouse-go sends them.
// Enum values are case-insensitive; FormatDSN writes them in lower case.
//
// These keys of clickhouse-go (its ParseDSN) are all understood, with its
// meaning. max_open_conns and max_idle_conns are database/sql pool limits, which
// database/sql takes only from the *sql.DB: chnative.OpenDB and OpenDSN apply
// them, and sql.Open refuses them with an error that says how to set them
// (conn_max_lifetime is also enforced by the driver, so it works everywhere).
// Refused with a message that says why: http_proxy and http_path (clickhouse-go's
// HTTP protocol; chnative speaks the native protocol only), the http:// and
// https:// schemes, the gzip, deflate and br codecs, and user, pass, db, dbname,
// ssl, tls and sslmode, which are no one's keys here but would fail every query
// as settings.
//
// # Errors and secrets
//
// Parse returns a *[Error] naming the offending key (or part of the URL, such
// as "host" or "port") and the likely mistake: user:password before the host
// without the '@', a scheme without "//", a JDBC URL, a value with a space, a
// port out of range, an unescaped '/', '?' or '#' in the password. Neither an
// error, nor [Config.String], nor [Config.GoString] ever contains the password
// (nor jwt or ssh_key_passphrase): String replaces them with [Redacted]. If a password is not percent-encoded and contains '/' or '?',
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
