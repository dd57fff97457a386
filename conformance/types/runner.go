package types

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/nativeproto"
)

// Settings end every chDB query: the canonical text (see Canonical) and the experimental types.
const Settings = " SETTINGS output_format_decimal_trailing_zeros = 1, session_timezone = 'UTC'," +
	" allow_experimental_variant_type = 1, allow_experimental_dynamic_type = 1," +
	" allow_experimental_json_type = 1, allow_experimental_qbit_type = 1, enable_time_time64_type = 1," +
	" allow_suspicious_low_cardinality_types = 1, allow_suspicious_variant_types = 1," +
	" allow_suspicious_fixed_string_types = 1"

// Oracle runs SQL on a real ClickHouse engine (chdb.Engine).
type Oracle interface {
	Query(sql, format string) ([]byte, error)
}

// State is the outcome of one check of one case.
type State int

const (
	Pass State = iota
	Fail
	NA          // not applicable, Detail says why
	Unsupported // columns.New refuses the type
	NotRun      // an earlier check failed, or the check was skipped
)

// Check is the outcome and, unless Pass, the reason.
type Check struct {
	State  State
	Detail string
}

func pass() Check                        { return Check{State: Pass} }
func na(why string) Check                { return Check{State: NA, Detail: why} }
func notRun(why string) Check            { return Check{State: NotRun, Detail: why} }
func fail(f string, a ...any) Check      { return Check{State: Fail, Detail: fmt.Sprintf(f, a...)} }
func (c Check) ok() bool                 { return c.State == Pass || c.State == NA }
func (c Check) failed() bool             { return !c.ok() && c.State != NotRun }
func failErr(what string, e error) Check { return fail("%s: %v", what, e) }

// Result is what the suite found for one case.
type Result struct {
	Case                          Case
	Decode, Encode, Bytes, Server Check
	// Modern holds one result per run of the 26.7 round trip (Report.Modern names the runs).
	Modern []ModernResult

	chType   string // the type name in chDB's Native header
	fullType string // the header type, except toTypeName(v) for a top-level DateTime('tz') (see Run)
	want     []string
	values   []any // decoded Go values, one per row
	ours     []byte
}

// OK reports whether every check passed (or does not apply).
func (r *Result) OK() bool {
	for _, m := range r.Modern {
		if !m.Check.ok() {
			return false
		}
	}
	return r.Decode.ok() && r.Encode.ok() && r.Bytes.ok() && r.Server.ok()
}

// SelectSQL is the query whose rows are the case's values in order, as column v.
func SelectSQL(k Case) string {
	parts := make([]string, len(k.Values))
	for i, v := range k.Values {
		parts[i] = fmt.Sprintf("SELECT %d AS i, CAST(%s AS %s) AS v", i, v, k.Type)
	}
	return "SELECT v FROM (" + strings.Join(parts, " UNION ALL ") + ") ORDER BY i"
}

