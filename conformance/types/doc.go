// Package types is the type conformance suite: every ClickHouse type the columns package carries
// (or will carry), proven against a real ClickHouse engine (chDB) and the test server.
//
// Each [Case] names a type and SQL value expressions, edges included. For each case TestTypes
//
//  1. decodes chDB's FORMAT Native output with nativeproto.NativeReader and checks that every Go
//     value, rendered by [Canonical], equals the line chDB prints in FORMAT TabSeparated;
//  2. writes the decoded blocks with nativeproto.NativeWriter and checks that chDB reads the file
//     back (file(path, Native)) to the same text;
//  3. checks that our bytes equal chDB's (unless Case.NonDeterministic says why not);
//  4. for types the 18.16 server has, inserts the decoded values through the driver (prepared
//     insert in a transaction), selects them back and compares them in canonical form;
//  5. on the 26.7 server, once per protocol revision the driver runs at (see [RunModern]): the
//     server fills a MergeTree table (columns sparse where they can be), the driver reads it
//     through database/sql Rows and through QueryBlocks and writes what it read back through a
//     prepared insert and through PrepareBatch, and the server's own text over HTTP of all three
//     tables must agree, with each Go value's canonical form and with toTypeName.
//
// A type that columns.New refuses is a failing row ("unsupported"), never a skipped one.
// TestTypes writes conformance/TYPES.md with -update (or CHNATIVE_WRITE_TYPES_MD=1) and
// otherwise fails when the file differs from what the run produced; it fails while any row fails.
package types
