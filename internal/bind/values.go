package bind

import (
	"strconv"
	"strings"

	"github.com/chnative/chnative/internal/sqltext"
)

// SplitInsertArgs maps the arguments of "VALUES (?, ?), (?, ?)", "VALUES ($2, $1), ..." or
// "VALUES (@b, @a), ..." / "VALUES ({b:String}, {a:Nullable(String)})" (named arguments; a
// placeholder's position in its tuple is its column, its name the argument's) to rows in column
// order. key returns an argument's name ("" for a positional one) and its ordinal (from 1), so
// that any argument type (bind.Arg, driver.NamedValue) maps without a copy; for ? placeholders
// the rows are sub-slices of args. ok is false when the tail has another shape (see
// ValuesMappingError); err names a placeholder without an argument, an argument without a
// placeholder, or a count of arguments that does not fit the ? placeholders.
func SplitInsertArgs[A any](tail string, args []A, key func(*A) (name string, ordinal int)) (rows [][]A, ok bool, err error) {
	if tuples, width, ok := sqltext.PlaceholderRows(tail); ok {
		if tuples*width != len(args) {
			return nil, false, bindErr("VALUES has %d ? placeholders (%d tuples of %d), %d arguments given", tuples*width, tuples, width, len(args))
		}
		rows := make([][]A, tuples)
		for i := range rows {
			rows[i] = args[i*width : (i+1)*width]
		}
		return rows, true, nil
	}
	if names, ok := sqltext.NamedRows(tail); ok {
		return namedArgs(names, args, key)
	}
	idx, ok := sqltext.DollarRows(tail, len(args))
	if !ok {
		return nil, false, nil
	}
	rows = make([][]A, len(idx))
	for i, tuple := range idx {
		rows[i] = make([]A, len(tuple))
		for j, n := range tuple {
			rows[i][j] = args[n-1]
		}
	}
	return rows, true, nil
}

// MapInsertArgs is SplitInsertArgs for a prepared insert, which has no other way to send the
// values: a tail it cannot map is an error saying why, never arguments taken in order.
func MapInsertArgs[A any](tail string, args []A, key func(*A) (name string, ordinal int)) ([][]A, error) {
	rows, ok, err := SplitInsertArgs(tail, args, key)
	if err != nil || ok {
		return rows, err
	}
	if err := ValuesMappingError(tail); err != nil {
		return nil, err
	}
	// Every value is a $N: the numbers do not fit the arguments.
	return nil, bindErr("the $N placeholders of VALUES must use each of the %d arguments, $1 to $%d", len(args), len(args))
}

// argKey is the key function of SplitInsertArgs and MapInsertArgs for Arg.
func argKey(a *Arg) (string, int) { return a.Name, a.Ordinal }

// namedArgs arranges args (named) in the order of the placeholders' names.
func namedArgs[A any](names [][]string, args []A, key func(*A) (string, int)) ([][]A, bool, error) {
	byName := make(map[string]A, len(args))
	for i := range args {
		name, ordinal := key(&args[i])
		if name == "" {
			return nil, false, bindErr("argument %d has no name, and the VALUES placeholders are named (@name): pass sql.Named values", ordinal)
		}
		byName[name] = args[i]
	}
	used := make(map[string]bool, len(args))
	rows := make([][]A, len(names))
	for i, tuple := range names {
		rows[i] = make([]A, len(tuple))
		for j, n := range tuple {
			a, ok := byName[n]
			if !ok {
				return nil, false, bindErr("placeholder @%s has no argument named %q", n, n)
			}
			rows[i][j] = a
			used[n] = true
		}
	}
	for i := range args {
		if name, _ := key(&args[i]); !used[name] {
			return nil, false, bindErr("named argument %q has no @%s placeholder", name, name)
		}
	}
	return rows, true, nil
}

// MappedValues returns the text after VALUES of a prepared INSERT whose placeholders decide which
// argument goes to which column and row, other than one row of arguments in column order
// ("($2, $1)", "(?, ?), (?, ?)", a literal among them); "" otherwise.
func MappedValues(query string) string {
	tail, ok := sqltext.InsertValuesData(query)
	if !ok || strings.TrimSpace(strings.TrimRight(tail, "; \t\r\n")) == "" {
		return ""
	}
	if tuples, _, ok := sqltext.PlaceholderRows(tail); ok && tuples <= 1 {
		return ""
	}
	return tail
}

// ValuesMappingError says why the arguments of a VALUES tail cannot be mapped to columns and
// rows: not a list of tuples, a value that is not a placeholder, or placeholders of more than one
// style (? with $N, positional with named). nil when they can: every value a ?, every value a
// $N, or every value named (@name or {name:Type}).
func ValuesMappingError(tail string) error {
	ts, ok := sqltext.ValuesTuples(tail)
	if !ok {
		return bindErr("VALUES %s is not a list of tuples of one width without comments", shortText(tail))
	}
	var style byte
	for r, t := range ts {
		for c, v := range t {
			kind, _, _ := sqltext.ValuePlaceholder(v)
			if kind == 0 {
				return bindErr("VALUES tuple %d, value %d (%s) is not a placeholder: a prepared insert takes every column from the arguments (give this column a placeholder, or leave it out of the column list for its default)", r+1, c+1, shortText(v))
			}
			if kind == '{' {
				kind = '@'
			}
			if style == 0 {
				style = kind
			} else if kind != style {
				return bindErr("VALUES mixes placeholder styles (%s with %s): use one of ?, $N or named (@name, {name:Type})", styleName(style), styleName(kind))
			}
		}
	}
	return nil
}

func styleName(kind byte) string {
	switch kind {
	case '?':
		return "?"
	case '$':
		return "$N"
	}
	return "named"
}

// shortText quotes s for an error, cut to 60 bytes.
func shortText(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 60 {
		s = s[:60] + "..."
	}
	return strconv.Quote(s)
}
