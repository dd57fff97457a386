package types

// Case is one ClickHouse type and the SQL expressions tried as its values.
type Case struct {
	// Type is the ClickHouse type the values are CAST to; it names the row of TYPES.md.
	Type string
	// Values are SQL expressions; each becomes one row, CAST(expr AS Type).
	Values []string
	// Server is true when the 18.16 test server has the type and the values are round-tripped
	// through a table on it.
	Server bool
	// NoServer says why the type has no server round trip when Server is false; the default is
	// "18.16 lacks it".
	NoServer string
	// NonDeterministic, when set, says why chDB's Native bytes need not equal ours.
	NonDeterministic string
	// NoModern, when set, says why the type has no round trip through the 26.7 server (see
	// RunModern); every other case has one.
	NoModern string
	// ByteSettings, when set, are extra chDB settings for the Native output the byte check
	// compares with (the decode check reads chDB's default output): they make chDB pick the
	// serialization our writer uses where the format has several.
	ByteSettings string
}

// c makes a case that the 18.16 server lacks.
func c(typ string, values ...string) Case { return Case{Type: typ, Values: values} }

// s makes a case that the 18.16 server has.
func s(typ string, values ...string) Case { return Case{Type: typ, Values: values, Server: true} }

func (k Case) noServer(reason string) Case { k.Server, k.NoServer = false, reason; return k }

func (k Case) noModern(reason string) Case { k.NoModern = reason; return k }

func (k Case) nonDet(reason string) Case { k.NonDeterministic = reason; return k }

func (k Case) byteSettings(settings string) Case { k.ByteSettings = settings; return k }

// AllCases returns every case, family by family.
func AllCases() []Case {
	var all []Case
	for _, f := range [][]Case{
		numericCases(), stringCases(), timeCases(), decimalCases(), scalarCases(),
		compositeCases(), geoCases(), specialCases(), dynamicCases(),
	} {
		all = append(all, f...)
	}
	return all
}

// prefix returns the expressions with each of vals prefixed and suffixed.
func wrap(pre, post string, vals ...string) []string {
	out := make([]string, len(vals))
	for i, v := range vals {
		out[i] = pre + v + post
	}
	return out
}
