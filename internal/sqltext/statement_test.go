package sqltext

import "testing"

// TestSessionTimezoneOfSet: the session_timezone a SET statement assigns, if any.
func TestSessionTimezoneOfSet(t *testing.T) {
	for _, tt := range []struct {
		stmt, tz string
		ok       bool
	}{
		{"SET session_timezone = 'Asia/Tokyo'", "Asia/Tokyo", true},
		{"set session_timezone='UTC'", "UTC", true},
		{"SET a = 'x,y', session_timezone = 'It''s\\'s' ", "It's's", true},
		{"SET session_timezone = DEFAULT", "", true},
		{"SET a = 1", "", false},
		{"SETTINGS session_timezone = 'x'", "", false},
		{"SELECT 1 SETTINGS session_timezone = 'x'", "", false},
		{"SET session_timezone = 'unterminated", "", false},
		{"SET session_timezone = concat('A', 'B')", "", false},
		{"SET ROLE r", "", false},
		{"", "", false},
	} {
		tz, ok := SessionTimezoneOfSet(tt.stmt)
		if tz != tt.tz || ok != tt.ok {
			t.Errorf("SessionTimezoneOfSet(%q) = %q, %v; want %q, %v", tt.stmt, tz, ok, tt.tz, tt.ok)
		}
	}
}

func TestStatementKinds(t *testing.T) {
	for q, want := range map[string]bool{
		"INSERT INTO t VALUES": true, "  -- c\n/* x */ insert into t": true, "# c\nINSERT": true,
		"SELECT 1": false, "/* INSERT": false, "INSER": false, "": false,
	} {
		if got := IsInsert(q); got != want {
			t.Errorf("IsInsert(%q) = %v, want %v", q, got, want)
		}
	}
	for q, want := range map[string]bool{
		"SELECT 1": true, " -- c\n(( select 1))": true, "WITH 1 AS x SELECT x": true, "show tables": true,
		"DESC t": true, "DESCRIBE TABLE t": true, "EXISTS t": true, "EXPLAIN SELECT 1": true,
		"INSERT INTO t SELECT 1": false, "SELECTX": false, "CREATE TABLE t": false, "/* SELECT */ DROP t": false,
		"": false, "(": false, "SET a = 1": false, "OPTIMIZE TABLE t": false,
	} {
		if got := IsReadOnly(q); got != want {
			t.Errorf("IsReadOnly(%q) = %v, want %v", q, got, want)
		}
	}
	for q, want := range map[string]string{
		"INSERT INTO t":                         "INSERT INTO t VALUES",
		"INSERT INTO t (a, b) VALUES (?, ?);":   "INSERT INTO t (a, b) VALUES",
		" INSERT INTO t FORMAT Native ; ":       "INSERT INTO t FORMAT Native",
		"INSERT INTO t (`values`) values (1)":   "INSERT INTO t (`values`) VALUES",
		"INSERT INTO t /* VALUES */ (a) VALUES": "INSERT INTO t /* VALUES */ (a) VALUES",
	} {
		if got := InsertBody(q); got != want {
			t.Errorf("InsertBody(%q) = %q, want %q", q, got, want)
		}
		if !nativeInsertBody(InsertBody(q)) {
			t.Errorf("nativeInsertBody(InsertBody(%q)) is false", q)
		}
	}
	for q, want := range map[string]bool{
		"INSERT INTO t SELECT 1": false, "SELECT 1 FORMAT Native": false, "INSERT INTO t FORMAT CSV": true,
	} {
		if got := nativeInsertBody(q); got != want {
			t.Errorf("nativeInsertBody(%q) = %v, want %v", q, got, want)
		}
	}
	if !IsSetSessionTimezone("SET session_timezone = 'UTC'") || IsSetSessionTimezone("SET a = 1") {
		t.Error("IsSetSessionTimezone")
	}
}

func TestKeywordIndex(t *testing.T) {
	for _, tt := range []struct {
		q, word string
		want    int
	}{
		{"INSERT INTO t VALUES", "VALUES", 14},
		{"insert into t values", "VALUES", 14},
		{"INSERT INTO t ('VALUES', `VALUES`, \"VALUES\") -- VALUES\n# VALUES\n/* VALUES */ VALUES", "VALUES", 77},
		{"INSERT INTO t (xVALUES, VALUESx, VALUES_1)", "VALUES", -1},
		{"INSERT INTO t -- VALUES", "VALUES", -1},
		{"INSERT INTO t /* VALUES", "VALUES", -1},
	} {
		if got := keywordIndex(tt.q, tt.word); got != tt.want {
			t.Errorf("keywordIndex(%q, %q) = %d, want %d", tt.q, tt.word, got, tt.want)
		}
	}
	if got := skipSpaceAndComments(" \t-- a\n# b\n/* c */ SELECT"); got != "SELECT" {
		t.Errorf("skipSpaceAndComments = %q", got)
	}
	if got := skipSpaceAndComments("/* open"); got != "" {
		t.Errorf("skipSpaceAndComments(unclosed) = %q", got)
	}
}
