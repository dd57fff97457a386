package chconn

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/chnative/chnative/internal/faketest"
	"github.com/chnative/chnative/nativeproto"
)

// dialFakeAt is dialFake with a server announcing hello's revision.
func dialFakeAt(t *testing.T, hello nativeproto.ServerHello, script []byte) *Conn {
	t.Helper()
	return dialScript(t, hello, faketest.Send(script))
}

func noCols(nativeproto.Revision) []faketest.Col { return nil }

func legacyHello() nativeproto.ServerHello { return faketest.LegacyHello() }

// readToEnd reads r to its end and returns the error that ended it (nil for io.EOF).
func readToEnd(r *Result) error {
	for {
		if _, _, err := r.Next(); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

func col(t *testing.T, rev nativeproto.Revision, name, typ string, vals ...any) faketest.Col {
	t.Helper()
	c, err := faketest.EncodeColumnAt(rev, name, typ, vals...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Totals and extremes: a server of StrictTotalsRevision is held to the header's names and types,
// an older one to its count (18.16's UNION ALL totals carry the first SELECT's names and types);
// a block of no columns that claims rows is refused from every server, in every role.
func TestTotalsAgainstHeader(t *testing.T) {
	answer := func(code nativeproto.ServerCode, rows uint64, cols []faketest.Col, r nativeproto.Revision) []byte {
		hdr := []faketest.Col{col(t, r, "a", "UInt16")}
		body := []faketest.Col{col(t, r, "a", "UInt16", uint16(7))}
		var b []byte
		b = faketest.BlockPacket(b, nativeproto.ServerCodeData, r, 0, 0, hdr)
		b = faketest.BlockPacket(b, nativeproto.ServerCodeData, r, 0, 1, body)
		b = faketest.BlockPacket(b, code, r, 0, rows, cols)
		b = faketest.EndOfStream(b)
		if r < nativeproto.LatestRevision {
			b = faketest.Pong(b) // the Ping that ends a query at 18.16's revision (pingEndsTables)
		}
		return b
	}
	modern, legacy := nativeproto.LatestRevision, nativeproto.Revision(faketest.Revision)
	cases := []struct {
		name    string
		hello   nativeproto.ServerHello
		code    nativeproto.ServerCode
		rows    uint64
		cols    func(r nativeproto.Revision) []faketest.Col
		wantErr bool // a *BlockMismatchError; a lie the decoder refuses is any *ProtocolError
		decoder bool
	}{
		{"modern totals other type", faketest.ModernHello(), nativeproto.ServerCodeTotals, 1,
			func(r nativeproto.Revision) []faketest.Col { return []faketest.Col{col(t, r, "a", "UInt8", uint8(1))} }, true, false},
		{"modern extremes renamed", faketest.ModernHello(), nativeproto.ServerCodeExtremes, 2,
			func(r nativeproto.Revision) []faketest.Col {
				return []faketest.Col{col(t, r, "x", "UInt16", uint16(1), uint16(2))}
			}, true, false},
		{"modern totals as header", faketest.ModernHello(), nativeproto.ServerCodeTotals, 1,
			func(r nativeproto.Revision) []faketest.Col {
				return []faketest.Col{col(t, r, "a", "UInt16", uint16(1))}
			}, false, false},
		{"legacy totals other type and name", legacyHello(), nativeproto.ServerCodeTotals, 1,
			func(r nativeproto.Revision) []faketest.Col { return []faketest.Col{col(t, r, "x", "UInt8", uint8(1))} }, false, false},
		{"legacy extremes no columns 2 rows", legacyHello(), nativeproto.ServerCodeExtremes, 2, noCols, true, true},
		{"modern totals no columns 1 row", faketest.ModernHello(), nativeproto.ServerCodeTotals, 1, noCols, true, true},
		{"legacy data no columns 5 rows", legacyHello(), nativeproto.ServerCodeData, 5, noCols, true, true},
		{"legacy totals no columns no rows", legacyHello(), nativeproto.ServerCodeTotals, 0, noCols, false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := legacy
			if tc.hello.Revision == modern {
				r = modern
			}
			c := dialFakeAt(t, tc.hello, answer(tc.code, tc.rows, tc.cols(r), r))
			var res Result
			if err := c.QueryInto(context.Background(), "SELECT totals", nil, &res); err != nil {
				t.Fatal(err)
			}
			err := readToEnd(&res)
			var me *BlockMismatchError
			var pe *ProtocolError
			switch {
			case tc.decoder && !errors.As(err, &pe):
				t.Fatalf("got %v, want a *ProtocolError", err)
			case tc.wantErr && !tc.decoder && !errors.As(err, &me):
				t.Fatalf("got %v, want a *BlockMismatchError", err)
			case tc.wantErr && !c.bad:
				t.Fatal("the connection that met the lie is not marked bad")
			case !tc.wantErr && err != nil:
				t.Fatalf("valid answer refused: %v", err)
			case !tc.wantErr && c.bad:
				t.Fatal("the connection is bad after a valid answer")
			}
			if err != nil {
				t.Log(err)
			}
		})
	}
}
