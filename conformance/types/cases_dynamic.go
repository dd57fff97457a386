package types

// dynamicCases: Variant, Dynamic, JSON.
//
// Dynamic and JSON have several Native serializations; the byte check compares with chDB's
// output in the one our writer uses (FLATTENED for Dynamic, JSON as text).
func dynamicCases() []Case {
	const flat = "output_format_native_use_flattened_dynamic_and_json_serialization = 1"
	const jsonText = "output_format_native_write_json_as_string = 1"
	return []Case{
		c("Variant(String, UInt64)", "NULL", "'x'", "''", "0::UInt64", "18446744073709551615::UInt64"),
		c("Variant(Array(Int32), Float64, String)", "NULL", "[1, -1]::Array(Int32)", "nan::Float64", "'s'"),
		c("Array(Variant(String, Int64))", "emptyArrayString()",
			"[NULL::Variant(String, Int64), 'a'::Variant(String, Int64), 1::Int64::Variant(String, Int64)]"),
		c("Map(String, Variant(String, UInt64))", "map()::Map(String, String)",
			"map('a', NULL::Variant(String, UInt64), 'b', 'x'::Variant(String, UInt64), 'c', 5::UInt64::Variant(String, UInt64))"),
		c("Array(Dynamic)", "[]::Array(Int64)", "[NULL::Dynamic, 1::Int64::Dynamic, 'a'::Dynamic]").byteSettings(flat),
		c("Dynamic", "NULL", "1::Int64", "'str'", "1.5::Float64", "[1, 2]::Array(Int64)", "true::Bool",
			"toDate('2020-01-01')").byteSettings(flat),
		c("Dynamic(max_types=2)", "1::Int64", "'a'", "1.5::Float64", "NULL").byteSettings(flat),
		c("JSON", "'{}'", "'{\"a\":1}'", "'{\"a\":{\"b\":\"x\",\"c\":[1,2]},\"d\":null}'", "'{\"s\":\"it''s \\\\t\"}'").
			byteSettings(jsonText),
		c("JSON(a UInt32, b String)", "'{}'", "'{\"a\":1,\"b\":\"x\",\"c\":2.5}'").byteSettings(jsonText),
		c("Nullable(JSON)", "NULL", "'{}'", "'{\"a\":[1,2],\"b\":\"x\"}'", "NULL").byteSettings(jsonText),
		c("Array(Nullable(JSON))", "[]", "['{\"a\":1}', NULL]").byteSettings(jsonText),
	}
}
