package nativeproto

import (
	"bytes"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chnative/chnative/columns"
	"github.com/chnative/chnative/internal/wire"
)

// captureDir holds byte captures of real servers (copied from the project's reference material).
var captureDir = filepath.Join("testdata", "captures")

// capture returns a golden capture.
func capture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(captureDir, name))
	if err != nil {
		t.Fatalf("capture %s: %v", name, err)
	}
	return b
}

// unhex decodes hex with spaces and newlines; "quoted" runs are ASCII.
func unhex(t testing.TB, s string) []byte {
	t.Helper()
	var out []byte
	for len(s) > 0 {
		switch {
		case s[0] == '"':
			end := strings.IndexByte(s[1:], '"')
			if end < 0 {
				t.Fatal("unterminated quote")
			}
			out = append(out, s[1:1+end]...)
			s = s[2+end:]
		case s[0] == ' ' || s[0] == '\n' || s[0] == '\t' || s[0] == '|':
			s = s[1:]
		default:
			b, err := hex.DecodeString(s[:2])
			if err != nil {
				t.Fatalf("bad hex %q", s[:2])
			}
			out = append(out, b...)
			s = s[2:]
		}
	}
	return out
}

func requireBytes(t testing.TB, got, want []byte) {
	t.Helper()
	if !bytes.Equal(got, want) {
		t.Fatalf("bytes differ\n got: %x\nwant: %x", got, want)
	}
}

// requireNoShortRead checks that decoding every strict prefix of data fails with an error (and
// does not panic), and that the whole data decodes and is consumed entirely.
func requireNoShortRead(t testing.TB, data []byte, decode func(r *wire.Reader) error) {
	t.Helper()
	r := wire.NewBytesReader(data)
	if err := decode(r); err != nil {
		t.Fatalf("full input: %v", err)
	}
	if n := r.Buffered(); n != 0 {
		t.Fatalf("full input: %d bytes left over", n)
	}
	for i := 0; i < len(data); i++ {
		err := decode(wire.NewBytesReader(data[:i]))
		if err == nil {
			t.Fatalf("prefix of %d/%d bytes decoded without error", i, len(data))
		}
	}
}

func mustCol(t testing.TB, typ string, values ...any) columns.Column {
	t.Helper()
	c, err := columns.New(typ)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range values {
		if err := c.AppendValue(v); err != nil {
			t.Fatalf("append %v to %s: %v", v, typ, err)
		}
	}
	return c
}

var testRevisions = []Revision{0, 54412, 54429, 54450, 54454, 54460, 54465, 54480}
