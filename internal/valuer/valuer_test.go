package valuer

import (
	"database/sql"
	"database/sql/driver"
	"errors"
	"reflect"
	"testing"
)

type anyVal struct{}

func (anyVal) Value() (any, error) { return "any", nil }

type failing struct{}

func (failing) Value() (driver.Value, error) { return nil, errors.New("no value") }

type ptrVal struct{ s string }

func (p *ptrVal) Value() (driver.Value, error) { return p.s, nil }

func TestCall(t *testing.T) {
	var nilPtr *ptrVal
	for _, tc := range []struct {
		name       string
		v          any
		out        any
		ok, isNil  bool
		wantsError bool
	}{
		{"sql.NullString", sql.NullString{String: "s", Valid: true}, "s", true, false, false},
		{"invalid sql.NullInt64", sql.NullInt64{}, nil, true, false, false},
		{"Value() (any, error)", anyVal{}, "any", true, false, false},
		{"pointer receiver", &ptrVal{"p"}, "p", true, false, false},
		{"nil pointer", nilPtr, nil, true, true, false},
		{"failing", failing{}, nil, true, false, true},
		{"not a valuer", 5, nil, false, false, false},
	} {
		out, ok, isNil, err := Call(tc.v)
		if out != tc.out || ok != tc.ok || isNil != tc.isNil || (err != nil) != tc.wantsError {
			t.Errorf("%s: Call = %v, %v, %v, %v", tc.name, out, ok, isNil, err)
		}
		if Is(tc.v) != tc.ok || IsType(reflect.TypeOf(tc.v)) != tc.ok {
			t.Errorf("%s: Is %v, IsType %v, want %v", tc.name, Is(tc.v), IsType(reflect.TypeOf(tc.v)), tc.ok)
		}
	}
	if IsType(reflect.TypeFor[ptrVal]()) {
		t.Errorf("ptrVal (not its pointer) has no Value method")
	}
}
