package nativeproto

import "testing"

// TestExceptionErrorNamesClassOnce: the server starts a message with the exception's class; the
// error names the class once, whatever it is.
func TestExceptionErrorNamesClassOnce(t *testing.T) {
	for _, tc := range []struct {
		e    Exception
		want string
	}{
		{Exception{Code: 60, Name: "DB::Exception", Message: "DB::Exception: Table x doesn't exist"},
			"chnative: server error 60 (DB::Exception): Table x doesn't exist"},
		{Exception{Code: 519, Name: "DB::NetException", Message: "DB::NetException: Connection refused"},
			"chnative: server error 519 (DB::NetException): Connection refused"},
		{Exception{Code: 1000, Name: "Poco::Exception", Message: "inner"},
			"chnative: server error 1000 (Poco::Exception): inner"},
		{Exception{Code: 1, Name: "DB::ErrnoException", Message: "DB::Exception: odd"},
			"chnative: server error 1 (DB::ErrnoException): odd"},
	} {
		if got := tc.e.Error(); got != tc.want {
			t.Errorf("%q", got)
		}
	}
}
