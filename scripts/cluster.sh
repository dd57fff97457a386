#!/usr/bin/env bash
# scripts/cluster.sh — run a private, throw-away ClickHouse cluster on loopback for tests.
#
#   scripts/cluster.sh start         install (apt) what is missing, start every node, create the
#                                    tables below; prints nothing on stdout
#   scripts/cluster.sh env           print shell `export` lines (CHNATIVE_CLUSTER_*)
#   scripts/cluster.sh status        one line a node on stderr; exit 0 if every node is healthy
#   scripts/cluster.sh stop          stop every node and remove the state dir
#   scripts/cluster.sh kill NODE     SIGKILL the node's processes
#   scripts/cluster.sh restart NODE  start the node again (after stopping it if it runs) on the
#                                    same ports with the same data, and wait until it is healthy
#   scripts/cluster.sh stall NODE    SIGSTOP the node's processes (it keeps its sockets, answers
#                                    nothing); scripts/cluster.sh resume NODE sends SIGCONT
#
# Nodes: zk (ZooKeeper), s1r1 s1r2 (shard 1) s2r1 s2r2 (shard 2), m1 m2.
#
# - zk: one standalone ZooKeeper from Debian's `zookeeper` 3.8 package (java), admin server off,
#   four-letter words on.
# - s1r1 s1r2 s2r1 s2r2: Debian's clickhouse-server 18.16.1, each with native, HTTP and
#   interserver HTTP ports, macros {shard} (1 or 2) and {replica} (the node's name), ZooKeeper,
#   distributed DDL (/clickhouse/task_queue/ddl) and cluster `chnative` (2 shards x 2 replicas,
#   internal_replication) in remote_servers. Users and profile as scripts/clickhouse.sh's
#   (default without a password, chnative/chn_secret), plus distributed_ddl_task_timeout=30 so an
#   ON CLUSTER statement with a host down ends in 30 s instead of 180 s.
# - m1 m2: ClickHouse 26.7 (chDB as clickhouse-local, as scripts/modern.sh runs it), one shard
#   each of cluster `chnative_modern` (2 shards x 1 replica). They cannot replicate (no ZooKeeper,
#   no interserver port). CHNATIVE_CLUSTER_MODERN=0 leaves them out.
#
# Tables made by start, in database chnative_cluster:
#   18.16 nodes: events_local (id UInt64, batch UInt64, v String)
#                  ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/events', '{replica}')
#                  ORDER BY id
#                events = Distributed(chnative, chnative_cluster, events_local, intHash64(id))
#   26.7 nodes:  events_local MergeTree ORDER BY id, events = Distributed(chnative_modern, ...)
#                (their profile sets distributed_foreground_insert=1: clickhouse-local never sends
#                a Distributed table's queued asynchronous inserts)
#
# Everything listens on 127.0.0.1 only, on free ports picked at start, and lives in the state dir
# ${CHNATIVE_CLUSTER_STATE_DIR:-/tmp/chnative-cluster}: one subdirectory a node (config, data,
# log/, pid) and `ports`. Logs go to stderr; only `env` writes to stdout. Every wait is bounded
# (CHNATIVE_START_TIMEOUT, default 60 s, a node).
#
# ZooKeeper sessions time out after 6 s. A replica killed with SIGKILL leaves its ephemeral
# is_active node behind until then, and 18.16 keeps its tables read-only while it is there, so
# `restart` of a killed replica waits for the old session to expire before it starts the server,
# then until its replicated tables are writable. A replica stalled longer than 6 s loses its
# session: after `resume` its tables are read-only for a few seconds while it makes a new one.
#
# WARNING: on 18.16, `SELECT ... FROM system.numbers` (or numbers()) without a LIMIT never ends,
# even after the client disconnects. Never run that.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SELF="$ROOT/scripts/cluster.sh"
STATE_DIR="${CHNATIVE_CLUSTER_STATE_DIR:-/tmp/chnative-cluster}"
STATE_DIR="${STATE_DIR%/}"
MARKER="$STATE_DIR/.chnative-cluster-state"
LOCK_FILE="$STATE_DIR.lock"
SERVER_BIN="${CHNATIVE_CLICKHOUSE_SERVER:-/usr/sbin/clickhouse-server}"
ZK_JAR="/usr/share/java/zookeeper.jar"
ZK_LOG_JAR="/usr/share/java/slf4j-simple.jar" # a logger for ZooKeeper's slf4j, when present
JAVA="${JAVA:-java}"
START_TIMEOUT="${CHNATIVE_START_TIMEOUT:-60}"
WITH_MODERN="${CHNATIVE_CLUSTER_MODERN:-1}"
ZK_SESSION_MS=6000
AUTH_USER="chnative"
AUTH_PASSWORD="chn_secret"
CLUSTER="chnative"
MODERN_CLUSTER="chnative_modern"
DB="chnative_cluster"
LEGACY_NODES=(s1r1 s1r2 s2r1 s2r2)
MODERN_NODES=()
[[ "$WITH_MODERN" == 0 ]] || MODERN_NODES=(m1 m2)

