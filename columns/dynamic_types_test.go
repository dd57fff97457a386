package columns

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"
)

// dynamicPrefix encodes a FLATTENED Dynamic prefix listing n distinct types.
func dynamicPrefix(n int) []byte {
	var w Writer
	w.Uint64(dynamicFlattened)
	w.UVarInt(uint64(n))
	for i := range n {
		w.String("FixedString(" + strconv.Itoa(i+1) + ")")
	}
	return w.Buf
}

// TestDynamicManyTypes: finding 6, a Dynamic prefix of 65,536 types took 23 s (a linear search
// per type); now a map. The time is compared with that of 4,096 types: quadratic decoding takes
// 256 times as long for 16 times the types, linear 16 times; the bound allows 64.
func TestDynamicManyTypes(t *testing.T) {
	decode := func(n int) time.Duration {
		c := mustNew(t, "Dynamic")
		start := time.Now()
		if err := c.ReadPrefix(NewBytesReader(dynamicPrefix(n))); err != nil {
			t.Fatalf("%d types: %v", n, err)
		}
		if got := len(c.(*Dynamic).Types()); got != n {
			t.Fatalf("%d types listed, %d decoded", n, got)
		}
		return time.Since(start)
	}
	decode(4096) // warm up
	small, large := decode(4096), decode(maxDynamicListed)
	t.Logf("4,096 types: %v; 65,536 types: %v", small, large)
	if large > 64*small && large > time.Second {
		t.Fatalf("65,536 types took %v, 4,096 took %v: not linear", large, small)
	}
	// Past the cap: a LimitError before any type is read.
	c := mustNew(t, "Dynamic")
	var w Writer
	w.Uint64(dynamicFlattened)
	w.UVarInt(maxDynamicListed + 1)
	var le *LimitError
	if err := c.ReadPrefix(NewBytesReader(w.Buf)); !errors.As(err, &le) {
		t.Fatalf("want a LimitError, got %v", err)
	}
	// A type listed twice is refused (the map finds it as the linear search did).
	w = Writer{}
	w.Uint64(dynamicFlattened)
	w.UVarInt(10)
	for i := range 9 {
		w.String("FixedString(" + strconv.Itoa(i+1) + ")")
	}
	w.String("FixedString(3)")
	if err := mustNew(t, "Dynamic").ReadPrefix(NewBytesReader(w.Buf)); err == nil || !strings.Contains(err.Error(), "listed twice") {
		t.Fatalf("want a type listed twice, got %v", err)
	}
}

// TestVariantMembersCap: a Variant of more than 255 members is refused before a column is built
// for any of them.
func TestVariantMembersCap(t *testing.T) {
	var b strings.Builder
	b.WriteString("Variant(")
	for i := range 300 {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("FixedString(" + strconv.Itoa(i+1) + ")")
	}
	b.WriteString(")")
	_, err := New(b.String())
	var ue *UnsupportedTypeError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "300 variants") {
		t.Fatalf("want an UnsupportedTypeError naming 300 variants, got %v", err)
	}
}
