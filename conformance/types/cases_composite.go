package types

// compositeCases: Nullable, Array, Tuple (named), Map, LowCardinality, Nested and deep nests.
// Map literals list their keys in byte order of their text: Go maps have no order, and the
// canonical form sorts entries by key.
func compositeCases() []Case {
	return []Case{
		s("Nullable(Int32)", "NULL", "0", "-2147483648", "2147483647"),
		s("Nullable(String)", "NULL", "''", "'NULL'", "'\\\\N'", "unhex('ff80')"),
		s("Nullable(Float64)", "NULL", "nan", "-0.", "inf"),
		s("Nullable(DateTime('Asia/Kathmandu'))", "NULL", "0", "4294967295"),
		s("Nullable(Decimal(38, 10))", "NULL", "'-9999999999999999999999999999.9999999999'"),
		s("Nullable(UUID)", "NULL", "'61f0c404-5cb3-11e7-907b-a6006ad3dba0'"),
		s("Nullable(FixedString(3))", "NULL", "'abc'", "''"),
		s("Array(Int32)", "[]", "[0]", "[-2147483648, 2147483647]", "range(1000)"),
		s("Array(String)", "[]", "['']", "['a', '', unhex('ff80'), 'it''s\\t']", "arrayMap(x -> toString(x), range(300))"),
		s("Array(Nullable(Int32))", "[]", "[NULL]", "[1, NULL, -1]", "[NULL, NULL]"),
		s("Array(Nullable(String))", "[]", "[NULL, '', 'x']"),
		s("Array(Array(UInt8))", "[]", "[[]]", "[[], [1], [2, 3]]", "[[255]]"),
		s("Array(Array(Array(Nullable(Int64))))", "[]", "[[[]]]", "[[[NULL, 1]], [], [[-9223372036854775808]]]"),
		s("Array(Float32)", "[]", "[nan, inf, -inf, -0., 0.1]"),
		s("Array(Date)", "[]", "['1970-01-01', '2149-06-06']"),
		s("Array(DateTime('Asia/Kolkata'))", "[]", "[0, 4294967295]"),
		s("Array(Decimal(18, 6))", "[]", "['-999999999999.999999', '0.000001']"),
		s("Array(Enum8('a' = 1, 'b' = 2))", "[]", "['a', 'b', 'a']"),
		s("Array(UUID)", "[]", "['61f0c404-5cb3-11e7-907b-a6006ad3dba0']"),
		s("Array(FixedString(2))", "[]", "['ab', '', unhex('00ff')]"),
		s("Tuple(UInt8, String)", "(0, '')", "(255, 'x')", "(1, unhex('ff80'))"),
		s("Tuple(a UInt8, b Nullable(String), c Array(Int16))", "(0, NULL, [])", "(1, 'x', [-1, 1])"),
		s("Tuple(Int64, Tuple(Float64, Array(Nullable(String))))", "(0, (0, []))", "(-1, (nan, [NULL, 'a']))"),
		s("Array(Tuple(String, Nullable(Int8)))", "[]", "[('a', NULL), ('', -128)]").
			noServer("18.16 flattens Array(Tuple) columns into v.1, v.2 arrays"),
		c("Map(String, UInt64)", "map()", "map('', 0)", "map('a', 1, 'b', 18446744073709551615)"),
		c("Map(String, Array(Nullable(UInt64)))", "map()", "map('a', [], 'b', [NULL], 'c', [1, NULL, 18446744073709551615])"),
		c("Map(Int32, Nullable(String))", "map()", "map(-1, NULL, 1, 'x', 20, '')"),
		c("Map(String, Map(String, Int8))", "map()", "map('a', map(), 'b', map('x', -1, 'y', 1))"),
		c("Array(Map(String, String))", "[]", "[map(), map('k', 'v')]"),
		c("Map(LowCardinality(String), Tuple(UInt8, String))", "map()", "map('a', (1, 'x'), 'b', (2, ''))"),
		s("LowCardinality(String)", "''", "'a'", "'b'", "'a'", "unhex('ff80')", "''"),
		s("LowCardinality(Nullable(String))", "NULL", "''", "'a'", "NULL", "'a'", "'b'"),
		s("LowCardinality(FixedString(2))", "'ab'", "''", "'ab'"),
		s("LowCardinality(Int32)", "0", "-1", "2147483647", "-1"),
		s("LowCardinality(Nullable(UInt64))", "NULL", "18446744073709551615", "NULL", "0"),
		s("LowCardinality(Date)", "'1970-01-01'", "'2149-06-06'", "'1970-01-01'"),
		s("LowCardinality(DateTime('Asia/Kolkata'))", "0", "4294967295"),
		c("LowCardinality(UUID)", "'61f0c404-5cb3-11e7-907b-a6006ad3dba0'", "'00000000-0000-0000-0000-000000000000'").
			noServer("18.16 creates the table but fails on use: Unexpected dictionary type for DataTypeLowCardinality: UUID"),
		s("Array(LowCardinality(String))", "[]", "['a', 'b', 'a']", "['']"),
		s("Array(LowCardinality(Nullable(String)))", "[]", "[NULL, 'a', NULL]"),
		c("Nested(a UInt8, b String)", "[]", "[(1, 'x'), (2, '')]").noServer("18.16 flattens Nested into v.a, v.b arrays"),
		s("Array(Array(Array(Array(Array(Array(Array(Array(Nullable(String)))))))))",
			"[]", "[[[[[[[[NULL, 'deep']]]]]]]]", "[[[[[[[[]]]]]]]]"),
	}
}
