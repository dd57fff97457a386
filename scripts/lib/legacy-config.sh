# scripts/lib/legacy-config.sh — the config files of a ClickHouse 18.16 server (Debian's
# clickhouse-server), shared by scripts/clickhouse.sh (one server) and scripts/cluster.sh (four
# replicas). The caller sets AUTH_USER and AUTH_PASSWORD.
#
# 18.16's config root element is <yandex>. Users (users.xml):
#   default   no password
#   $AUTH_USER  password $AUTH_PASSWORD
#   chn_ro    no password, profile readonly (the default profile's settings and readonly=1: reads
#             only, and no setting may be changed by a query; the deadline tests use it)
# The default profile sets allow_experimental_low_cardinality_type=1 (18.16 refuses
# LowCardinality columns in tables otherwise) and max_execution_time=600: on 18.16 an unbounded
# `SELECT ... FROM system.numbers` never ends, even after the client has gone.

# legacy_write_config DIR WRITER TCP HTTP [SERVER_XML [PROFILE_XML]]: writes DIR/config.xml and
# DIR/users.xml for a server that keeps its data, tmp and logs under DIR (data/, tmp/, log/,
# user_files/, format_schemas/) and listens on 127.0.0.1:TCP (native) and :HTTP. WRITER names
# the script in the files' header comment. SERVER_XML is added inside <yandex> of config.xml
# (TLS, cluster sections), PROFILE_XML inside the default profile.
legacy_write_config() {
	local d="$1" writer="$2" tcp="$3" http="$4" server_xml="${5:-}" profile_xml="${6:-}"
	cat >"$d/config.xml" <<EOF
<?xml version="1.0"?>
<!-- Written by $writer; rewritten at every start. -->
<yandex>
    <logger>
        <level>information</level>
        <log>$d/log/clickhouse-server.log</log>
        <errorlog>$d/log/clickhouse-server.err.log</errorlog>
        <size>100M</size>
        <count>2</count>
    </logger>
    <listen_host>127.0.0.1</listen_host>
    <tcp_port>$tcp</tcp_port>
    <http_port>$http</http_port>
$server_xml
    <path>$d/data/</path>
    <tmp_path>$d/tmp/</tmp_path>
    <user_files_path>$d/user_files/</user_files_path>
    <format_schema_path>$d/format_schemas/</format_schema_path>
    <users_config>$d/users.xml</users_config>
    <default_profile>default</default_profile>
    <default_database>default</default_database>
    <timezone>UTC</timezone>
    <max_connections>1024</max_connections>
    <max_concurrent_queries>200</max_concurrent_queries>
    <keep_alive_timeout>3</keep_alive_timeout>
    <max_session_timeout>3600</max_session_timeout>
    <default_session_timeout>60</default_session_timeout>
    <uncompressed_cache_size>268435456</uncompressed_cache_size>
    <mark_cache_size>268435456</mark_cache_size>
    <mlock_executable>false</mlock_executable>
    <builtin_dictionaries_reload_interval>3600</builtin_dictionaries_reload_interval>
    <!-- system.query_log is filled only for sessions with SET log_queries = 1. -->
    <query_log>
        <database>system</database>
        <table>query_log</table>
        <flush_interval_milliseconds>1000</flush_interval_milliseconds>
    </query_log>
</yandex>
EOF
	cat >"$d/users.xml" <<EOF
<?xml version="1.0"?>
<!-- Written by $writer; rewritten at every start. -->
<yandex>
    <profiles>
        <default>
            <max_memory_usage>4000000000</max_memory_usage>
            <use_uncompressed_cache>0</use_uncompressed_cache>
            <load_balancing>random</load_balancing>
            <!-- 18.16 refuses LowCardinality(...) columns in tables without this. -->
            <allow_experimental_low_cardinality_type>1</allow_experimental_low_cardinality_type>
            <!-- Safety net: an unbounded system.numbers scan never ends on 18.16. -->
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
            <networks>
                <ip>127.0.0.1</ip>
                <ip>::1</ip>
            </networks>
            <profile>default</profile>
            <quota>default</quota>
        </default>
        <$AUTH_USER>
            <password>$AUTH_PASSWORD</password>
            <networks>
                <ip>127.0.0.1</ip>
                <ip>::1</ip>
            </networks>
            <profile>default</profile>
            <quota>default</quota>
        </$AUTH_USER>
        <chn_ro>
            <password></password>
            <networks>
                <ip>127.0.0.1</ip>
                <ip>::1</ip>
            </networks>
            <profile>readonly</profile>
            <quota>default</quota>
        </chn_ro>
    </users>
    <quotas>
        <default>
            <interval>
                <duration>3600</duration>
                <queries>0</queries>
                <errors>0</errors>
                <result_rows>0</result_rows>
                <read_rows>0</read_rows>
                <execution_time>0</execution_time>
            </interval>
        </default>
    </quotas>
</yandex>
EOF
}
