package chnarrow

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/chnative/chnative/conformance/types"
)

// refused reports whether Query refuses typ (a Dynamic anywhere in it): the type with no Arrow
// mapping here.
func refused(typ string) bool { return strings.Contains(typ, "Dynamic") }

// serverArrowFails are the cases whose values the 26.7 server's FORMAT ArrowStream cannot write
// (the stream fails): chnarrow's values are checked by the round trip, and where a CAST gives
// the server a type it writes (serverArrowVia), with the server's Arrow of that.
var serverArrowFails = map[string]string{
	"Time64(3)":          "the server writes Time64(3) as time32[ms], which -999:59:59.999 overflows (DECIMAL_OVERFLOW); chnarrow gives duration[ms]",
	"QBit(Float32, 3)":   "the server cannot write QBit in Arrow (NOT_IMPLEMENTED: getDataAt of its Tuple of FixedStrings); chnarrow gives fixed_size_list<float32, 3>",
	"QBit(Float64, 9)":   "the server cannot write QBit in Arrow; chnarrow gives fixed_size_list<float64, 9>",
	"QBit(BFloat16, 16)": "the server cannot write QBit in Arrow; chnarrow gives fixed_size_list<float32, 16> (BFloat16 widened exactly)",
}

// serverArrowVia: the type a failing case's values are CAST to for the server's ArrowStream.
var serverArrowVia = map[string]string{
	"QBit(Float32, 3)":   "Array(Float32)",
	"QBit(Float64, 9)":   "Array(Float64)",
	"QBit(BFloat16, 16)": "Array(BFloat16)",
}

// caseSQL selects a case's values as columns i (the row's number) and v, in order.
func caseSQL(k types.Case) string {
	parts := make([]string, len(k.Values))
	for i, v := range k.Values {
		parts[i] = fmt.Sprintf("SELECT toUInt32(%d) AS i, CAST(%s AS %s) AS v", i, v, k.Type)
	}
	return "SELECT i, v FROM (" + strings.Join(parts, " UNION ALL ") + ") ORDER BY i"
}

// TestRoundTripTypes takes every type of the conformance suite (conformance/TYPES.md) through
// the 26.7 server: chnarrow.Query's Arrow values equal, row by row, those of the server's own
// FORMAT ArrowStream read with arrow-go's IPC reader (canon: where the two Arrow forms differ
// on purpose, the same number or decoded value); then chnarrow.Insert writes the records into a
// table of the type, and the server's text of that table equals its text of the values. Types
// without an Arrow mapping (Dynamic) fail Query with an *UnsupportedTypeError.
func TestRoundTripTypes(t *testing.T) {
	db, base := modern(t)
	ctx := ctxT(t)
	mapped, compared, roundTrips, refusals := 0, 0, 0, 0
	for n, k := range types.AllCases() {
		t.Run(k.Type, func(t *testing.T) {
			sel := caseSQL(k)
			r, err := Query(ctx, db, sel)
			if refused(k.Type) {
				var ute *UnsupportedTypeError
				if !errors.As(err, &ute) {
					t.Fatalf("Query of %s: err = %v, want an *UnsupportedTypeError", k.Type, err)
				}
				refusals++
				return
			}
			if err != nil {
				t.Fatalf("Query: %v", err)
			}
			recs := collect(t, r)
			defer releaseRecs(recs)
			var ours []string
			for _, rec := range recs {
				ours = append(ours, canonColumn(t, rec, "v")...)
			}
			if len(ours) != len(k.Values) {
				t.Fatalf("Query gave %d rows, want %d", len(ours), len(k.Values))
			}
			theirs, err := serverArrow(t, base, sel, "v")
			if reason, ok := serverArrowFails[k.Type]; ok {
				if err == nil {
					t.Errorf("the server's ArrowStream of %s no longer fails (%s): compare it", k.Type, reason)
				}
				if via := serverArrowVia[k.Type]; via != "" {
					theirs, err := serverArrow(t, base, "SELECT i, CAST(v AS "+via+") AS v FROM ("+sel+") ORDER BY i", "v")
					if err != nil {
						t.Fatalf("the server's ArrowStream of the values as %s: %v", via, err)
					}
					if !slices.Equal(ours, theirs) {
						t.Errorf("chnarrow.Query's values differ from the server's ArrowStream of them as %s:\n ours:   %q\n theirs: %q", via, ours, theirs)
					} else {
						compared++
					}
				}
				t.Logf("not compared with the server's own ArrowStream: %s (%v)", reason, err)
			} else if err != nil {
				t.Fatalf("the server's ArrowStream: %v", err)
			} else if !slices.Equal(ours, theirs) {
				t.Errorf("chnarrow.Query's values differ from the server's ArrowStream:\n ours:   %q\n theirs: %q\n schema: %s", ours, theirs, recs[0].Schema())
			} else {
				compared++
			}
			mapped++
			if k.NoModern != "" {
				return
			}
			table := fmt.Sprintf("chnarrow_rt_%d", n)
			httpExec(t, base, "DROP TABLE IF EXISTS "+table)
			httpExec(t, base, fmt.Sprintf("CREATE TABLE %s (i UInt32, v %s) ENGINE = MergeTree ORDER BY i", table, k.Type))
			defer httpExec(t, base, "DROP TABLE IF EXISTS "+table)
			rr, err := array.NewRecordReader(recs[0].Schema(), recs)
			if err != nil {
				t.Fatal(err)
			}
			defer rr.Release()
			got, err := Insert(ctx, db, "INSERT INTO "+table+" (i, v)", rr)
			if err != nil {
				t.Fatalf("Insert: %v", err)
			}
			if got != int64(len(k.Values)) {
				t.Fatalf("Insert = %d rows, want %d", got, len(k.Values))
			}
			want := httpText(t, base, "SELECT v FROM ("+sel+") ORDER BY i")
			back := httpText(t, base, "SELECT v FROM "+table+" ORDER BY i")
			if back != want {
				t.Errorf("ClickHouse -> Arrow -> ClickHouse changed the values:\n want %q\n got  %q", want, back)
			}
			roundTrips++
		})
	}
	t.Logf("%d types mapped, %d equal to the server's ArrowStream, %d round-tripped through a table; %d refused (Dynamic)",
		mapped, compared, roundTrips, refusals)
}
