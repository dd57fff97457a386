#!/usr/bin/env bash
# scripts/modern.sh — run a private, throw-away ClickHouse 26.7 server for tests.
#
#   scripts/modern.sh start    fetch chDB and build the launcher if needed, start, print the DSN
#   scripts/modern.sh dsn      print the DSN of the running server
#   scripts/modern.sh env      print shell `export` lines (CHNATIVE_MODERN_* DSNs, ports, TLS files)
#   scripts/modern.sh status   exit 0 if the server is running and healthy
#   scripts/modern.sh stop     stop the server and remove its state dir
#   scripts/modern.sh restart  stop the server process and start it again on the same ports
#                              with the same data (fault tests)
#
# Only the DSN (start, dsn) or the export lines (env) go to stdout; everything else goes to
# stderr, so `DSN=$(scripts/modern.sh start)` works, as with scripts/clickhouse.sh.
#
# The server is ClickHouse 26.7 (protocol revision 54488): chDB's libchdb.so (scripts/chdb.sh
# fetches it) run as clickhouse-local with TCP and HTTP listeners by scripts/modern/launcher.c,
# which this script compiles with cc. See that file for how it keeps the listeners open, why a
# failed login does not take it down, and how it restarts a crashed engine. It listens on
# 127.0.0.1 only, on free ports picked at start, and keeps its data, config and log in the state
# dir ${CHNATIVE_MODERN_STATE_DIR:-/tmp/chnative-modern}. Users:
#   default   no password
#   chnative  password chn_secret   (for authentication tests)
#   chn_ro    no password, readonly=1 (for the read-only user's tests)
#
# TLS: the engine has no TLS listener. When openssl is available, start generates a throw-away CA
# and a server certificate for 127.0.0.1/localhost in $STATE_DIR/tls, and `env` prints
# CHNATIVE_MODERN_TLS_CA, CHNATIVE_MODERN_TLS_CERT and CHNATIVE_MODERN_TLS_KEY: tests put a TLS
# front on loopback in front of the TCP port with them (internal/testenv.SecureAddr).
#
# Differences from a stock clickhouse-server that tests meet: the default database's engine is
# Overlay, system is a Memory database, there is no system.query_log, CREATE USER is refused
# (users come from the config file below), and the blocking statement that keeps the listeners
# open shows in system.processes with user '' (KILL QUERY on it stops the server).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
STATE_DIR="${CHNATIVE_MODERN_STATE_DIR:-/tmp/chnative-modern}"
STATE_DIR="${STATE_DIR%/}"
MARKER="$STATE_DIR/.chnative-modern-state"
LOCK_FILE="$STATE_DIR.lock"
START_TIMEOUT="${CHNATIVE_START_TIMEOUT:-60}"
AUTH_USER="chnative"
AUTH_PASSWORD="chn_secret"
RO_USER="chn_ro" # a readonly=1 user (lib/*-config.sh, lib/modern-launcher.sh)

log() { printf 'modern.sh: %s\n' "$*" >&2; }
die() {
	log "error: $*"
	exit 1
}

# shellcheck source=lib/server-common.sh
source "$ROOT/scripts/lib/server-common.sh"
# shellcheck source=lib/modern-launcher.sh
source "$ROOT/scripts/lib/modern-launcher.sh"

case "$STATE_DIR" in
"" | "/" | "/tmp" | "/root" | "/home" | "/var" | "/usr") die "refusing to use state dir '$STATE_DIR'" ;;
esac

# ---------------------------------------------------------------- helpers

read_state() {
	PID="" TCP_PORT="" HTTP_PORT=""
	[[ -f "$STATE_DIR/pid" && -f "$STATE_DIR/ports" ]] || return 1
	PID="$(<"$STATE_DIR/pid")"
	TCP_PORT="$(sed -n 's/^tcp_port=//p' "$STATE_DIR/ports")"
	HTTP_PORT="$(sed -n 's/^http_port=//p' "$STATE_DIR/ports")"
	[[ -n "$PID" && -n "$TCP_PORT" && -n "$HTTP_PORT" ]]
}

pid_alive() {
	# The supervisor process, checked by its command line against pid reuse.
	pid_cmdline_has "$1" "$STATE_DIR/config.xml"
}

healthy() {
	read_state || return 1
	pid_alive "$PID" || return 1
	[[ "$(http_query "$HTTP_PORT" 'SELECT 1')" == 1 ]] || return 1
	tcp_open "$TCP_PORT"
}

dsn() { printf 'clickhouse://default@127.0.0.1:%s/default\n' "$TCP_PORT"; }

ensure_tools() {
	local pkgs=()
	command -v cc >/dev/null 2>&1 || pkgs+=(gcc libc6-dev)
	command -v curl >/dev/null 2>&1 || pkgs+=(curl)
	command -v openssl >/dev/null 2>&1 || pkgs+=(openssl)
	apt_install "${pkgs[@]}"
}

