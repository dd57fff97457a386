package columns

import (
	"database/sql"
	"database/sql/driver"
	"errors"
	"testing"
)

// anyShaped has the Valuer shape with its result spelled interface{}.
type anyShaped struct{ s string }

func (a anyShaped) Value() (interface{}, error) { return a.s, nil }

// ptrValuer has a driver.Valuer method on its pointer only.
type ptrValuer struct{ n int64 }

func (p *ptrValuer) Value() (driver.Value, error) { return p.n, nil }

// notValuer has a Value method of another shape: it is not unwrapped.
type notValuer struct{}

func (notValuer) Value() string { return "no" }

func dec(t testing.TB, s string, scale int) Decimal {
	t.Helper()
	d, err := ParseDecimal(s, scale)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestCallValuer(t *testing.T) {
	cases := []struct {
		name         string
		v            any
		out          any
		ok, isNil    bool
		err          error
		wantValuerOK bool
	}{
		{"sql.NullString", sql.NullString{String: "x", Valid: true}, "x", true, false, nil, true},
		{"sql.NullInt64 invalid", sql.NullInt64{}, nil, true, false, nil, true},
		{"sql.Null[int]", sql.Null[int]{V: 3, Valid: true}, int64(3), true, false, nil, true},
		{"Decimal", dec(t, "1.50", 2), "1.50", true, false, nil, true},
		{"nil *Decimal", (*Decimal)(nil), nil, true, true, nil, true},
		{"interface{} shape", anyShaped{"y"}, "y", true, false, nil, true},
		{"pointer receiver", &ptrValuer{7}, int64(7), true, false, nil, true},
		{"pointer receiver, value", ptrValuer{7}, nil, false, false, nil, false},
		{"nil pointer receiver", (*ptrValuer)(nil), nil, true, true, nil, true},
		{"failing", failingValuer{}, nil, true, false, errors.New("valuer failed"), true},
		{"other shape", notValuer{}, nil, false, false, nil, false},
		{"int", 5, nil, false, false, nil, false},
		{"string", "s", nil, false, false, nil, false},
	}
	for _, tc := range cases {
		for range 2 { // the second time from the cache
			out, ok, isNil, err := callValuer(tc.v)
			if out != tc.out || ok != tc.ok || isNil != tc.isNil || (err == nil) != (tc.err == nil) ||
				(err != nil && err.Error() != tc.err.Error()) {
				t.Errorf("%s: callValuer = %v, %v, %v, %v; want %v, %v, %v, %v", tc.name, out, ok, isNil, err,
					tc.out, tc.ok, tc.isNil, tc.err)
			}
			if got := isValuer(tc.v); got != tc.wantValuerOK {
				t.Errorf("%s: isValuer = %v", tc.name, got)
			}
		}
	}
}

// A database/sql Valuer is unwrapped by AppendValue in a plain, a Nullable and a composite column.
func TestAppendValuerShapes(t *testing.T) {
	c := mustNew(t, "Nullable(Int64)")
	for _, v := range []any{&ptrValuer{9}, (*ptrValuer)(nil), sql.NullInt64{Int64: 4, Valid: true}, sql.NullInt64{}} {
		if err := c.AppendValue(v); err != nil {
			t.Fatalf("%T: %v", v, err)
		}
	}
	checkRoundTrip(t, c, []any{int64(9), nil, int64(4), nil})
	s := mustNew(t, "Array(String)")
	if err := s.AppendValue([]any{anyShaped{"a"}, sql.NullString{String: "b", Valid: true}}); err != nil {
		t.Fatal(err)
	}
	checkRoundTrip(t, s, []any{[]string{"a", "b"}})
	d := mustNew(t, "Decimal(9, 2)")
	if err := d.AppendValue(dec(t, "1.5", 1)); err != nil {
		t.Fatal(err)
	}
	checkRoundTrip(t, d, []any{dec(t, "1.50", 2)})
	// A nullable Decimal is a *Decimal. (sql.Null[Decimal] is not: its Value hands Decimal to
	// database/sql's DefaultParameterConverter, which takes only driver.Valuers and basic kinds.)
	n := mustNew(t, "Nullable(Decimal(9, 2))")
	d225 := dec(t, "2.25", 2)
	for _, v := range []any{&d225, (*Decimal)(nil), d225} {
		if err := n.AppendValue(v); err != nil {
			t.Fatalf("%T: %v", v, err)
		}
	}
	checkRoundTrip(t, n, []any{d225, nil, d225})
}

func BenchmarkCallValuer(b *testing.B) {
	for _, bc := range []struct {
		name string
		v    any
	}{{"sql.NullInt64", sql.NullInt64{Int64: 1, Valid: true}}, {"Decimal", dec(b, "1.5", 1)}, {"int64", int64(1)}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				_, _, _, _ = callValuer(bc.v)
			}
		})
	}
}