// Run runs the decode, encode and byte checks of k on o, using dir for temporary files. The
// server check is left NotRun (see RunServer).
//
// chDB's FORMAT Native (revision 0) writes a top-level DateTime('tz') column as plain "DateTime"
// (the compatibility rule for clients older than revision 54337), while its text output uses the
// zone. So such values are rendered with toTypeName(v), and chDB reads our file back with that
// type as explicit structure.
func Run(o Oracle, k Case, dir string) *Result {
	r := &Result{Case: k, Server: notRun("not run")}
	r.Encode, r.Bytes = notRun("decode failed"), notRun("decode failed")
	q := SelectSQL(k)
	native, err := o.Query(q+Settings, "Native")
	if err != nil {
		r.Decode = failErr("chDB", err)
		return r
	}
	tsv, err := o.Query(q+Settings, "TabSeparated")
	if err != nil {
		r.Decode = failErr("chDB", err)
		return r
	}
	tn, err := o.Query("SELECT toTypeName(v) FROM ("+q+") LIMIT 1"+Settings, "TabSeparatedRaw")
	if err != nil {
		r.Decode = failErr("chDB", err)
		return r
	}
	zoned := strings.TrimSuffix(string(tn), "\n")
	r.want = lines(tsv)
	if len(r.want) != len(k.Values) {
		r.Decode = fail("chDB printed %d rows for %d values", len(r.want), len(k.Values))
		return r
	}

	// Decode, and write each block back as it comes (the reader reuses blocks).
	var ours bytes.Buffer
	nr := nativeproto.NewNativeReader(bytes.NewReader(native))
	nw := nativeproto.NewNativeWriter(&ours)
	var mismatch []string
	row := 0
	for {
		b, err := nr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			var u *columns.UnsupportedTypeError
			if errors.As(err, &u) {
				r.Decode = Check{State: Unsupported, Detail: "unsupported: " + err.Error()}
			} else {
				r.Decode = failErr("NativeReader", err)
			}
			return r
		}
		if b.NumColumns() != 1 {
			r.Decode = fail("block has %d columns", b.NumColumns())
			return r
		}
		r.chType, r.fullType = b.Type(0), b.Type(0)
		if r.chType == "DateTime" && strings.HasPrefix(zoned, "DateTime(") {
			r.fullType = zoned
		}
		col := b.Column(0)
		for i := range b.Rows() {
			v := col.Value(i)
			r.values = append(r.values, v)
			if row >= len(r.want) {
				row++
				continue
			}
			got, err := Canonical(r.fullType, v)
			if err != nil {
				got = "canonical: " + err.Error()
			}
			if got != r.want[row] {
				mismatch = append(mismatch, fmt.Sprintf("row %d (%s): got %s, chDB %s", row, k.Values[row], clip(got), clip(r.want[row])))
			}
			row++
		}
		if err := nw.Write(b); err != nil {
			r.Encode = failErr("NativeWriter", err)
		}
	}
	switch {
	case row != len(k.Values):
		r.Decode = fail("decoded %d rows, want %d", row, len(k.Values))
	case len(mismatch) > 0:
		r.Decode = fail("%d of %d values differ: %s", len(mismatch), row, strings.Join(mismatch, "; "))
	default:
		r.Decode = pass()
	}
	r.ours = ours.Bytes()
	if r.Encode.State == Fail {
		return r
	}
	r.Encode = encodeCheck(o, r, tsv, dir)
	if k.ByteSettings != "" && k.NonDeterministic == "" {
		if native, err = o.Query(q+Settings+", "+k.ByteSettings, "Native"); err != nil {
			r.Bytes = failErr("chDB", err)
			return r
		}
	}
	r.Bytes = bytesCheck(k, r.ours, native)
	return r
}

// encodeCheck has chDB read our bytes back and print them.
func encodeCheck(o Oracle, r *Result, tsv []byte, dir string) Check {
	path := filepath.Join(dir, "ours.native")
	if err := os.WriteFile(path, r.ours, 0o644); err != nil {
		return failErr("write", err)
	}
	defer os.Remove(path)
	src := "file('" + path + "', Native)"
	if r.fullType != r.chType {
		src = "file('" + path + "', Native, 'v " + strings.ReplaceAll(r.fullType, "'", `\'`) + "')"
	}
	// One thread, so that the blocks of the file come out in file order.
	got, err := o.Query("SELECT * FROM "+src+Settings+", max_threads = 1, max_parsing_threads = 1", "TabSeparated")
	if err != nil {
		return fail("chDB reading our Native: %s", strings.ReplaceAll(err.Error(), dir, "$TMP"))
	}
	return compareText(lines(got), r.want, r.Case.Values)
}

func compareText(got, want []string, values []string) Check {
	if len(got) != len(want) {
		return fail("chDB read %d rows from our Native, want %d", len(got), len(want))
	}
	var diff []string
	for i := range got {
		if got[i] != want[i] {
			diff = append(diff, fmt.Sprintf("row %d (%s): %s, want %s", i, values[i], clip(got[i]), clip(want[i])))
		}
	}
	if len(diff) > 0 {
		return fail("%d of %d values differ: %s", len(diff), len(got), strings.Join(diff, "; "))
	}
	return pass()
}

func bytesCheck(k Case, ours, theirs []byte) Check {
	if k.NonDeterministic != "" {
		return na(k.NonDeterministic)
	}
	if bytes.Equal(ours, theirs) {
		return pass()
	}
	i := 0
	for i < len(ours) && i < len(theirs) && ours[i] == theirs[i] {
		i++
	}
	return fail("%d bytes, chDB %d; first difference at offset %d: ours % x, chDB % x",
		len(ours), len(theirs), i, window(ours, i), window(theirs, i))
}

func window(b []byte, i int) []byte {
	lo, hi := max(i-4, 0), min(i+12, len(b))
	if lo >= hi {
		return nil
	}
	return b[lo:hi]
}

// lines splits TabSeparated output into rows (a row never holds a raw newline).
func lines(b []byte) []string {
	s := strings.TrimSuffix(string(b), "\n")
	if s == "" && len(b) == 0 {
		return nil
	}
	return strings.Split(s, "\n")
}

// clip shortens long values in messages.
func clip(s string) string {
	if len(s) > 120 {
		return fmt.Sprintf("%s…(%d bytes)", s[:100], len(s))
	}
	return s
}
