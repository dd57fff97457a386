# scripts/lib/server-common.sh — helpers shared by scripts/clickhouse.sh (18.16) and
# scripts/modern.sh (26.7), sourced by both. The caller defines die().

# tcp_open PORT: 0 when something accepts connections on 127.0.0.1:PORT.
tcp_open() { timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" 2>/dev/null; }

# port_in_use PORT: 0 when a socket on this machine has PORT as its local port.
port_in_use() {
	local hex
	hex="$(printf '%04X' "$1")"
	awk -v suf=":$hex" 'FNR > 1 && substr($2, length($2) - 4) == suf { found = 1 } END { exit !found }' \
		/proc/net/tcp /proc/net/tcp6 2>/dev/null
}

# free_port [AVOID]: a random port in 20000..59999 that no socket on this machine uses, other
# than AVOID (a port already picked). Races are handled by the callers, which retry the whole
# start when the server cannot bind.
free_port() {
	local p i
	for ((i = 0; i < 200; i++)); do
		p=$((20000 + RANDOM % 40000))
		[[ "$p" == "${1:-}" ]] && continue
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
