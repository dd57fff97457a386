# scripts/lib/server-common.sh — helpers shared by scripts/clickhouse.sh (18.16),
# scripts/modern.sh (26.7) and scripts/cluster.sh, sourced by all three. The caller defines
# log() and die().

# tcp_open PORT: 0 when something accepts connections on 127.0.0.1:PORT.
tcp_open() { timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" 2>/dev/null; }

# port_in_use PORT: 0 when a socket on this machine has PORT as its local port.
port_in_use() {
	local hex
	hex="$(printf '%04X' "$1")"
	awk -v suf=":$hex" 'FNR > 1 && substr($2, length($2) - 4) == suf { found = 1 } END { exit !found }' \
		/proc/net/tcp /proc/net/tcp6 2>/dev/null
}

# port_range: "LOW COUNT", the ports free_port picks from. They lie outside the kernel's
# ephemeral range (net.ipv4.ip_local_port_range), which the kernel hands to outgoing connections
# and to listeners on port 0: a server restarted on its old ports (cluster.sh restart, the fault
# tests) would otherwise find one of them taken by a client's socket while it was down, and fail
# to bind. Below the range when there is room, else above it.
port_range() {
	local lo=32768 hi=60999
	read -r lo hi </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || true
	if ((lo - 10000 >= 2000)); then
		echo "10000 $((lo - 10000))"
	elif ((65535 - hi >= 2000)); then
		echo "$((hi + 1)) $((65535 - hi))"
	else
		echo "20000 40000" # no room outside it: a restart may then find its port taken
	fi
}

# free_port [AVOID...]: a random port from port_range that no socket on this machine uses, other
# than the AVOID ports (ports already picked). Races are handled by the callers, which retry the
# whole start when the server cannot bind.
free_port() {
	local p i low count
	read -r low count <<<"$(port_range)"
	for ((i = 0; i < 200; i++)); do
		p=$((low + (RANDOM * 32768 + RANDOM) % count))
		[[ " $* " == *" $p "* ]] && continue
		port_in_use "$p" && continue
		tcp_open "$p" && continue
		echo "$p"
		return 0
	done
	die "no free TCP port found"
}

# make_test_certs DIR: a throw-away CA (ca.crt, ca.key) and a server certificate for
# 127.0.0.1/localhost signed by it (server.crt, server.key) in DIR. Returns non-zero when
# openssl fails.
make_test_certs() {
	local t="$1"
	mkdir -p "$t"
	{
		openssl req -x509 -newkey rsa:2048 -nodes -days 30 -subj "/CN=chnative test CA" \
			-keyout "$t/ca.key" -out "$t/ca.crt" &&
			openssl req -newkey rsa:2048 -nodes -subj "/CN=localhost" \
				-keyout "$t/server.key" -out "$t/server.csr" &&
			printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' >"$t/ext.cnf" &&
			openssl x509 -req -in "$t/server.csr" -CA "$t/ca.crt" -CAkey "$t/ca.key" -CAcreateserial \
				-days 30 -extfile "$t/ext.cnf" -out "$t/server.crt"
	} >/dev/null 2>&1 || return 1
	chmod 600 "$t/ca.key" "$t/server.key"
}

# start_attempts FN: runs FN, one start attempt, up to 3 times while it returns 2 (a server exited
# during start: maybe a port taken since it was picked, so the next attempt picks others);
# returns FN's last status.
start_attempts() {
	local attempt rc
	for attempt in 1 2 3; do
		rc=0
		"$1" || rc=$?
		((rc == 2)) || return "$rc"
		log "retrying with other ports (attempt $attempt failed)"
	done
	return 2
}

# apt_install PKG...: installs the packages with apt-get (needs root); nothing when none is given.
apt_install() {
	(($# == 0)) && return 0
	[[ "$(id -u)" == 0 ]] || die "need root to apt-get install $*"
	log "installing $* with apt-get"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update >&2
	apt-get install -y --no-install-recommends "$@" >&2
}

# take_lock FILE FD [-s]: opens FILE on descriptor FD and locks it, exclusively or (-s) shared,
# waiting at most 300 s. The lock lasts until the script exits; launches close FD (FD>&-) so that
# a daemon does not hold it.
take_lock() {
	mkdir -p "$(dirname "$1")"
	eval "exec $2>\"\$1\""
	flock "${3:--x}" -w 300 "$2" || die "timed out waiting for $1"
}

# pid_cmdline_has PID TEXT: 0 when process PID is alive (not a zombie) and its command line
# contains TEXT: the guard against a reused pid.
pid_cmdline_has() {
	pid_running "$1" && tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null | grep -qF -- "$2"
}

# pid_running PID: 0 when process PID exists and its main thread is not a zombie.
pid_running() { [[ -n "$1" ]] && kill -0 "$1" 2>/dev/null && [[ "$(task_state "/proc/$1")" != Z ]]; }

# wait_exec PID TEXT: waits, 10 s at most, until PID, just started with `&`, has exec'd the
# command whose line contains TEXT, or has exited. Until then its command line is the forking
# shell's: pid_cmdline_has says no, and a caller would take a server still starting for one that
# exited, and start a second on the same ports and data (a loaded CI machine did, and the first
# went on holding them).
wait_exec() {
	local i
	for ((i = 0; i < 100; i++)); do
		pid_running "$1" || return 0
		pid_cmdline_has "$1" "$2" && return 0
		sleep 0.1
	done
}

# task_state DIR: the state letter (R, S, D, Z, ...) in DIR/stat, a /proc/PID or a task of it.
task_state() { sed 's/.*) //' "$1/stat" 2>/dev/null | cut -d' ' -f1; }

# pid_exiting PID: 0 while PID dies: its main thread is a zombie (its command line gone, so
# pid_cmdline_has says no) but another of its threads is not, and holds the process's files:
# its listening sockets and, for ClickHouse, the lock on its data directory's status file. After
# a SIGKILL each thread ends on its own; one in the middle of disk I/O can take seconds, and a
# server started on the same ports and data meanwhile exits ("Cannot lock file .../status").
pid_exiting() {
	local t
	[[ -n "$1" && "$(task_state "/proc/$1")" == Z ]] || return 1
	for t in /proc/"$1"/task/*; do
		case "$(task_state "$t")" in
		Z | X | "") ;;
		*) return 0 ;;
		esac
	done
	return 1
}

# wait_exited PID [SECONDS]: waits, 60 s at most, until no thread of PID is left (see
# pid_exiting); non-zero if one still is.
wait_exited() {
	local deadline=$((SECONDS + ${2:-60}))
	while pid_exiting "$1"; do
		((SECONDS < deadline)) || return 1
		sleep 0.1
	done
}

# terminate PID [group]: SIGTERM to the script's server process PID, SIGKILL after 30 s if it is
# still running (to PID's whole process group with "group", as modern.sh's supervisor needs),
# then waits until every thread of PID has ended (wait_exited), so that its ports and data are
# free. It uses the sourcing script's pid_alive (its guard against a reused pid) and log.
terminate() {
	local pid="$1" i
	kill -TERM "$pid" 2>/dev/null || true
	for ((i = 0; i < 300; i++)); do
		pid_alive "$pid" || break
		sleep 0.1
	done
	if ((i == 300)); then
		log "still running after 30s; sending SIGKILL"
		if [[ "${2:-}" == group ]]; then
			kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
		else
			kill -KILL "$pid" 2>/dev/null || true
		fi
	fi
	wait_exited "$pid" || log "warning: threads of pid $pid still running 60s after it exited"
}

# http_query PORT SQL: runs SQL over HTTP on 127.0.0.1:PORT, prints the answer; non-zero when the
# server does not answer in 3 s or answers with an error.
http_query() {
	curl -fsS --max-time 3 --data-binary "$2" "http://127.0.0.1:$1/" 2>/dev/null
}

# remove_owned_dir DIR MARKER: removes DIR, unless it holds files but not MARKER (then it was not
# made by these scripts and die is called).
remove_owned_dir() {
	[[ -d "$1" ]] || return 0
	if [[ ! -f "$2" ]] && [[ -n "$(ls -A "$1" 2>/dev/null)" ]]; then
		die "$1 exists but was not made by this script; not removing it"
	fi
	rm -rf -- "$1"
}
