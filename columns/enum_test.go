package columns

import (
	"errors"
	"strings"
	"testing"
)

// TestEnumValueNotInType: an Enum8 or Enum16 value the type does not name is a DecodeError
// naming the value and the type (finding 10: it came back as its number as text); the values
// the type names decode, and so does 0, which the server stores under a NULL of
// Nullable(Enum8(...)) whether the type names it or not.
func TestEnumValueNotInType(t *testing.T) {
	for _, tc := range []struct {
		typ  string
		good []byte
		bad  []byte
		val  string
	}{
		{"Enum8('a' = 1, 'b' = -128, 'c' = 127)", []byte{1, 0x80, 0x7f}, []byte{1, 5}, "5"},
		{"Enum8('a' = 1)", []byte{1, 0}, []byte{0xff}, "-1"}, // 0: the value under a NULL
		{"Enum16('a' = 1, 'b' = 1000, 'c' = -32768)", []byte{1, 0, 0xe8, 3, 0, 0x80}, []byte{0xe8, 3, 0xe9, 3}, "1001"},
	} {
		c := mustNew(t, tc.typ)
		width := 1
		if strings.HasPrefix(tc.typ, "Enum16") {
			width = 2
		}
		if err := c.Read(NewBytesReader(tc.good), len(tc.good)/width); err != nil {
			t.Fatalf("%s: %v", tc.typ, err)
		}
		err := c.Read(NewBytesReader(tc.bad), len(tc.bad)/width)
		var de *DecodeError
		if !errors.As(err, &de) || !strings.Contains(err.Error(), "value "+tc.val+" ") || !strings.Contains(err.Error(), c.Type()) {
			t.Fatalf("%s: want a DecodeError naming %s and the type, got %v", tc.typ, tc.val, err)
		}
		if c.Rows() != 0 {
			t.Fatalf("%s: %d rows kept after the error", tc.typ, c.Rows())
		}
	}
}
