package types

// scalarCases: Bool, UUID, IPv4, IPv6, Enum8, Enum16, Nothing.
func scalarCases() []Case {
	return []Case{
		c("Bool", "true", "false", "0", "1"),
		s("UUID", "'00000000-0000-0000-0000-000000000000'", "'61f0c404-5cb3-11e7-907b-a6006ad3dba0'",
			"'ffffffff-ffff-ffff-ffff-ffffffffffff'", "'01234567-89ab-cdef-0123-456789abcdef'"),
		c("IPv4", "'0.0.0.0'", "'1.2.3.4'", "'127.0.0.1'", "'255.255.255.255'", "'192.168.0.1'"),
		c("IPv6", "'::'", "'::1'", "'2001:db8::ff00:42:8329'", "'::ffff:1.2.3.4'",
			"'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'", "'fe80::1'"),
		s("Enum8('a' = 1, 'b' = -128, 'c' = 127, '' = 0, 'it''s \\t' = 5)", "'a'", "'b'", "'c'", "''", "'it''s \\t'"),
		s("Enum16('x' = -32768, 'y' = 32767, 'z' = 0, 'Ünï' = 1000)", "'x'", "'y'", "'z'", "'Ünï'"),
		c("Nullable(Nothing)", "NULL", "NULL").noServer("a table cannot hold Nothing").noModern("a table cannot hold Nothing"),
		c("Array(Nothing)", "[]", "[]").noServer("a table cannot hold Nothing").noModern("a table cannot hold Nothing"),
		c("Array(Nullable(Nothing))", "[]", "[NULL]", "[NULL, NULL]").noServer("a table cannot hold Nothing").noModern("a table cannot hold Nothing"),
	}
}
