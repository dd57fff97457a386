package sqltext

import (
	"strings"
	"testing"
)

// TestScanPlaceholders moved from the root's bind_test.go.
func TestScanPlaceholders(t *testing.T) {
	tests := []struct {
		q    string
		want []string // the placeholders' text
	}{
		{"SELECT ?", []string{"?"}},
		{"SELECT 'it''s ?', ?", []string{"?"}},
		{`SELECT 'a\'?', ?`, []string{"?"}},
		{`SELECT "col?", ?`, []string{"?"}},
		{"SELECT `col?`, ?", []string{"?"}},
		{"SELECT `a``?`, ?", []string{"?"}},
		{"SELECT ? -- ?\n, ?", []string{"?", "?"}},
		{"SELECT ? # ?\n, ?", []string{"?", "?"}},
		{"SELECT ? // ?\n, ?", []string{"?", "?"}},
		{"SELECT ? -- ?", []string{"?"}},
		{"SELECT ? /* ? */ , ?", []string{"?", "?"}},
		{"SELECT ? /* ? ", []string{"?"}},
		{"SELECT ? /* /* ? */ ? */ , ?", []string{"?", "?"}},
		{"SELECT 'unterminated ?", nil},
		{"SELECT $1, $2, $1", []string{"$1", "$2", "$1"}},
		{"SELECT a$1, $1", []string{"$1"}},
		{"SELECT $$ ? $1 $$, ?", []string{"?"}},
		{"SELECT $tag$ ? $tag$, $1", []string{"$1"}},
		{"SELECT $1, $2 FROM t WHERE a = $1, $2", []string{"$1", "$2", "$1", "$2"}},
		{"SELECT @name, @x1", []string{"@name", "@x1"}},
		{"SELECT 'user@example.com', user@example", nil},
		{"SELECT {id:UInt64}, {s: String}", []string{"{id:UInt64}", "{s: String}"}},
		{"SELECT {e:Enum8('a}' = 1)}", []string{"{e:Enum8('a}' = 1)}"}},
		{"SELECT {'a': ?}", []string{"?"}},
		{"SELECT ‘?’, “?”, ?", []string{"?"}},
		{"SELECT ‘?", nil},
		{"SELECT ??", []string{"?", "?"}},
	}
	for _, tt := range tests {
		var got []string
		for _, p := range Placeholders(tt.q) {
			got = append(got, tt.q[p.Start:p.End])
		}
		if strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("Placeholders(%q) = %q, want %q", tt.q, got, tt.want)
		}
	}
	ps := Placeholders("SELECT $12, @abc, {n : Array(String)}")
	if ps[0].Index != 12 || ps[1].Name != "abc" || ps[2].Name != "n" || ps[2].Type != "Array(String)" {
		t.Errorf("placeholders = %+v", ps)
	}
}