log() { printf 'cluster.sh: %s\n' "$*" >&2; }
die() {
	log "error: $*"
	exit 1
}

# shellcheck source=lib/server-common.sh
source "$ROOT/scripts/lib/server-common.sh"
# shellcheck source=lib/legacy-config.sh
source "$ROOT/scripts/lib/legacy-config.sh"
# shellcheck source=lib/modern-launcher.sh
source "$ROOT/scripts/lib/modern-launcher.sh"
# shellcheck source=lib/cluster-config.sh
source "$ROOT/scripts/lib/cluster-config.sh"

case "$STATE_DIR" in
"" | "/" | "/tmp" | "/root" | "/home" | "/var" | "/usr") die "refusing to use state dir '$STATE_DIR'" ;;
esac

# ---------------------------------------------------------------- nodes and state

all_nodes() { printf '%s\n' zk "${LEGACY_NODES[@]}" "${MODERN_NODES[@]}"; }

# node_kind NODE: zk, legacy (18.16) or modern (26.7); dies on an unknown name.
node_kind() {
	case "$1" in
	zk) echo zk ;;
	s[12]r[12]) echo legacy ;;
	m[12]) ((${#MODERN_NODES[@]} > 0)) && echo modern || die "node $1: the cluster runs without 26.7 nodes" ;;
	*) die "unknown node '$1' (nodes: $(all_nodes | tr '\n' ' '))" ;;
	esac
}

read_state() {
	# Loads the ports (P_<node>_<kind>=N lines) and the list of 26.7 nodes the cluster was started
	# with (MODERN_NODES=...); 1 when there are none.
	[[ -f "$STATE_DIR/ports" ]] || return 1
	# shellcheck disable=SC1091
	source "$STATE_DIR/ports"
}

# port NODE KIND: the node's tcp, http or inter port (zk has tcp only).
port() {
	local v="P_${1}_$2"
	printf '%s\n' "${!v:?no $2 port for $1 in $STATE_DIR/ports}"
}

node_pid() { cat "$STATE_DIR/$1/pid" 2>/dev/null || true; }

# node_alive NODE: the node's main process (its group leader, whose pid is in NODE/pid) runs, and
# its command line names a file in the node's directory.
node_alive() { pid_cmdline_has "$(node_pid "$1")" "$STATE_DIR/$1/"; }

node_stalled() { [[ "$(task_state "/proc/$(node_pid "$1")")" == T ]]; }

# node_procs NODE: the pids of the node's processes: the members of its process group (each node
# leads its own session) whose command line names its directory (so a reused pid is left alone),
# and those dying (pid_exiting: a killed server holds its ports and data until its last thread
# ends, and the node is not gone before).
node_procs() {
	local pid p
	pid="$(node_pid "$1")"
	[[ -n "$pid" ]] || return 0
	for p in $(pgrep -g "$pid" 2>/dev/null); do
		if pid_cmdline_has "$p" "$STATE_DIR/$1/" || pid_exiting "$p"; then
			echo "$p"
		fi
	done
	return 0
}

# signal_node NODE SIG: sends SIG to every process of the node.
signal_node() {
	local p
	for p in $(node_procs "$1"); do kill -s "$2" "$p" 2>/dev/null || true; done
}

# node_gone NODE: no process of the node is left.
node_gone() { [[ -z "$(node_procs "$1")" ]]; }

# wait_gone SECONDS NODE...: 0 when every NODE is gone within SECONDS.
wait_gone() {
	local deadline=$((SECONDS + $1)) n left
	shift
	while :; do
		left=0
		for n in "$@"; do node_gone "$n" || left=1; done
		((left == 0)) && return 0
		((SECONDS < deadline)) || return 1
		sleep 0.1
	done
}

node_log_tail() {
	local d="$STATE_DIR/$1" f
	for f in "$d/log/zookeeper.log" "$d/log/clickhouse-server.err.log" "$d/log/stdout.log" "$d/log/launcher.log"; do
		[[ -s "$f" ]] || continue
		log "--- $1: last lines of $f"
		tail -n 20 "$f" >&2 || true
	done
}

# ---------------------------------------------------------------- health

zk_ruok() {
	[[ "$(timeout 3 bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$1" && printf ruok >&3 && cat <&3' _ "$1" 2>/dev/null)" == imok ]]
}

# node_healthy NODE: the process runs and answers (ruok for zk, SELECT 1 over HTTP otherwise).
node_healthy() {
	node_alive "$1" || return 1
	case "$(node_kind "$1")" in
	zk) zk_ruok "$(port zk tcp)" ;;
	*) [[ "$(http_query "$(port "$1" http)" 'SELECT 1')" == 1 ]] ;;
	esac
}

# sees_zk NODE: the 18.16 node answers and reads ZooKeeper.
sees_zk() {
	node_healthy "$1" || return 1
	[[ "$(http_query "$(port "$1" http)" "SELECT count() > 0 FROM system.zookeeper WHERE path = '/'")" == 1 ]]
}

# writable NODE: sees_zk, and none of the node's replicated tables is read-only.
writable() {
	sees_zk "$1" || return 1
	[[ "$(http_query "$(port "$1" http)" 'SELECT count() FROM system.replicas WHERE is_readonly OR is_session_expired')" == 0 ]]
}

# ready NODE: what start and restart wait for: writable for an 18.16 node while ZooKeeper answers
# (just healthy when it does not: a replica cannot reach a dead ZooKeeper), healthy otherwise.
ready() {
	if [[ "$(node_kind "$1")" == legacy ]] && node_healthy zk; then
		writable "$1"
	else
		node_healthy "$1"
	fi
}

# wait_nodes CHECK NODE...: waits until CHECK NODE succeeds for every NODE, START_TIMEOUT seconds
# at most. 2 when a node's process exits (a port taken since it was picked, say), 1 on timeout;
# either way the last log lines of the failing nodes go to stderr.
wait_nodes() {
	local check="$1" deadline=$((SECONDS + START_TIMEOUT)) n
	shift
	local pending=("$@") left
	while :; do
		left=()
		for n in "${pending[@]}"; do
			if ! node_alive "$n"; then
				log "$n exited during start"
				node_log_tail "$n"
				return 2
			fi
			"$check" "$n" || left+=("$n")
		done
		((${#left[@]} == 0)) && return 0
		pending=("${left[@]}")
		if ((SECONDS >= deadline)); then
			log "not $check after ${START_TIMEOUT}s: ${pending[*]}"
			for n in "${pending[@]}"; do node_log_tail "$n"; done
			return 1
		fi
		sleep 0.2
	done
}

# ---------------------------------------------------------------- install (config: lib/cluster-config.sh)

ensure_installed() {
	local pkgs=()
	[[ -x "$SERVER_BIN" ]] || pkgs+=(clickhouse-server clickhouse-client)
	[[ -f "$ZK_JAR" ]] || pkgs+=(zookeeper)
	command -v curl >/dev/null 2>&1 || pkgs+=(curl)
	if ((${#MODERN_NODES[@]} > 0)); then
		command -v cc >/dev/null 2>&1 || pkgs+=(gcc libc6-dev)
	fi
	# The packages' postinst scripts try to start their services; there is no init here, so that
	# is refused harmlessly.
	apt_install "${pkgs[@]}"
	[[ -x "$SERVER_BIN" ]] || die "$SERVER_BIN missing after install"
	[[ -f "$ZK_JAR" ]] || die "$ZK_JAR missing after install"
	command -v "$JAVA" >/dev/null 2>&1 || die "no java for ZooKeeper (apt-get install default-jre-headless)"
}

# ---------------------------------------------------------------- launch

launch_node() {
	# Starts NODE's process in its own session (closing the lock descriptors 8 and 9).
	local n="$1" d="$STATE_DIR/$1" cp="$ZK_JAR"
	case "$(node_kind "$n")" in
	zk)
		[[ -f "$ZK_LOG_JAR" ]] && cp+=":$ZK_LOG_JAR"
		setsid "$JAVA" -Xms16m -Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:-UsePerfData \
			-Djava.awt.headless=true -Dzookeeper.admin.enableServer=false \
			-Dorg.slf4j.simpleLogger.showDateTime=true "-Dorg.slf4j.simpleLogger.dateTimeFormat=yyyy-MM-dd HH:mm:ss.SSS" \
			-cp "$cp" \
			org.apache.zookeeper.server.ZooKeeperServerMain "$d/zoo.cfg" \
			</dev/null >>"$d/log/zookeeper.log" 2>&1 8>&- 9>&- &
		echo "$!" >"$d/pid"
		disown "$!" # no "Killed" notice from bash when kill ends it
		;;
	legacy)
		setsid "$SERVER_BIN" --config-file="$d/config.xml" \
			</dev/null >>"$d/log/stdout.log" 2>&1 8>&- 9>&- &
		echo "$!" >"$d/pid"
		disown "$!"
		;;
	modern)
		modern_launch "$STATE_DIR/launcher" "$(<"$STATE_DIR/chdb_lib")" "$d" "$(port "$n" tcp)" "$(port "$n" http)"
		;;
	esac
	wait_exec "$(node_pid "$n")" "$d/"
}

# stop_nodes NODE...: SIGCONT (a stalled node can then die), SIGTERM, and SIGKILL to what is left
# after 15 s (then the return is 1, and a node's killed_at file says when).
stop_nodes() {
	local n
	for n in "$@"; do
		signal_node "$n" CONT
		signal_node "$n" TERM
	done
	wait_gone 15 "$@" && return 0
	log "still running after 15s: SIGKILL"
	for n in "$@"; do
		node_gone "$n" && continue
		signal_node "$n" KILL
		date +%s >"$STATE_DIR/$n/killed_at"
	done
	wait_gone 5 "$@" || log "warning: some processes of $* did not end"
	return 1
}

stop_all() {
	local d n running=()
	if [[ -d "$STATE_DIR" ]]; then
		# Every node directory there is, whatever the cluster was started with; the servers
		# first, so that they close their ZooKeeper sessions.
		for d in "$STATE_DIR"/*/; do
			n="$(basename "$d")"
			[[ "$n" == zk ]] || node_gone "$n" || running+=("$n")
		done
		((${#running[@]} == 0)) || stop_nodes "${running[@]}" || true
		node_gone zk || stop_nodes zk || true
	fi
	remove_owned_dir "$STATE_DIR" "$MARKER"
}

# http_exec NODE SQL: runs a statement on NODE over HTTP; on an error, logs the server's answer.
http_exec() {
	local out
	if out="$(curl -sS --max-time 60 --data-binary "$2" -w '\n%{http_code}' "http://127.0.0.1:$(port "$1" http)/" 2>&1)" &&
		[[ "${out##*$'\n'}" == 200 ]]; then
		return 0
	fi
	log "$1: $2: ${out%$'\n'*}"
	return 1
}

create_tables() {
	local n cols="(id UInt64, batch UInt64, v String)"
	for n in "${LEGACY_NODES[@]}" "${MODERN_NODES[@]}"; do
		http_exec "$n" "CREATE DATABASE IF NOT EXISTS $DB" || return 1
	done
	for n in "${LEGACY_NODES[@]}"; do
		http_exec "$n" "CREATE TABLE IF NOT EXISTS $DB.events_local $cols ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/events', '{replica}') ORDER BY id" || return 1
		http_exec "$n" "CREATE TABLE IF NOT EXISTS $DB.events $cols ENGINE = Distributed($CLUSTER, $DB, events_local, intHash64(id))" || return 1
	done
	for n in "${MODERN_NODES[@]}"; do
		http_exec "$n" "CREATE TABLE IF NOT EXISTS $DB.events_local $cols ENGINE = MergeTree ORDER BY id" || return 1
		http_exec "$n" "CREATE TABLE IF NOT EXISTS $DB.events $cols ENGINE = Distributed($MODERN_CLUSTER, $DB, events_local, intHash64(id))" || return 1
	done
}

start_once() {
	# One attempt: fresh state dir, new ports, launch, wait, tables. 0 = ready, 2 = a node exited
	# (maybe a port clash; retry), 1 = other failure. Leaves nothing running unless ready.
	local n rc=0 servers=("${LEGACY_NODES[@]}" "${MODERN_NODES[@]}")
	remove_owned_dir "$STATE_DIR" "$MARKER"
	mkdir -p "$STATE_DIR"
	touch "$MARKER"
	pick_ports
	read_state
	if ((${#MODERN_NODES[@]} > 0)); then
		printf '%s\n' "$LIB" >"$STATE_DIR/chdb_lib"
		modern_build_launcher "$STATE_DIR/launcher"
	fi
	write_zk_config
	for n in "${LEGACY_NODES[@]}"; do write_legacy_config "$n"; done
	for n in "${MODERN_NODES[@]}"; do write_modern_config "$n"; done

	log "starting ZooKeeper on 127.0.0.1:$(port zk tcp) and ${servers[*]} (state $STATE_DIR)"
	# ZooKeeper first; the servers start while its JVM warms up (18.16 connects to it lazily).
	launch_node zk
	for n in "${servers[@]}"; do launch_node "$n"; done
	wait_nodes node_healthy zk || rc=$?
	((rc != 0)) || wait_nodes node_healthy "${servers[@]}" || rc=$?
	((rc != 0)) || wait_nodes sees_zk "${LEGACY_NODES[@]}" || rc=$?
	((rc != 0)) || create_tables || rc=1
	if ((rc != 0)); then
		for n in $(all_nodes); do signal_node "$n" KILL; done
		# shellcheck disable=SC2046
		wait_gone 5 $(all_nodes) || true
		return "$rc"
	fi
	touch "$STATE_DIR/ready"
}

# ---------------------------------------------------------------- commands

cmd_start() {
	take_lock "$LOCK_FILE" 9
	local begin=$SECONDS
	if read_state && [[ -f "$STATE_DIR/ready" ]] && all_healthy; then
		log "already running"
		return 0
	fi
	ensure_installed
	LIB=""
	if ((${#MODERN_NODES[@]} > 0)); then
		LIB="$(modern_chdb_lib)"
		[[ -s "$LIB" ]] || die "no libchdb.so at '$LIB'"
	fi
	stop_all # a stale or unhealthy cluster of ours, if any
	if start_attempts start_once; then
		log "ready in $((SECONDS - begin))s: $(http_query "$(port s1r1 http)" 'SELECT version()' || echo '?') x ${#LEGACY_NODES[@]}${MODERN_NODES:+, $(http_query "$(port m1 http)" 'SELECT version()' || echo '?') x ${#MODERN_NODES[@]}}, ZooKeeper 127.0.0.1:$(port zk tcp)"
		return 0
	fi
	die "could not start the cluster (logs in $STATE_DIR/*/log)"
}

all_healthy() {
	local n
	for n in $(all_nodes); do node_healthy "$n" || return 1; done
}

cmd_status() {
	read_state || {
		log "not running"
		return 1
	}
	local n ok=0 what
	for n in $(all_nodes); do
		if node_healthy "$n"; then
			what="healthy"
		elif node_stalled "$n"; then
			what="stalled" ok=1
		elif node_alive "$n"; then
			what="running, not answering" ok=1
		else
			what="down" ok=1
		fi
		log "$n: $what (pid $(node_pid "$n"), tcp 127.0.0.1:$(port "$n" tcp))"
	done
	return "$ok"
}

join() {
	local IFS=,
	printf '%s' "$*"
}

cmd_env() {
	read_state && [[ -f "$STATE_DIR/ready" ]] || die "not running (run: scripts/cluster.sh start)"
	local n hosts=() http=() modern=() modern_http=()
	for n in "${LEGACY_NODES[@]}"; do
		hosts+=("127.0.0.1:$(port "$n" tcp)")
		http+=("http://127.0.0.1:$(port "$n" http)/")
	done
	for n in "${MODERN_NODES[@]}"; do
		modern+=("127.0.0.1:$(port "$n" tcp)")
		modern_http+=("http://127.0.0.1:$(port "$n" http)/")
	done
	printf 'export CHNATIVE_CLUSTER_HOSTS=%q\n' "$(join "${hosts[@]}")"
	printf 'export CHNATIVE_CLUSTER_NODES=%q\n' "$(join "${LEGACY_NODES[@]}")"
	printf 'export CHNATIVE_CLUSTER_HTTP=%q\n' "$(join "${http[@]}")"
	printf 'export CHNATIVE_CLUSTER_MODERN_HOSTS=%q\n' "$(join "${modern[@]}")"
	printf 'export CHNATIVE_CLUSTER_MODERN_NODES=%q\n' "$(join "${MODERN_NODES[@]}")"
	printf 'export CHNATIVE_CLUSTER_MODERN_HTTP=%q\n' "$(join "${modern_http[@]}")"
	printf 'export CHNATIVE_CLUSTER_ZK=%q\n' "127.0.0.1:$(port zk tcp)"
	printf 'export CHNATIVE_CLUSTER_SCRIPT=%q\n' "$SELF"
	printf 'export CHNATIVE_CLUSTER_STATE_DIR=%q\n' "$STATE_DIR"
	printf 'export CHNATIVE_CLUSTER_NAME=%q\n' "$CLUSTER"
	printf 'export CHNATIVE_CLUSTER_MODERN_NAME=%q\n' "$MODERN_CLUSTER"
	printf 'export CHNATIVE_CLUSTER_DATABASE=%q\n' "$DB"
}

cmd_stop() {
	take_lock "$LOCK_FILE" 9
	stop_all
	log "stopped"
}

# node_command NODE: the shared cluster lock (start and stop wait for node commands, node
# commands on other nodes run side by side) and NODE's own lock.
node_command() {
	take_lock "$LOCK_FILE" 9 -s
	read_state && [[ -f "$STATE_DIR/ready" ]] || die "not running (run: scripts/cluster.sh start)"
	[[ -n "${1:-}" ]] || die "which node? (nodes: $(all_nodes | tr '\n' ' '))"
	node_kind "$1" >/dev/null
	take_lock "$STATE_DIR/$1/lock" 8
}

cmd_kill() {
	node_command "$1"
	if node_gone "$1"; then
		log "$1 is not running"
		return 0
	fi
	signal_node "$1" KILL
	wait_gone 25 "$1" || die "$1 still running 25s after SIGKILL"
	date +%s >"$STATE_DIR/$1/killed_at"
	log "killed $1"
}

cmd_stall() {
	node_command "$1"
	node_alive "$1" || die "$1 is not running"
	signal_node "$1" STOP
	log "stalled $1 (SIGSTOP; resume with: scripts/cluster.sh resume $1)"
}

cmd_resume() {
	node_command "$1"
	node_alive "$1" || die "$1 is not running"
	signal_node "$1" CONT
	log "resumed $1"
}

replicas_writable_again() {
	# After a ZooKeeper restart every 18.16 replica needs a new session: wait until the running
	# ones (not stalled) have one and their tables are writable again.
	local n up=()
	for n in "${LEGACY_NODES[@]}"; do
		node_alive "$n" && ! node_stalled "$n" && up+=("$n")
	done
	((${#up[@]} == 0)) || wait_nodes writable "${up[@]}" || die "replicas not writable after the ZooKeeper restart"
}

cmd_restart() {
	# Same ports, same data, same config: only the process is new.
	local n="$1" killed_at wait i rc
	node_command "$n"
	if ! node_gone "$n"; then
		log "stopping $n"
		# A server stopped by SIGTERM closes its ZooKeeper session; one that needed SIGKILL
		# leaves it to expire (killed_at).
		stop_nodes "$n" || true
	fi
	if [[ "$(node_kind "$n")" == legacy && -f "$STATE_DIR/$n/killed_at" ]]; then
		killed_at="$(<"$STATE_DIR/$n/killed_at")"
		wait=$((killed_at + ZK_SESSION_MS / 1000 + 1 - $(date +%s)))
		if ((wait > 0)); then
			log "waiting ${wait}s for the ZooKeeper session of the killed $n to expire"
			sleep "$wait"
		fi
	fi
	for ((i = 1; i <= 5; i++)); do
		launch_node "$n"
		rc=0
		wait_nodes ready "$n" || rc=$?
		if ((rc == 0)); then
			rm -f "$STATE_DIR/$n/killed_at"
			log "restarted $n: pid $(node_pid "$n")"
			[[ "$n" != zk ]] || replicas_writable_again
			return 0
		fi
		((rc == 2)) || break
		log "restart attempt $i of $n failed; retrying"
		sleep 0.5
	done
	signal_node "$n" KILL
	die "could not restart $n on the same ports (logs in $STATE_DIR/$n/log)"
}

case "${1:-}" in
start) cmd_start ;;
stop) cmd_stop ;;
status) cmd_status ;;
env) cmd_env ;;
kill) cmd_kill "${2:-}" ;;
restart) cmd_restart "${2:-}" ;;
stall) cmd_stall "${2:-}" ;;
resume) cmd_resume "${2:-}" ;;
*)
	echo "usage: $0 start|stop|status|env|kill NODE|restart NODE|stall NODE|resume NODE" >&2
	echo "nodes: zk s1r1 s1r2 s2r1 s2r2 m1 m2" >&2
	exit 2
	;;
esac
