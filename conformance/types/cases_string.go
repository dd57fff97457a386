package types

import "strings"

// stringCases: String, FixedString, with empty, binary, escaped and long values.
func stringCases() []Case {
	long := "repeat('abcdefghij', 10000)" // 100 KB
	return []Case{
		s("String", "''", "'a'", "unhex('ff80')", "unhex('00')", "'tab\\there\\nnewline\\\\back''quote'",
			"'\\b\\f\\r\\x01\\x7f'", "'\\\\N'", "'NULL'", "'Ünïcødé 日本語 🎉'", long, "repeat('x', 127)", "repeat('y', 128)"),
		s("FixedString(1)", "''", "'a'", "unhex('ff')", "unhex('00')", "'\\t'"),
		s("FixedString(5)", "''", "'abc'", "'abcde'", "unhex('ff800001ff')", "'a\\nb'"),
		s("FixedString(300)", "''", "'"+strings.Repeat("z", 300)+"'", "unhex('ff80')"),
	}
}
