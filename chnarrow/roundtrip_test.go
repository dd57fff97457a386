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

// refused reports whether Query refuses typ (a Dynamic or QBit anywhere in it): the types with
// no Arrow mapping here.
func refused(typ string) bool {
	return strings.Contains(typ, "Dynamic") || strings.Contains(typ, "QBit(")
}

// serverArrowFails are the cases whose values the 26.7 server's FORMAT ArrowStream cannot write
// (the stream ends in an exception): chnarrow's values are checked by the round trip alone.
var serverArrowFails = map[string]string{
	"Time64(3)": "the server writes Time64(3) as time32[ms], which -999:59:59.999 overflows (DECIMAL_OVERFLOW); chnarrow gives duration[ms]",
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
// without an Arrow mapping (Dynamic, QBit) fail Query with an *UnsupportedTypeError.
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
				t.Logf("not compared with the server's ArrowStream: %s (%v)", reason, err)
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
	t.Logf("%d types mapped, %d equal to the server's ArrowStream, %d round-tripped through a table; %d refused (Dynamic, QBit)",
		mapped, compared, roundTrips, refusals)
}