remove_state_dir() { remove_owned_dir "$STATE_DIR" "$MARKER"; }

stop_server() {
	if read_state && pid_alive "$PID"; then
		log "stopping the 26.7 server (pid $PID)"
		terminate "$PID" group
	fi
	remove_state_dir
}

gen_tls() {
	make_test_certs "$STATE_DIR/tls" || die "openssl failed to make a certificate"
}

write_config() { modern_write_config "$STATE_DIR" scripts/modern.sh; }

launch() {
	# Starts the supervisor in its own session, with the ports in $STATE_DIR/ports.
	local tcp http
	tcp="$(sed -n 's/^tcp_port=//p' "$STATE_DIR/ports")"
	http="$(sed -n 's/^http_port=//p' "$STATE_DIR/ports")"
	modern_launch "$STATE_DIR/launcher" "$LIB" "$STATE_DIR" "$tcp" "$http"
}

wait_healthy() {
	local i pid
	pid="$(<"$STATE_DIR/pid")"
	for ((i = 0; i < START_TIMEOUT * 10; i++)); do
		if ! kill -0 "$pid" 2>/dev/null; then
			log "the launcher exited during start; last log lines:"
			tail -n 20 "$STATE_DIR/log/launcher.log" >&2 || true
			return 2
		fi
		healthy && return 0
		sleep 0.1
	done
	log "not healthy after ${START_TIMEOUT}s; last log lines:"
	tail -n 20 "$STATE_DIR/log/launcher.log" >&2 || true
	kill -KILL -- "-$pid" 2>/dev/null || true
	return 1
}

start_once() {
	local tcp http
	remove_state_dir
	mkdir -p "$STATE_DIR"/{data,log}
	touch "$MARKER"
	modern_build_launcher "$STATE_DIR/launcher"
	gen_tls
	tcp="$(free_port)"
	http="$(free_port "$tcp")"
	write_config
	printf 'tcp_port=%s\nhttp_port=%s\n' "$tcp" "$http" >"$STATE_DIR/ports"
	log "starting ClickHouse 26.7 from $LIB (native 127.0.0.1:$tcp, http 127.0.0.1:$http, state $STATE_DIR)"
	launch
	wait_healthy
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
	ensure_tools
	LIB="$(modern_chdb_lib)"
	[[ -s "$LIB" ]] || die "no libchdb.so at '$LIB'"
	stop_server
	if start_attempts start_once; then
		read_state
		log "ready: ClickHouse $(http_query "$HTTP_PORT" 'SELECT version()' || echo '?'), pid $PID"
		dsn
		return 0
	fi
	die "could not start the 26.7 server (log in $STATE_DIR/log/launcher.log)"
}

cmd_dsn() {
	healthy || die "not running (run: scripts/modern.sh start)"
	dsn
}

cmd_env() {
	healthy || die "not running (run: scripts/modern.sh start)"
	printf 'export CHNATIVE_MODERN_DSN=%q\n' "$(dsn)"
	printf 'export CHNATIVE_MODERN_AUTH_DSN=%q\n' "clickhouse://$AUTH_USER:$AUTH_PASSWORD@127.0.0.1:$TCP_PORT/default"
	printf 'export CHNATIVE_MODERN_RO_DSN=%q\n' "clickhouse://$RO_USER@127.0.0.1:$TCP_PORT/default"
	printf 'export CHNATIVE_MODERN_HTTP_URL=%q\n' "http://127.0.0.1:$HTTP_PORT/"
	printf 'export CHNATIVE_MODERN_TCP_PORT=%q\n' "$TCP_PORT"
	printf 'export CHNATIVE_MODERN_HTTP_PORT=%q\n' "$HTTP_PORT"
	printf 'export CHNATIVE_MODERN_TLS_CA=%q\n' "$STATE_DIR/tls/ca.crt"
	printf 'export CHNATIVE_MODERN_TLS_CERT=%q\n' "$STATE_DIR/tls/server.crt"
	printf 'export CHNATIVE_MODERN_TLS_KEY=%q\n' "$STATE_DIR/tls/server.key"
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
	# Same ports, same data, same config: only the process is new.
	with_lock
	read_state && pid_alive "$PID" || die "not running (run: scripts/modern.sh start)"
	LIB="$(modern_chdb_lib)"
	log "restarting the 26.7 server (pid $PID)"
	terminate "$PID" group
	local i
	for ((i = 0; i < 10; i++)); do
		launch
		if wait_healthy; then
			log "restarted: pid $(<"$STATE_DIR/pid")"
			read_state
			dsn
			return 0
		fi
		log "restart attempt $((i + 1)) failed; retrying"
		sleep 0.5
	done
	die "could not restart the 26.7 server on the same ports (log in $STATE_DIR/log/launcher.log)"
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
