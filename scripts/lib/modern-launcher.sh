# scripts/lib/modern-launcher.sh — run ClickHouse 26.7 (chDB's libchdb.so as clickhouse-local,
# kept listening by scripts/modern/launcher.c), shared by scripts/modern.sh (one server) and
# scripts/cluster.sh (the two shards of cluster chnative_modern). The caller sets AUTH_USER and
# AUTH_PASSWORD and sources server-common.sh first.
#
# A server's directory DIR holds config.xml, users.xml, data/ (the engine's --path), files/ (its
# working directory: file() and INTO OUTFILE land there), stop.fifo (a line written to it stops
# the engine) and log/launcher.log. The launcher process is a supervisor that restarts a crashed
# engine: kill its whole process group (it leads one) to take the server down for good.

MODERN_SCRIPTS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# modern_chdb_lib: prints the path of libchdb.so: CHNATIVE_CHDB_LIB when set, else the one
# scripts/chdb.sh fetched (and caches).
modern_chdb_lib() {
	if [[ -n "${CHNATIVE_CHDB_LIB:-}" && -s "$CHNATIVE_CHDB_LIB" ]]; then
		printf '%s\n' "$CHNATIVE_CHDB_LIB"
		return 0
	fi
	local out
	out="$(bash "$MODERN_SCRIPTS_DIR/chdb.sh")" || die "scripts/chdb.sh failed"
	printf '%s\n' "$out" | tail -n 1
}

# modern_build_launcher OUT: compiles scripts/modern/launcher.c to OUT.
modern_build_launcher() {
	cc -O2 -Wall -Wextra -Werror -o "$1" "$MODERN_SCRIPTS_DIR/modern/launcher.c" -ldl ||
		die "could not compile scripts/modern/launcher.c"
}

# modern_write_config DIR WRITER [SERVER_XML [PROFILE_XML]]: writes DIR/config.xml and
# DIR/users.xml (users default without a password, $AUTH_USER with $AUTH_PASSWORD, chn_ro without
# a password in profile readonly: the default profile's settings and readonly=1). WRITER names
# the script in the files' header comment; SERVER_XML (remote_servers, say) is added inside
# <clickhouse>, PROFILE_XML inside the default profile.
modern_write_config() {
	local d="$1" writer="$2" server_xml="${3:-}" profile_xml="${4:-}"
	cat >"$d/config.xml" <<EOF
<?xml version="1.0"?>
<!-- Written by $writer; rewritten at every start. -->
<clickhouse>
    <users_config>$d/users.xml</users_config>
    <timezone>UTC</timezone>
    <max_connections>1024</max_connections>
    <max_concurrent_queries>200</max_concurrent_queries>
$server_xml
</clickhouse>
EOF
	cat >"$d/users.xml" <<EOF
<?xml version="1.0"?>
<!-- Written by $writer; rewritten at every start. -->
<clickhouse>
    <profiles>
        <default>
            <max_memory_usage>4000000000</max_memory_usage>
            <max_execution_time>600</max_execution_time>
$profile_xml
        </default>
        <readonly>
            <profile>default</profile>
            <readonly>1</readonly>
        </readonly>
    </profiles>
    <users>
        <default>
            <password></password>
            <networks><ip>127.0.0.1</ip><ip>::1</ip></networks>
            <profile>default</profile>
            <quota>default</quota>
            <access_management>1</access_management>
        </default>
        <$AUTH_USER>
            <password>$AUTH_PASSWORD</password>
            <networks><ip>127.0.0.1</ip><ip>::1</ip></networks>
            <profile>default</profile>
            <quota>default</quota>
        </$AUTH_USER>
        <chn_ro>
            <password></password>
            <networks><ip>127.0.0.1</ip><ip>::1</ip></networks>
            <profile>readonly</profile>
            <quota>default</quota>
        </chn_ro>
    </users>
    <quotas><default></default></quotas>
</clickhouse>
EOF
}

# modern_launch LAUNCHER LIB DIR TCP HTTP: starts the supervisor LAUNCHER (modern_build_launcher)
# of libchdb.so LIB in its own session on 127.0.0.1:TCP and :HTTP, with the server directory DIR
# (above), and writes its pid to DIR/pid. Descriptors 8 and 9 (the callers' locks) are closed.
modern_launch() {
	local launcher="$1" lib="$2" d="$3" tcp="$4" http="$5"
	mkdir -p "$d/data" "$d/log" "$d/files"
	[[ -p "$d/stop.fifo" ]] || mkfifo "$d/stop.fifo"
	(cd "$d/files" && exec setsid "$launcher" "$lib" "$d/data" "$d/stop.fifo" \
		"$tcp" "$http" "$d/config.xml" </dev/null >>"$d/log/launcher.log" 2>&1 8>&- 9>&-) &
	echo "$!" >"$d/pid"
	disown "$!" # no "Killed" notice from bash when the caller ends it
}
