#!/usr/bin/env bash
# scripts/clickhouse.sh — run a private, throw-away ClickHouse server for tests.
#
#   scripts/clickhouse.sh start    install (apt) if needed, start, print the DSN
#   scripts/clickhouse.sh dsn      print the DSN of the running server
#   scripts/clickhouse.sh env      print shell `export` lines (DSNs, ports)
#   scripts/clickhouse.sh status   exit 0 if the server is running and healthy
#   scripts/clickhouse.sh stop     stop the server and remove its state dir
#   scripts/clickhouse.sh restart  stop the server process (SIGTERM) and start it again on
#                                  the same ports with the same data (fault tests)
#
# Only the DSN (start, dsn) or the export lines (env) go to stdout; everything
# else goes to stderr, so `DSN=$(scripts/clickhouse.sh start)` works.
#
# The server is Debian's clickhouse-server package (18.16.1, protocol revision
# 54412). It listens on 127.0.0.1 only, on free ports picked at start, and
# keeps its config, data, tmp and logs in the state dir
# ${CHNATIVE_STATE_DIR:-/tmp/chnative-clickhouse}. Users:
#   default   no password
#   chnative  password chn_secret   (for authentication tests)
#   chn_ro    no password, readonly=1 (for the read-only user's tests)
# The default profile sets allow_experimental_low_cardinality_type=1 (18.16
# refuses LowCardinality columns in tables otherwise).
#
# TLS: when openssl is available (and CHNATIVE_TLS is not 0), start also
# generates a throw-away CA and a server certificate for 127.0.0.1/localhost
# in $STATE_DIR/tls and opens tcp_port_secure; `env` then prints
# CHNATIVE_SECURE_PORT and CHNATIVE_TLS_CA (the CA certificate's path).
#
# WARNING: on 18.16, `SELECT ... FROM system.numbers` (or numbers()) without a
# LIMIT never ends, even after the client disconnects. Never run that. The
# default profile sets max_execution_time as a safety net.
set -euo pipefail

STATE_DIR="${CHNATIVE_STATE_DIR:-/tmp/chnative-clickhouse}"
STATE_DIR="${STATE_DIR%/}"
MARKER="$STATE_DIR/.chnative-clickhouse-state"
LOCK_FILE="$STATE_DIR.lock"
SERVER_BIN="${CHNATIVE_CLICKHOUSE_SERVER:-/usr/sbin/clickhouse-server}"
START_TIMEOUT="${CHNATIVE_START_TIMEOUT:-60}"
AUTH_USER="chnative"
AUTH_PASSWORD="chn_secret"
RO_USER="chn_ro" # a readonly=1 user (lib/*-config.sh, lib/modern-launcher.sh)

log() { printf 'clickhouse.sh: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# shellcheck source=lib/server-common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/server-common.sh"
# shellcheck source=lib/legacy-config.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/legacy-config.sh"

case "$STATE_DIR" in
"" | "/" | "/tmp" | "/root" | "/home" | "/var" | "/usr") die "refusing to use state dir '$STATE_DIR'" ;;
esac

# ---------------------------------------------------------------- helpers

read_state() {
	# Sets PID, TCP_PORT, HTTP_PORT from the state dir; returns 1 if absent.
	PID="" TCP_PORT="" HTTP_PORT="" SECURE_PORT=""
	[[ -f "$STATE_DIR/pid" && -f "$STATE_DIR/ports" ]] || return 1
	PID="$(<"$STATE_DIR/pid")"
	TCP_PORT="$(sed -n 's/^tcp_port=//p' "$STATE_DIR/ports")"
	HTTP_PORT="$(sed -n 's/^http_port=//p' "$STATE_DIR/ports")"
	SECURE_PORT="$(sed -n 's/^secure_port=//p' "$STATE_DIR/ports")"
	[[ -n "$PID" && -n "$TCP_PORT" && -n "$HTTP_PORT" ]]
}

pid_alive() {
	# Guard against pid reuse: it must still be our clickhouse-server.
	pid_cmdline_has "$1" "--config-file=$STATE_DIR/config.xml"
}

http_select1() {
	local out
	out="$(curl -fsS --max-time 3 "http://127.0.0.1:$1/?query=SELECT%201" 2>/dev/null)" || return 1
	[[ "$out" == "1" ]]
}

healthy() {
	read_state || return 1
	pid_alive "$PID" || return 1
	command -v curl >/dev/null 2>&1 || return 1
	http_select1 "$HTTP_PORT" || return 1
	tcp_open "$TCP_PORT"
}

