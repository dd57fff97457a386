package nativeproto

import (
	"strconv"
	"strings"

	"github.com/chnative/chnative/internal/wire"
)

// Setting is one query setting or query parameter as sent in a Query packet (and, at
// RevServerSettings, in the server Hello).
type Setting struct {
	Key   string
	Value string // text form: "1", "lz4", "300"; for parameters a Field dump such as 'foo'
	// Important asks the server to fail when it does not know the setting (flag 0x01).
	Important bool
	// Custom marks a user-defined setting or a query parameter (flag 0x02).
	Custom bool
}

// Setting flags of the STRINGS_WITH_FLAGS format.
const (
	settingFlagImportant = 0x01
	settingFlagCustom    = 0x02
)

// Limits for decoded settings.
const (
	maxSettings         = 1 << 16
	maxSettingNameSize  = 1 << 16
	maxSettingValueSize = 1 << 20
)

// SettingKind is how a setting's value is serialized in the BINARY settings format that servers
// below RevSettingsAsStrings expect (ClickHouse 18.x/19.x SettingsCommon.h).
type SettingKind uint8

// Setting kinds of the BINARY format.
const (
	SettingKindUInt64 SettingKind = iota + 1 // VarUInt (UInt64, Bool, MaxThreads, Seconds, Milliseconds)
	SettingKindInt64                         // zigzag VarInt (writeVarInt)
	SettingKindString                        // String: strings, enums, Char, and Float (as its text)
)

func (k SettingKind) String() string {
	switch k {
	case SettingKindUInt64:
		return "UInt64"
	case SettingKindInt64:
		return "Int64"
	case SettingKindString:
		return "String"
	}
	return "SettingKind(" + strconv.Itoa(int(k)) + ")"
}

