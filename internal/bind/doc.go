// Package bind writes Go values into ClickHouse SQL: as literals substituted into query text, and
// as the text of server-side query parameters. It maps the arguments of a query, or of an
// INSERT's VALUES tuples, to its placeholders. It reads SQL only through internal/sqltext and
// knows nothing of database/sql: values with a database/sql Value method are recognised by
// internal/valuer.
//
// # Design note
//
// Binding has two outputs, chosen per placeholder by Query:
//
//   - a literal in the query text (?, $N, @name, and {name:Type} on servers without query
//     parameters, there as CAST(literal AS Type)): literal.go writes it by the Go value's kind,
//     cast.go by the placeholder's type;
//   - a query parameter (a {name:Type} on servers with query parameters): param.go and
//     param_composite.go write the text the server's escaped (TabSeparated) parser reads for the
//     type, ParameterValue quotes it for the wire.
//
// number.go, time.go and text.go hold the per-kind pieces both share (floats, decimals, big
// integers, times and durations, text of strings, UUIDs, IPs and enums, dereferencing pointers and
// Valuers). values.go maps the arguments of a VALUES tail to rows of columns for prepared
// inserts.
//
// Nothing here keeps its arguments; every returned string is new. Errors about the arguments are
// *Error (chnative.BindError); nesting is bounded (64 levels) so hostile values cannot recurse
// without end.
package bind