dsn() { printf 'clickhouse://default@127.0.0.1:%s/default\n' "$TCP_PORT"; }

ensure_installed() {
	local pkgs=()
	[[ -x "$SERVER_BIN" ]] || pkgs+=(clickhouse-server clickhouse-client)
	command -v curl >/dev/null 2>&1 || pkgs+=(curl)
	if [[ "${CHNATIVE_TLS:-1}" != 0 ]] && ! command -v openssl >/dev/null 2>&1 && [[ "$(id -u)" == 0 ]]; then
		pkgs+=(openssl) # optional: without it the server runs without a secure port
	fi
	# The package's postinst tries to start its own service (port 9000);
	# there is no init here, so that is refused harmlessly.
	apt_install "${pkgs[@]}"
	[[ -x "$SERVER_BIN" ]] || die "$SERVER_BIN missing after install"
}

remove_state_dir() { remove_owned_dir "$STATE_DIR" "$MARKER"; }

stop_server() {
	if read_state && pid_alive "$PID"; then
		log "stopping clickhouse-server (pid $PID)"
		terminate "$PID"
	fi
	remove_state_dir
}

gen_tls() {
	# Writes ca.crt, server.crt and server.key to $STATE_DIR/tls; returns 1
	# (TLS off) when openssl is missing, disabled or fails.
	[[ "${CHNATIVE_TLS:-1}" != 0 ]] || return 1
	command -v openssl >/dev/null 2>&1 || {
		log "openssl not found: no secure port"
		return 1
	}
	if ! make_test_certs "$STATE_DIR/tls"; then
		log "openssl failed to make a certificate: no secure port"
		return 1
	fi
}

tls_config() {
	# The secure port's config lines, or nothing when $1 (the port) is empty.
	[[ -n "$1" ]] || return 0
	local t="$STATE_DIR/tls"
	cat <<EOF
    <tcp_port_secure>$1</tcp_port_secure>
    <openSSL>
        <server>
            <certificateFile>$t/server.crt</certificateFile>
            <privateKeyFile>$t/server.key</privateKeyFile>
            <verificationMode>none</verificationMode>
            <loadDefaultCAFile>false</loadDefaultCAFile>
            <cacheSessions>true</cacheSessions>
            <disableProtocols>sslv2,sslv3</disableProtocols>
            <preferServerCiphers>true</preferServerCiphers>
        </server>
    </openSSL>
EOF
}

write_config() {
	local tcp="$1" http="$2" secure="${3:-}"
	legacy_write_config "$STATE_DIR" scripts/clickhouse.sh "$tcp" "$http" "$(tls_config "$secure")"
}

start_once() {
	# One attempt: fresh state dir, new ports, launch, wait. 0 = healthy,
	# 2 = server exited (maybe a port clash; retry), 1 = other failure.
	local tcp http secure="" pid i
	remove_state_dir
	mkdir -p "$STATE_DIR"/{data,tmp,log,user_files,format_schemas}
	touch "$MARKER"
	tcp="$(free_port)"
	http="$(free_port "$tcp")"
	if gen_tls; then
		for ((i = 0; i < 20; i++)); do
			secure="$(free_port "$http")"
			[[ "$secure" != "$tcp" ]] && break
		done
	fi
	write_config "$tcp" "$http" "$secure"
	printf 'tcp_port=%s\nhttp_port=%s\n' "$tcp" "$http" >"$STATE_DIR/ports"
	[[ -z "$secure" ]] || printf 'secure_port=%s\n' "$secure" >>"$STATE_DIR/ports"

	log "starting $SERVER_BIN (native 127.0.0.1:$tcp, http 127.0.0.1:$http${secure:+, secure 127.0.0.1:$secure}, state $STATE_DIR)"
	# Own session, no inherited stdio or lock fd: the caller's $(...) must
	# not wait for the daemon, and the lock must be released when we exit.
	setsid "$SERVER_BIN" --config-file="$STATE_DIR/config.xml" \
		</dev/null >"$STATE_DIR/log/stdout.log" 2>&1 9>&- &
	pid=$!
	echo "$pid" >"$STATE_DIR/pid"

	for ((i = 0; i < START_TIMEOUT * 5; i++)); do
		if ! kill -0 "$pid" 2>/dev/null; then
			log "clickhouse-server exited during start; last log lines:"
			tail -n 20 "$STATE_DIR/log/clickhouse-server.err.log" "$STATE_DIR/log/stdout.log" >&2 2>/dev/null || true
			return 2
		fi
		if healthy; then
			return 0
		fi
		sleep 0.2
	done
	log "clickhouse-server not healthy after ${START_TIMEOUT}s; last log lines:"
	tail -n 20 "$STATE_DIR/log/clickhouse-server.err.log" >&2 2>/dev/null || true
	kill -KILL "$pid" 2>/dev/null || true
	return 1
}