// binarySettingKinds maps setting names to their BINARY serialization, for servers below
// RevSettingsAsStrings (ClickHouse 18.x/19.x, Settings.h APPLY_FOR_SETTINGS). A setting not listed
// cannot be sent to such a server.
var binarySettingKinds = map[string]SettingKind{
	// SettingUInt64, SettingBool (= SettingUInt64), SettingMaxThreads, SettingSeconds,
	// SettingMilliseconds: writeVarUInt.
	"min_compress_block_size": SettingKindUInt64, "max_compress_block_size": SettingKindUInt64,
	"max_block_size": SettingKindUInt64, "max_insert_block_size": SettingKindUInt64,
	"min_insert_block_size_rows": SettingKindUInt64, "min_insert_block_size_bytes": SettingKindUInt64,
	"max_threads": SettingKindUInt64, "max_read_buffer_size": SettingKindUInt64,
	"max_distributed_connections": SettingKindUInt64, "max_query_size": SettingKindUInt64,
	"interactive_delay": SettingKindUInt64, "connect_timeout": SettingKindUInt64,
	"connect_timeout_with_failover_ms": SettingKindUInt64, "receive_timeout": SettingKindUInt64,
	"send_timeout": SettingKindUInt64, "queue_max_wait_ms": SettingKindUInt64,
	"poll_interval": SettingKindUInt64, "distributed_connections_pool_size": SettingKindUInt64,
	"connections_with_failover_max_tries": SettingKindUInt64, "extremes": SettingKindUInt64,
	"use_uncompressed_cache": SettingKindUInt64, "replace_running_query": SettingKindUInt64,
	"optimize_move_to_prewhere": SettingKindUInt64, "replication_alter_partitions_sync": SettingKindUInt64,
	"compile": SettingKindUInt64, "compile_expressions": SettingKindUInt64,
	"group_by_two_level_threshold": SettingKindUInt64, "group_by_two_level_threshold_bytes": SettingKindUInt64,
	"distributed_aggregation_memory_efficient": SettingKindUInt64,
	"max_parallel_replicas":                    SettingKindUInt64, "skip_unavailable_shards": SettingKindUInt64,
	"distributed_group_by_no_merge": SettingKindUInt64, "force_index_by_date": SettingKindUInt64,
	"force_primary_key": SettingKindUInt64, "priority": SettingKindUInt64, "log_queries": SettingKindUInt64,
	"max_concurrent_queries_for_user": SettingKindUInt64, "insert_deduplicate": SettingKindUInt64,
	"insert_quorum": SettingKindUInt64, "insert_quorum_timeout": SettingKindUInt64,
	"select_sequential_consistency": SettingKindUInt64, "enable_http_compression": SettingKindUInt64,
	"output_format_write_statistics": SettingKindUInt64, "input_format_skip_unknown_fields": SettingKindUInt64,
	"input_format_values_interpret_expressions": SettingKindUInt64,
	"output_format_json_quote_64bit_integers":   SettingKindUInt64,
	"output_format_json_quote_denormals":        SettingKindUInt64,
	"output_format_json_escape_forward_slashes": SettingKindUInt64,
	"output_format_pretty_max_rows":             SettingKindUInt64,
	"output_format_pretty_max_column_pad_width": SettingKindUInt64,
	"output_format_pretty_color":                SettingKindUInt64, "use_client_time_zone": SettingKindUInt64,
	"input_format_allow_errors_num": SettingKindUInt64, "join_use_nulls": SettingKindUInt64,
	"preferred_block_size_bytes": SettingKindUInt64, "max_replica_delay_for_distributed_queries": SettingKindUInt64,
	"fallback_to_stale_replicas_for_distributed_queries": SettingKindUInt64,
	"insert_distributed_sync":                            SettingKindUInt64, "insert_distributed_timeout": SettingKindUInt64,
	"stream_flush_interval_ms": SettingKindUInt64, "insert_allow_materialized_columns": SettingKindUInt64,
	"optimize_throw_if_noop": SettingKindUInt64, "use_index_for_in_with_subqueries": SettingKindUInt64,
	"empty_result_for_aggregation_by_empty_set": SettingKindUInt64, "allow_distributed_ddl": SettingKindUInt64,
	"max_rows_to_read": SettingKindUInt64, "max_bytes_to_read": SettingKindUInt64,
	"max_rows_to_group_by": SettingKindUInt64, "max_bytes_before_external_group_by": SettingKindUInt64,
	"max_rows_to_sort": SettingKindUInt64, "max_bytes_to_sort": SettingKindUInt64,
	"max_bytes_before_external_sort": SettingKindUInt64, "max_result_rows": SettingKindUInt64,
	"max_result_bytes": SettingKindUInt64, "max_execution_time": SettingKindUInt64,
	"min_execution_speed": SettingKindUInt64, "timeout_before_checking_execution_speed": SettingKindUInt64,
	"max_columns_to_read": SettingKindUInt64, "max_temporary_columns": SettingKindUInt64,
	"max_temporary_non_const_columns": SettingKindUInt64, "max_subquery_depth": SettingKindUInt64,
	"max_pipeline_depth": SettingKindUInt64, "max_ast_depth": SettingKindUInt64,
	"max_ast_elements": SettingKindUInt64, "max_expanded_ast_elements": SettingKindUInt64,
	"readonly": SettingKindUInt64, "max_rows_in_set": SettingKindUInt64, "max_bytes_in_set": SettingKindUInt64,
	"max_rows_in_join": SettingKindUInt64, "max_bytes_in_join": SettingKindUInt64,
	"max_rows_to_transfer": SettingKindUInt64, "max_bytes_to_transfer": SettingKindUInt64,
	"max_rows_in_distinct": SettingKindUInt64, "max_bytes_in_distinct": SettingKindUInt64,
	"max_memory_usage": SettingKindUInt64, "max_memory_usage_for_user": SettingKindUInt64,
	"max_memory_usage_for_all_queries": SettingKindUInt64, "max_network_bandwidth": SettingKindUInt64,
	"max_network_bytes": SettingKindUInt64, "max_network_bandwidth_for_user": SettingKindUInt64,
	"max_network_bandwidth_for_all_users": SettingKindUInt64, "format_csv_allow_single_quotes": SettingKindUInt64,
	"format_csv_allow_double_quotes": SettingKindUInt64, "log_profile_events": SettingKindUInt64,
	"log_query_settings": SettingKindUInt64, "log_query_threads": SettingKindUInt64,
	"enable_optimize_predicate_expression":           SettingKindUInt64,
	"low_cardinality_max_dictionary_size":            SettingKindUInt64,
	"low_cardinality_use_single_dictionary_for_part": SettingKindUInt64,
	"low_cardinality_allow_in_native_format":         SettingKindUInt64,
	"allow_experimental_low_cardinality_type":        SettingKindUInt64,
	"allow_experimental_decimal_type":                SettingKindUInt64, "decimal_check_overflow": SettingKindUInt64,
	"prefer_localhost_replica": SettingKindUInt64, "asterisk_left_columns_only": SettingKindUInt64,
	"allow_ddl": SettingKindUInt64, "calculate_text_stack_trace": SettingKindUInt64,
	"input_format_defaults_for_omitted_fields": SettingKindUInt64,
	"max_partitions_per_insert_block":          SettingKindUInt64,
	// SettingInt64: writeVarInt (zigzag).
	"network_zstd_compression_level": SettingKindInt64, "http_zlib_compression_level": SettingKindInt64,
	"distributed_ddl_task_timeout": SettingKindInt64,
	// SettingFloat: writeBinary(toString()); strings, chars and enums: writeBinary(String).
	"totals_auto_threshold": SettingKindString, "max_streams_to_max_threads_ratio": SettingKindString,
	"memory_tracker_fault_probability": SettingKindString, "input_format_allow_errors_ratio": SettingKindString,
	"load_balancing": SettingKindString, "totals_mode": SettingKindString,
	"network_compression_method": SettingKindString, "distributed_product_mode": SettingKindString,
	"count_distinct_implementation": SettingKindString, "join_default_strictness": SettingKindString,
	"format_schema": SettingKindString, "read_overflow_mode": SettingKindString,
	"group_by_overflow_mode": SettingKindString, "sort_overflow_mode": SettingKindString,
	"result_overflow_mode": SettingKindString, "timeout_overflow_mode": SettingKindString,
	"set_overflow_mode": SettingKindString, "join_overflow_mode": SettingKindString,
	"transfer_overflow_mode": SettingKindString, "distinct_overflow_mode": SettingKindString,
	"format_csv_delimiter": SettingKindString, "date_time_input_format": SettingKindString,
	"send_logs_level": SettingKindString, "global_subqueries_method": SettingKindString,
}

