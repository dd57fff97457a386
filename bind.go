package chnative

import (
	"database/sql/driver"

	"github.com/chnative/chnative/internal/bind"
)

// BindError reports arguments that do not match a query's placeholders or cannot be written as
// ClickHouse literals. Binding lives in internal/bind (bind.Error); errors.As with a
// *chnative.BindError target matches its errors.
type BindError = bind.Error

// ParameterText is a query parameter's value given as the text the server parses for it (its
// Escaped, TabSeparated form: \n is a newline, \\ a backslash, \N NULL; ['a', 'b'] an Array), sent
// as it is. clickhouse-go's WithParameters(clickhouse.Parameters{...}) takes its values so; other
// values given to WithParameters or sql.Named are rendered for the placeholder's type (a string is
// the string itself, escaped by the driver). Port clickhouse.Parameters{"s": `line 1\nline 2`}
// as map[string]any{"s": chnative.ParameterText(`line 1\nline 2`)}, or write the value itself,
// "line 1\nline 2". On servers without query parameters (sql.Named there becomes a CAST literal)
// the text is unescaped and CAST to the type.
type ParameterText = bind.ParameterText

// namedValueKey is how bind's VALUES mapping reads a database/sql argument.
func namedValueKey(a *driver.NamedValue) (string, int) { return a.Name, a.Ordinal }
