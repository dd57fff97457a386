package columns

import "testing"

// TestTakeLeavesColumnEmptyAndUnshared: what Take returned is not touched by the column's next
// Read or Append (the point of Take: another owner keeps it).
func TestTakeLeavesColumnEmptyAndUnshared(t *testing.T) {
	u := NewFixed[uint64]("")
	u.AppendSlice([]uint64{1, 2, 3})
	got := u.Take()
	if u.Rows() != 0 {
		t.Fatalf("Rows after Take = %d, want 0", u.Rows())
	}
	w := &Writer{}
	src := NewFixed[uint64]("")
	src.AppendSlice([]uint64{7, 8, 9})
	src.Write(w)
	if err := u.Read(NewBytesReader(w.Buf), 3); err != nil {
		t.Fatal(err)
	}
	u.Append(10)
	if got[0] != 1 || got[1] != 2 || got[2] != 3 {
		t.Fatalf("taken values changed to %v by the next Read", got)
	}
	if v := u.Values(); len(v) != 4 || v[0] != 7 || v[3] != 10 {
		t.Fatalf("column after Take, Read and Append = %v", v)
	}

	s := NewString()
	s.Append("ab")
	s.Append("c")
	buf, ends := s.Take()
	if s.Rows() != 0 {
		t.Fatalf("String Rows after Take = %d", s.Rows())
	}
	s.Append("zz")
	if string(buf) != "abc" || len(ends) != 2 || ends[0] != 2 || ends[1] != 3 {
		t.Fatalf("taken String = %q %v", buf, ends)
	}
	if s.String(0) != "zz" || s.Rows() != 1 {
		t.Fatalf("String after Take and Append = %q", s.String(0))
	}
}