// BinarySettingKind returns how setting name is serialized for servers below
// RevSettingsAsStrings, and false when the package does not know it.
func BinarySettingKind(name string) (SettingKind, bool) {
	k, ok := binarySettingKinds[name]
	return k, ok
}

// encodeSettings appends settings and the empty-name terminator in the format of rev.
func encodeSettings(w *wire.Writer, rev Revision, settings []Setting) error {
	if rev.Has(RevSettingsAsStrings) {
		for _, s := range settings {
			if s.Key == "" {
				return protoErr("setting with an empty name")
			}
			w.String(s.Key)
			var flags uint64
			if s.Important {
				flags |= settingFlagImportant
			}
			if s.Custom {
				flags |= settingFlagCustom
			}
			w.UVarInt(flags)
			w.String(s.Value)
		}
		w.String("")
		return nil
	}
	for _, s := range settings {
		if err := encodeBinarySetting(w, s); err != nil {
			return err
		}
	}
	w.String("")
	return nil
}

func encodeBinarySetting(w *wire.Writer, s Setting) error {
	if s.Key == "" {
		return protoErr("setting with an empty name")
	}
	if s.Custom {
		return protoErr("custom setting %q needs a server of revision %d or newer", s.Key, RevSettingsAsStrings)
	}
	kind, ok := binarySettingKinds[s.Key]
	if !ok {
		return protoErr("setting %q cannot be sent to a server below revision %d: its binary type is unknown", s.Key, RevSettingsAsStrings)
	}
	switch kind {
	case SettingKindUInt64:
		v, err := parseUIntSetting(s.Key, s.Value)
		if err != nil {
			return err
		}
		w.String(s.Key)
		w.UVarInt(v)
	case SettingKindInt64:
		v, err := strconv.ParseInt(strings.TrimSpace(s.Value), 10, 64)
		if err != nil {
			return protoErr("setting %q: value %q is not an Int64", s.Key, s.Value)
		}
		w.String(s.Key)
		w.UVarInt(uint64(v<<1) ^ uint64(v>>63))
	default:
		w.String(s.Key)
		w.String(s.Value)
	}
	return nil
}

// parseUIntSetting parses the text of a UInt64/Bool/MaxThreads/Seconds setting.
func parseUIntSetting(key, val string) (uint64, error) {
	v := strings.TrimSpace(val)
	switch strings.ToLower(v) {
	case "true":
		return 1, nil
	case "false":
		return 0, nil
	case "auto": // max_threads
		return 0, nil
	}
	u, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return 0, protoErr("setting %q: value %q is not an unsigned integer or bool", key, val)
	}
	return u, nil
}

// decodeSettings reads a settings list in the format of rev, appending to dst. BINARY values of
// unknown settings cannot be skipped and are an error.
func decodeSettings(r *wire.Reader, rev Revision, dst []Setting, maxStr int) ([]Setting, error) {
	for i := 0; ; i++ {
		if i > maxSettings {
			return dst, protoErr("more than %d settings", maxSettings)
		}
		key, err := r.String("setting name", min(maxStr, maxSettingNameSize))
		if err != nil {
			return dst, err
		}
		if key == "" {
			return dst, nil
		}
		s := Setting{Key: key}
		if rev.Has(RevSettingsAsStrings) {
			flags, err := r.UVarInt()
			if err != nil {
				return dst, err
			}
			s.Important = flags&settingFlagImportant != 0
			s.Custom = flags&settingFlagCustom != 0
			if s.Value, err = r.String("setting value", min(maxStr, maxSettingValueSize)); err != nil {
				return dst, err
			}
		} else {
			kind, ok := binarySettingKinds[key]
			if !ok {
				return dst, protoErr("setting %q in binary format: unknown type", key)
			}
			switch kind {
			case SettingKindUInt64:
				v, err := r.UVarInt()
				if err != nil {
					return dst, err
				}
				s.Value = strconv.FormatUint(v, 10)
			case SettingKindInt64:
				v, err := r.UVarInt()
				if err != nil {
					return dst, err
				}
				s.Value = strconv.FormatInt(int64(v>>1)^-int64(v&1), 10)
			default:
				if s.Value, err = r.String("setting value", min(maxStr, maxSettingValueSize)); err != nil {
					return dst, err
				}
			}
		}
		dst = append(dst, s)
	}
}

// QuoteParameter returns v as a quoted SQL string literal, the form the server expects for the
// value of a query parameter ([Query.Parameters]): backslashes and single quotes are escaped.
func QuoteParameter(v string) string {
	var b strings.Builder
	b.Grow(len(v) + 2)
	b.WriteByte('\'')
	for i := 0; i < len(v); i++ {
		switch c := v[i]; c {
		case '\\', '\'':
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('\'')
	return b.String()
}