with_lock() { take_lock "$LOCK_FILE" 9; }

# ---------------------------------------------------------------- commands

cmd_start() {
	with_lock
	if healthy; then
		log "already running (pid $PID)"
		dsn
		return 0
	fi
	ensure_installed
	stop_server # a stale or unhealthy instance of ours, if any
	if start_attempts start_once; then
		read_state
		log "ready: ClickHouse $(curl -fsS --max-time 3 "http://127.0.0.1:$HTTP_PORT/?query=SELECT%20version()" 2>/dev/null || echo '?'), pid $PID"
		dsn
		return 0
	fi
	die "could not start clickhouse-server (logs in $STATE_DIR/log)"
}

cmd_dsn() {
	healthy || die "not running (run: scripts/clickhouse.sh start)"
	dsn
}

cmd_env() {
	healthy || die "not running (run: scripts/clickhouse.sh start)"
	printf 'export CHNATIVE_DSN=%q\n' "$(dsn)"
	printf 'export CHNATIVE_AUTH_DSN=%q\n' "clickhouse://$AUTH_USER:$AUTH_PASSWORD@127.0.0.1:$TCP_PORT/default"
	printf 'export CHNATIVE_RO_DSN=%q\n' "clickhouse://$RO_USER@127.0.0.1:$TCP_PORT/default"
	printf 'export CHNATIVE_HTTP_URL=%q\n' "http://127.0.0.1:$HTTP_PORT/"
	printf 'export CHNATIVE_TCP_PORT=%q\n' "$TCP_PORT"
	printf 'export CHNATIVE_HTTP_PORT=%q\n' "$HTTP_PORT"
	if [[ -n "$SECURE_PORT" && -f "$STATE_DIR/tls/ca.crt" ]]; then
		printf 'export CHNATIVE_SECURE_PORT=%q\n' "$SECURE_PORT"
		printf 'export CHNATIVE_TLS_CA=%q\n' "$STATE_DIR/tls/ca.crt"
	fi
}

cmd_status() {
	if healthy; then
		log "running: pid $PID, native 127.0.0.1:$TCP_PORT, http 127.0.0.1:$HTTP_PORT"
		return 0
	fi
	log "not running or not healthy"
	return 1
}

cmd_restart() {
	# Same ports, same data, same config: only the process is new. Clients holding
	# connections see them closed; new connections go to the new process.
	with_lock
	read_state && pid_alive "$PID" || die "not running (run: scripts/clickhouse.sh start)"
	local old="$PID" pid i
	log "restarting clickhouse-server (pid $old)"
	terminate "$old"
	# The old process may leave its listening sockets in TIME_WAIT; the server sets
	# SO_REUSEADDR, so binding the same ports again works at once. Retry a few times
	# in case the kernel has not released them yet.
	for ((i = 0; i < 25; i++)); do
		setsid "$SERVER_BIN" --config-file="$STATE_DIR/config.xml" \
			</dev/null >>"$STATE_DIR/log/stdout.log" 2>&1 9>&- &
		pid=$!
		echo "$pid" >"$STATE_DIR/pid"
		local j
		for ((j = 0; j < START_TIMEOUT * 5; j++)); do
			kill -0 "$pid" 2>/dev/null || break
			if healthy; then
				log "restarted: pid $pid"
				dsn
				return 0
			fi
			sleep 0.2
		done
		kill -KILL "$pid" 2>/dev/null || true
		log "restart attempt $((i + 1)) failed; retrying"
		sleep 0.4
	done
	die "could not restart clickhouse-server on the same ports (logs in $STATE_DIR/log)"
}

cmd_stop() {
	with_lock
	stop_server
	log "stopped"
}

case "${1:-}" in
start) cmd_start ;;
stop) cmd_stop ;;
restart) cmd_restart ;;
status) cmd_status ;;
dsn) cmd_dsn ;;
env) cmd_env ;;
*)
	echo "usage: $0 start|stop|restart|status|dsn|env" >&2
	exit 2
	;;
esac
