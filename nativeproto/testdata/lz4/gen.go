//go:build ignore

// gen captures the LZ4 (or ZSTD) frames ClickHouse sends for three result shapes, the frames
// BenchmarkLZ4Frames and TestLZ4ServerFrames (TestZSTDServerFrames, conformance/codecs) decode. Run it
// against a 26.7 server (scripts/modern.sh):
//
//	CHNATIVE_MODERN_DSN=... go run ./nativeproto/testdata/lz4/gen.go       # testdata/lz4
//	CHNATIVE_MODERN_DSN=... go run ./nativeproto/testdata/lz4/gen.go zstd  # testdata/zstd
//
// It reads every byte the server sends through the Connector's Dialer and keeps each compressed
// frame, found by its CityHash128 checksum, whole (checksum, header, payload), in order.
package main

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"log"
	"net"
	"os"
	"sync"

	"github.com/go-faster/city"

	"github.com/chnative/chnative"
	"github.com/chnative/chnative/dsn"
)

var queries = map[string]string{
	// system.numbers_mt's shape: consecutive UInt64, one block.
	"numbers": "SELECT number FROM system.numbers_mt LIMIT 65536 SETTINGS max_block_size = 65536, max_threads = 1",
	// The suite's (UInt64, String, Float64) shape.
	"usf": "SELECT number AS id, concat('name-', toString(number % 1000), '-', toString(number)) AS name, number * 0.25 AS val FROM numbers(16384) SETTINGS max_block_size = 16384",
	// Text of several 128 KiB zstd blocks a frame (only the ZSTD tests read it).
	"text": "SELECT concat('user-', toString(cityHash64(number) % 100000), '@example.com') AS s FROM numbers(60000) SETTINGS max_block_size = 20000",
}

type recorder struct {
	net.Conn
	mu  *sync.Mutex
	buf *[]byte
}

func (r recorder) Read(p []byte) (int, error) {
	n, err := r.Conn.Read(p)
	r.mu.Lock()
	*r.buf = append(*r.buf, p[:n]...)
	r.mu.Unlock()
	return n, err
}

func main() {
	method, code := "lz4", byte(0x82)
	if len(os.Args) > 1 && os.Args[1] == "zstd" {
		method, code = "zstd", 0x90
	}
	for name, q := range queries {
		cfg, err := dsn.Parse(os.Getenv("CHNATIVE_MODERN_DSN") + "?compress=" + method)
		if err != nil {
			log.Fatal(err)
		}
		c, err := chnative.NewConnector(cfg)
		if err != nil {
			log.Fatal(err)
		}
		var mu sync.Mutex
		var got []byte
		c.(*chnative.Connector).Dialer = func(ctx context.Context, network, addr string) (net.Conn, error) {
			var d net.Dialer
			nc, err := d.DialContext(ctx, network, addr)
			return recorder{nc, &mu, &got}, err
		}
		db := sql.OpenDB(c)
		rows, err := db.Query(q)
		if err != nil {
			log.Fatal(err)
		}
		for rows.Next() {
		}
		if err := rows.Err(); err != nil {
			log.Fatal(err)
		}
		rows.Close()
		db.Close()
		mu.Lock()
		frames := findFrames(got, code)
		mu.Unlock()
		if err := os.WriteFile("nativeproto/testdata/"+method+"/"+name+".frames", frames, 0o644); err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s: %d bytes of frames\n", name, len(frames))
	}
}

// findFrames returns, concatenated, every frame of the method code in b whose checksum matches.
func findFrames(b []byte, code byte) []byte {
	var out []byte
	for i := 0; i+25 <= len(b); {
		csize := int(binary.LittleEndian.Uint32(b[i+17:]))
		if b[i+16] == code && csize >= 9 && i+16+csize <= len(b) {
			h := city.CH128(b[i+16 : i+16+csize])
			if binary.LittleEndian.Uint64(b[i:]) == h.Low && binary.LittleEndian.Uint64(b[i+8:]) == h.High {
				out = append(out, b[i:i+16+csize]...)
				i += 16 + csize
				continue
			}
		}
		i++
	}
	return out
}
