package wire

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// TestBudget: a Reader's budget counts the bytes consumed and the charges, refuses a charge or
// a read from the source that would pass it with a *LimitError naming BudgetName, and is off
// after ClearBudget and Reset.
func TestBudget(t *testing.T) {
	src := bytes.Repeat([]byte{7}, 1<<20)
	r := NewReaderSize(bytes.NewReader(src), 4096)
	if err := r.Skip(100); err != nil {
		t.Fatal(err)
	}
	r.SetBudget(64 << 10)
	if err := r.Charge("test rows", 60<<10); err != nil {
		t.Fatal(err)
	}
	if got := r.budgetUsed(); got != 60<<10 {
		t.Fatalf("used %d, want %d", got, 60<<10)
	}
	var le *LimitError
	if err := r.Charge("test rows", 8<<10); !errors.As(err, &le) || !strings.Contains(le.What, BudgetName) || !strings.Contains(le.What, "test rows") {
		t.Fatalf("charge past the budget: %v", err)
	}
	// Reading: 4 KiB are left, the next fills pass it.
	err := r.Skip(64 << 10)
	if !errors.As(err, &le) || !strings.Contains(le.What, BudgetName) {
		t.Fatalf("reading past the budget: %v", err)
	}
	big := make([]byte, 16<<10)
	if err := r.ReadFull(big); !errors.As(err, &le) {
		t.Fatalf("ReadFull past the budget: %v", err)
	}
	r.ClearBudget()
	if err := r.Charge("test rows", 1<<40); err != nil || r.budgetUsed() != 0 {
		t.Fatalf("after ClearBudget: %v, used %d", err, r.budgetUsed())
	}
	if err := r.ReadFull(big); err != nil {
		t.Fatal(err)
	}
	r.SetBudget(10)
	r.Reset(bytes.NewReader(src))
	if err := r.Charge("test rows", 1<<40); err != nil {
		t.Fatalf("after Reset: %v", err)
	}
	var nilReader *Reader
	if err := nilReader.Charge("test rows", 1<<40); err != nil {
		t.Fatalf("nil Reader: %v", err)
	}
}

// A string that announces more bytes than the budget has left is refused at its length, before
// its buffer grows towards them (a ZSTD or LZ4 frame can deliver a 1 GiB value from a few KB).
func TestBudgetStringLength(t *testing.T) {
	var w Writer
	w.UVarInt(1 << 30)
	src := append(w.Buf, bytes.Repeat([]byte{'x'}, 1<<20)...)
	r := NewReaderSize(bytes.NewReader(src), 4096)
	r.SetBudget(1 << 20)
	var le *LimitError
	dst, err := r.StringBytes(nil, "String", MaxStringSize)
	if !errors.As(err, &le) || !strings.Contains(le.What, BudgetName) {
		t.Fatalf("a 1 GiB string under a 1 MiB budget: %v", err)
	}
	if cap(dst) != 0 {
		t.Fatalf("%d bytes grown before the refusal", cap(dst))
	}
}
