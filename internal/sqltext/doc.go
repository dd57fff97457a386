// Package sqltext is the driver's one SQL lexer: it reads ClickHouse SQL text without parsing
// it, to find what the driver must act on, and it writes the literals and identifiers the driver
// puts into SQL text. It knows nothing of database/sql, of Go values or of the connection.
//
// # Design note
//
// The driver never parses SQL; it scans it. Every scan walks the text byte by byte and steps over
// what the server reads as something other than code: quoted literals and identifiers ('...',
// "...", `...`, with backslash escapes and doubled quotes), comments (--, #, //, nested /* */),
// heredocs ($$...$$, $tag$...$tag$) and Unicode-quoted strings (‘...’, “...”). The skip
// primitives live in lexer.go and every scanner here uses them, so that a placeholder, a keyword
// or a tuple boundary is only ever found in code.
//
// Files by concern:
//
//   - lexer.go: character classes, the skip rules (skipQuoted, skipBlockComment, skipHeredoc,
//     skipSpaceAndComments) and keywordIndex.
//   - placeholders.go: Placeholders finds ?, $N, @name and {name:Type} outside literals and
//     comments; ValuePlaceholder classifies one value of a VALUES tuple.
//   - values.go: the VALUES tail of an INSERT: InsertValuesData, ValuesTuples, PlaceholderRows,
//     NamedRows, DollarRows, ValuesAsSelect.
//   - statement.go: statement kinds: IsInsert, InsertWantsData, hasFormatClause, InsertBody,
//     nativeInsertBody, SessionTimezoneOfSet.
//   - quote.go: writing and reading literals and identifiers: QuoteLiteral, QuoteIdentifier,
//     WriteQuoted (the server's canonical form, used by columns for type names), EscapeText and
//     UnescapeText (TabSeparated), unquoteString.
//
// The scanners keep the rules they had when each lived next to its caller (moves, not
// rewrites). Placeholders is the most cautious (nested block comments, // comments, heredocs and
// Unicode quotes hide placeholders); keywordIndex, skipSpaceAndComments and the VALUES splitters
// step over quotes and the comments --, # and (unnested) /* */ only, as before.
//
// Returned strings are substrings of the input or new strings; nothing here keeps or mutates
// its input.
package sqltext
