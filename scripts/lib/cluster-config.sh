# scripts/lib/cluster-config.sh — the config files of scripts/cluster.sh's nodes: ports, zoo.cfg,
# the 18.16 replicas' and the 26.7 shards' config.xml and users.xml. Sourced by cluster.sh after
# server-common.sh, legacy-config.sh and modern-launcher.sh; uses its STATE_DIR, node lists,
# cluster names, ZK_SESSION_MS and port().

pick_ports() {
	# Picks a port for everything and writes them to $STATE_DIR/ports.
	local picked=() n k p
	{
		printf 'MODERN_NODES=(%s)\n' "${MODERN_NODES[*]}"
		for n in $(all_nodes); do
			case "$(node_kind "$n")" in
			zk) set -- tcp ;;
			legacy) set -- tcp http inter ;;
			modern) set -- tcp http ;;
			esac
			for k in "$@"; do
				p="$(free_port "${picked[@]}")"
				picked+=("$p")
				printf 'P_%s_%s=%s\n' "$n" "$k" "$p"
			done
		done
	} >"$STATE_DIR/ports"
}

# cluster_xml NAME INTERNAL "SHARD1 NODES" "SHARD2 NODES"...: a remote_servers cluster entry.
cluster_xml() {
	local name="$1" internal="$2" shard n
	shift 2
	printf '        <%s>\n' "$name"
	for shard in "$@"; do
		printf '            <shard>\n                <internal_replication>%s</internal_replication>\n' "$internal"
		for n in $shard; do
			printf '                <replica><host>127.0.0.1</host><port>%s</port></replica>\n' "$(port "$n" tcp)"
		done
		printf '            </shard>\n'
	done
	printf '        </%s>\n' "$name"
}

write_zk_config() {
	local d="$STATE_DIR/zk"
	mkdir -p "$d/data" "$d/log"
	cat >"$d/zoo.cfg" <<EOF
# Written by scripts/cluster.sh; rewritten at every start.
tickTime=1000
initLimit=10
syncLimit=5
dataDir=$d/data
clientPort=$(port zk tcp)
clientPortAddress=127.0.0.1
maxClientCnxns=0
minSessionTimeout=2000
maxSessionTimeout=30000
admin.enableServer=false
4lw.commands.whitelist=*
EOF
}

write_legacy_config() {
	local n="$1" d="$STATE_DIR/$1" server_xml
	mkdir -p "$d"/{data,tmp,log,user_files,format_schemas}
	server_xml="$(
		cat <<EOF
    <interserver_http_host>127.0.0.1</interserver_http_host>
    <interserver_http_port>$(port "$n" inter)</interserver_http_port>
    <zookeeper>
        <node index="1"><host>127.0.0.1</host><port>$(port zk tcp)</port></node>
        <session_timeout_ms>$ZK_SESSION_MS</session_timeout_ms>
        <operation_timeout_ms>5000</operation_timeout_ms>
    </zookeeper>
    <macros>
        <shard>${n:1:1}</shard>
        <replica>$n</replica>
    </macros>
    <distributed_ddl><path>/clickhouse/task_queue/ddl</path></distributed_ddl>
    <!-- A replica notices a lost ZooKeeper session within 3 s (18.16's default is 60 s). -->
    <merge_tree><zookeeper_session_expiration_check_period>3</zookeeper_session_expiration_check_period></merge_tree>
    <remote_servers>
$(cluster_xml "$CLUSTER" true "s1r1 s1r2" "s2r1 s2r2")
    </remote_servers>
EOF
	)"
	legacy_write_config "$d" scripts/cluster.sh "$(port "$n" tcp)" "$(port "$n" http)" "$server_xml" \
		'            <distributed_ddl_task_timeout>30</distributed_ddl_task_timeout>'
}

write_modern_config() {
	local n="$1" d="$STATE_DIR/$1"
	mkdir -p "$d/data" "$d/log"
	# clickhouse-local queues a Distributed table's asynchronous inserts but never sends them:
	# inserts through one are synchronous here.
	modern_write_config "$d" scripts/cluster.sh "$(
		cat <<EOF
    <macros><shard>${n:1:1}</shard><replica>$n</replica></macros>
    <remote_servers>
$(cluster_xml "$MODERN_CLUSTER" false m1 m2)
    </remote_servers>
EOF
	)" '            <distributed_foreground_insert>1</distributed_foreground_insert>'
}
