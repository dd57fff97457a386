package chnative

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/chnative/chnative/dsn"
	"github.com/chnative/chnative/internal/testenv"
	"github.com/chnative/chnative/nativeproto"
)

// The protocol_revision DSN key (dsn.Config.ProtocolRevision) caps the revision the driver
// advertises.

func TestProtocolRevisionBounds(t *testing.T) {
	// Package dsn holds its own copy of the bounds (it does not import nativeproto).
	if dsn.MinProtocolRevision != uint64(nativeproto.OldestRevision) || dsn.MaxProtocolRevision != uint64(nativeproto.LatestRevision) {
		t.Fatalf("dsn bounds %d..%d, nativeproto %d..%d", dsn.MinProtocolRevision, dsn.MaxProtocolRevision,
			nativeproto.OldestRevision, nativeproto.LatestRevision)
	}
	if nativeproto.ClientRevision < nativeproto.OldestRevision || nativeproto.ClientRevision > nativeproto.LatestRevision {
		t.Fatalf("the default revision %d is outside the bounds", nativeproto.ClientRevision)
	}
	for _, v := range []uint64{uint64(nativeproto.LatestRevision) + 1, uint64(nativeproto.OldestRevision) - 1, 1} {
		// The Connector option (a Config built by hand) and the DSN key are checked alike.
		cfg := dsn.NewConfig()
		cfg.ProtocolRevision = v
		_, err := NewConnector(cfg)
		var de *dsn.Error
		if !errors.As(err, &de) || de.Key != dsn.KeyProtocolRevision || !strings.Contains(err.Error(), fmt.Sprint(v)) {
			t.Fatalf("NewConnector with revision %d: want a dsn.Error naming protocol_revision, got %v", v, err)
		}
		_, err = sql.Open(DriverName, fmt.Sprintf("clickhouse://u:secret@h?protocol_revision=%d", v))
		if !errors.As(err, &de) || de.Key != dsn.KeyProtocolRevision || strings.Contains(err.Error(), "secret") {
			t.Fatalf("sql.Open with revision %d: %v", v, err)
		}
	}
}

// TestProtocolRevisionCap pins the advertised revision against the server CHNATIVE_DSN names:
// the negotiated revision is the lower of the cap and the server's, and queries work at each.
func TestProtocolRevisionCap(t *testing.T) {
	kind := testenv.Server(t)
	for _, rev := range []nativeproto.Revision{nativeproto.OldestRevision, 54460, nativeproto.LatestRevision, 0} {
		t.Run(fmt.Sprint(rev), func(t *testing.T) {
			// The cap is set on the Config, over whatever CHNATIVE_DSN says.
			cfg, err := dsn.Parse(testenv.DSN(t))
			if err != nil {
				t.Fatal(err)
			}
			cfg.ProtocolRevision = uint64(rev)
			cn, err := NewConnector(cfg)
			if err != nil {
				t.Fatal(err)
			}
			db := sql.OpenDB(cn)
			t.Cleanup(func() { db.Close() })
			si := serverInfo(t, db)
			adv := rev
			if rev == 0 {
				adv = nativeproto.ClientRevision
			}
			wantNeg := min(uint64(adv), si.Revision)
			if si.Advertised != uint64(adv) || si.Negotiated != wantNeg {
				t.Fatalf("advertised %d negotiated %d, want %d %d", si.Advertised, si.Negotiated, adv, wantNeg)
			}
			switch kind {
			case testenv.Legacy:
				// 18.16 answers every revision with its own: the cap changes nothing there.
				if si.Revision != 54412 || si.Negotiated != 54412 || si.Settings != nil {
					t.Fatalf("18.16: %+v", si)
				}
			case testenv.Modern:
				if si.Revision != 54488 {
					t.Fatalf("26.7: %+v", si)
				}
			}
			table := createTable(t, db, "proto_cap", "id UInt32, s String")
			if _, err := db.Exec("INSERT INTO "+table+" (id, s) VALUES (?, ?)", uint32(7), "seven"); err != nil {
				t.Fatal(err)
			}
			var s string
			if err := db.QueryRowContext(context.Background(), "SELECT s FROM "+table+" WHERE id = 7").Scan(&s); err != nil || s != "seven" {
				t.Fatalf("%q %v", s, err)
			}
		})
	}
}
