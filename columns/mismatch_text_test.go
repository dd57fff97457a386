package columns

import (
	"errors"
	"net/netip"
	"strings"
	"testing"
)

// TestMismatchNamesValue: a refused value is named once in the error: text quoted (and cut at
// 64 bytes), numbers and addresses as written, composites not at all.
func TestMismatchNamesValue(t *testing.T) {
	long := strings.Repeat("x", 100)
	for _, tc := range []struct {
		typ  string
		v    any
		want string
	}{
		{"UInt64", "abc", `columns: cannot append string "abc" to UInt64: not an integer in range`},
		{"UInt8", 300, `columns: cannot append int 300 to UInt8`},
		{"IPv4", netip.MustParseAddr("2001:db8::1"), `columns: cannot append netip.Addr 2001:db8::1 to IPv4: not an IPv4 address`},
		{"Decimal(9, 2)", "1.2.3", `columns: cannot append string "1.2.3" to Decimal(9, 2): not a number`},
		{"Bool", "maybe", `columns: cannot append string "maybe" to Bool: not a boolean`},
		{"UUID", "nope", `columns: cannot append string "nope" to UUID: not a UUID`},
		{"Enum8('a' = 1)", "b", `columns: cannot append string "b" to Enum8('a' = 1): unknown name`},
		{"UInt64", long, `columns: cannot append string "` + long[:64] + `"... to UInt64`},
		{"UInt64", []int{1}, `columns: cannot append []int to UInt64`},
	} {
		c, err := New(tc.typ)
		if err != nil {
			t.Fatal(err)
		}
		err = c.AppendValue(tc.v)
		var tm *TypeMismatchError
		if !errors.As(err, &tm) || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s <- %T: %v\n\twant %s", tc.typ, tc.v, err, tc.want)
		}
	}
}
