package bind

import (
	"database/sql/driver"
	"strings"

	"github.com/chnative/chnative/internal/sqltext"
	"github.com/chnative/chnative/nativeproto"
)

// Adapters that give the tests moved from the root package (bind_test.go and its neighbours)
// the names and shapes they were written against, so that their assertions stay as they were.

type BindError = Error

func namedKey(a *driver.NamedValue) (string, int) { return a.Name, a.Ordinal }

// bindQuery is Query for database/sql arguments, as the root calls it.
func bindQuery(q string, args []driver.NamedValue, rev nativeproto.Revision) (string, map[string]string, error) {
	bargs := make([]Arg, len(args))
	for i, a := range args {
		bargs[i] = Arg{Name: a.Name, Ordinal: a.Ordinal, Value: a.Value}
	}
	return Query(q, bargs, rev)
}

func splitInsertArgs(tail string, args []driver.NamedValue) ([][]driver.NamedValue, bool, error) {
	return SplitInsertArgs(tail, args, namedKey)
}

func mapInsertArgs(tail string, args []driver.NamedValue) ([][]driver.NamedValue, error) {
	return MapInsertArgs(tail, args, namedKey)
}

var (
	parameterValue     = ParameterValue
	valuesMappingError = ValuesMappingError
	scanPlaceholders   = sqltext.Placeholders
	escapeText         = sqltext.EscapeText
	unescapeText       = sqltext.UnescapeText
	hasPlaceholders    = sqltext.HasPlaceholders
	namedRows          = sqltext.NamedRows
	valuesTuples       = sqltext.ValuesTuples
)

// nastyStrings seed FuzzParameterText: every character the two escapings (Field dump,
// TabSeparated text, quoted elements) treat specially. The root's server tests check the same
// strings against real servers (bind_params_server_test.go).
var nastyStrings = []string{
	"", "a\nb", "a\tb", "tab\there\nnewline\\back'quote\"dq", `\`, `\\`, `\n`, `\t`, `\'`, "'", "''",
	`\N`, "NULL", "null", "\x00", "a\x00b", "\r\n", "\b\f\v\x01\x1b\x7f", "\xff\xfe", "ünïcødé 日本語 🎉",
	"{x:String}", "$$", "?", "@x", "[1,2]", "{'a':1}", "(1,'x')", "'; SELECT 1; --", "a,b", "a]b", "a}b",
	strings.Repeat("x'\\\t\n", 2000),
}

// Value types of the root's values_in_server_test.go, which the unit tests here share.
// strPtr is a fmt.Stringer with a pointer receiver.
type strPtr struct{ s string }

func (p *strPtr) String() string { return p.s }

// textOnly is only an encoding.TextMarshaler.
type textOnly struct{ s string }

func (t textOnly) MarshalText() ([]byte, error) { return []byte(t.s), nil }

// shade is an iota enum with names, as stringer-generated and protobuf enum types are: its
// numbers (0, 1, 2) are not the server enum's (1, 2, 3).
type shade int8

func (s shade) String() string { return [...]string{"red", "green", "blue"}[s] }

// valuerStringer is a driver.Valuer and a fmt.Stringer: Value wins, as in clickhouse-go.
type valuerStringer struct{}

func (valuerStringer) Value() (driver.Value, error) { return "by Value", nil }
func (valuerStringer) String() string               { return "by String" }
