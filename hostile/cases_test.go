//go:build linux

package hostile_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chnative/chnative/internal/faketest"
	"github.com/chnative/chnative/nativeproto"
)

// want is the outcome a case expects.
type want int

const (
	wantProto     want = iota // an error that errors.As to *chnative.ProtocolError
	wantErr                   // any error of the driver (a transport failure, a refused type)
	wantException             // an error that errors.As to *chnative.Exception
	wantOK                    // a valid answer: read in full, wantRows rows
)

// hcase is one hostile case: the server it runs against, the answer to hostileSQL, the tier
// that reads it and what must come out.
type hcase struct {
	name       string
	modern     bool   // the server announces 54488 (26.7) instead of 54412 (18.16)
	comp       string // compress DSN value: "", "lz4" or "zstd"
	tier       tier
	selectAs   string // the select tier's struct: "" (rowAny) or "int8" (rowInt8)
	answer     func(e env) []byte
	want       want
	wantRows   int
	retry      bool // a transport failure: the driver may run the query again
	closeAfter bool // the server closes the connection right after the answer
	params     []string
	// defaultLimit: the child keeps block_memory_limit's default (1 GiB) instead of blockLimit
	defaultLimit bool
	rssMiB       int
	hello        func() nativeproto.ServerHello // a hostile Hello instead of the default one
	helloLie     bool                           // the Hello is the lie: every query must fail
	body         func(t *testing.T, f *fake, db *sql.DB)
	// trunc, when set, is a full answer the server sends cut after f.cut bytes (and closes).
	trunc func(e env) []byte
}

// Byte helpers.

func u64s(vs ...uint64) []byte {
	var b []byte
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint64(b, v)
	}
	return b
}

func vu(v uint64) []byte { return binary.AppendUvarint(nil, v) }

func str(s string) []byte { return append(vu(uint64(len(s))), s...) }

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// withTiers makes one case per tier from a template.
func withTiers(c hcase, tiers ...tier) []*hcase {
	out := make([]*hcase, 0, len(tiers))
	for _, t := range tiers {
		c := c
		c.name = c.name + "/" + t.String()
		c.tier = t
		out = append(out, &c)
	}
	return out
}

// simple is an answer: a header of one column c of typ, then one Data packet of rows rows
// holding a hand-made column c of typ and data, then EndOfStream.
func simple(typ string, rows uint64, data []byte) func(e env) []byte {
	return func(e env) []byte {
		return e.join(e.header([2]string{"c", typ}), e.data(rows, e.col("c", typ, data)), e.end())
	}
}

// raw is an answer of the given bytes as they are.
func raw(b []byte) func(e env) []byte { return func(env) []byte { return b } }

func allCases() []*hcase {
	var cs []*hcase
	add := func(c ...*hcase) { cs = append(cs, c...) }
	add(totalsCases()...)
	add(typeChangeCases()...)
	add(amplificationCases()...)
	add(depthCases()...)
	add(logCases()...)
	add(packetCases()...)
	add(columnCases()...)
	add(serializationCases()...)
	add(frameCases()...)
	add(helloCases()...)
	add(validCases()...)
	add(insertCases()...)
	add(truncationCases()...)
	return cs
}

// Finding 1: Totals and Extremes blocks that do not match the result's header. Names and types
// are a lie only from a server of chconn.StrictTotalsRevision (18.16 sends a UNION ALL's totals
// with its first SELECT's); those cases run against a 26.7 Hello, the count ones against both.
func totalsCases() []*hcase {
	hdr := [][2]string{{"c", "UInt64"}, {"c1", "String"}}
	lies := []struct {
		name string
		code nativeproto.ServerCode
		rows uint64
		cols func(e env) []faketest.Col
		// modern: a lie only at chconn.StrictTotalsRevision
		modern bool
	}{
		{"totalsShort", nativeproto.ServerCodeTotals, 1, func(e env) []faketest.Col {
			return []faketest.Col{e.enc("c", "UInt64", uint64(1))}
		}, false},
		{"extremesShort", nativeproto.ServerCodeExtremes, 2, func(e env) []faketest.Col {
			return []faketest.Col{e.enc("c", "UInt64", uint64(1), uint64(2))}
		}, false},
		{"totalsOtherTypes", nativeproto.ServerCodeTotals, 1, func(e env) []faketest.Col {
			return []faketest.Col{e.enc("c", "String", "AAAAAAAAAAAAAAAA"), e.enc("c1", "UInt64", uint64(0x4141414141414141))}
		}, true},
		{"extremesOtherTypes", nativeproto.ServerCodeExtremes, 2, func(e env) []faketest.Col {
			return []faketest.Col{e.enc("c", "String", "AAAA", "BBBB"), e.enc("c1", "UInt64", uint64(1<<40), uint64(1<<47))}
		}, true},
		{"totalsRenamed", nativeproto.ServerCodeTotals, 1, func(e env) []faketest.Col {
			return []faketest.Col{e.enc("d", "UInt64", uint64(1)), e.enc("c1", "String", "x")}
		}, true},
		{"totalsExtraColumn", nativeproto.ServerCodeTotals, 1, func(e env) []faketest.Col {
			return []faketest.Col{e.enc("c", "UInt64", uint64(1)), e.enc("c1", "String", "x"), e.enc("c2", "String", "y")}
		}, false},
		{"extremesNoColumns", nativeproto.ServerCodeExtremes, 2, func(e env) []faketest.Col { return nil }, false},
	}
	var out []*hcase
	for _, v := range []struct {
		suffix string
		modern bool
		comp   string
	}{{"/26.7", true, ""}, {"/lz4", false, "lz4"}, {"/zstd", true, "zstd"}} {
		l := lies[0]
		out = append(out, withTiers(hcase{name: l.name + v.suffix, modern: v.modern, comp: v.comp, answer: func(e env) []byte {
			return e.join(e.header(hdr...),
				e.data(1, e.enc("c", "UInt64", uint64(5)), e.enc("c1", "String", "x")),
				e.pkt(l.code, l.rows, l.cols(e)...), e.end())
		}}, tierRows, tierBlocks)...)
	}
	for _, l := range lies {
		out = append(out, withTiers(hcase{name: l.name, modern: l.modern, answer: func(e env) []byte {
			return e.join(e.header(hdr...),
				e.data(1, e.enc("c", "UInt64", uint64(5)), e.enc("c1", "String", "x")),
				e.pkt(l.code, l.rows, l.cols(e)...), e.end())
		}}, readTiers...)...)
	}
	return out
}

// Finding 2: a column whose type (or name, or the column count) changes between the blocks of
// one result.
func typeChangeCases() []*hcase {
	A := uint64(0x41414141)
	changes := []struct {
		name     string
		hdr      [][2]string
		first    func(e env) []faketest.Col
		second   func(e env) []faketest.Col
		selectAs string
	}{
		{"int8ToInt64", [][2]string{{"c", "Int8"}},
			func(e env) []faketest.Col { return []faketest.Col{e.enc("c", "Int8", int8(1), int8(2))} },
			func(e env) []faketest.Col { return []faketest.Col{e.col("c", "Int64", u64s(A, A))} }, "int8"},
		{"nullableInt8ToInt64", [][2]string{{"c", "Nullable(Int8)"}},
			func(e env) []faketest.Col { return []faketest.Col{e.enc("c", "Nullable(Int8)", int8(1), int8(2))} },
			func(e env) []faketest.Col {
				return []faketest.Col{e.col("c", "Nullable(Int64)", append([]byte{0, 0}, u64s(A, A)...))}
			}, ""},
		{"arrayInt8ToInt64", [][2]string{{"c", "Array(Int8)"}},
			func(e env) []faketest.Col { return []faketest.Col{e.enc("c", "Array(Int8)", []int8{1}, []int8{2})} },
			func(e env) []faketest.Col { return []faketest.Col{e.col("c", "Array(Int64)", u64s(1, 2, A, A))} }, ""},
		{"stringToUInt64", [][2]string{{"c", "String"}},
			func(e env) []faketest.Col { return []faketest.Col{e.enc("c", "String", "a", "b")} },
			func(e env) []faketest.Col { return []faketest.Col{e.col("c", "UInt64", u64s(A<<32|A, A))} }, ""},
		{"lowCardinalityToString", [][2]string{{"c", "LowCardinality(String)"}},
			func(e env) []faketest.Col { return []faketest.Col{e.enc("c", "LowCardinality(String)", "a", "b")} },
			func(e env) []faketest.Col { return []faketest.Col{e.enc("c", "String", "x", "y")} }, ""},
		{"headerInt8FirstBlockInt64", [][2]string{{"c", "Int8"}},
			func(e env) []faketest.Col { return []faketest.Col{e.col("c", "Int64", u64s(A, A))} },
			func(e env) []faketest.Col { return []faketest.Col{e.enc("c", "Int8", int8(1), int8(2))} }, "int8"},
		{"renamedColumn", [][2]string{{"c", "UInt64"}},
			func(e env) []faketest.Col { return []faketest.Col{e.enc("c", "UInt64", uint64(1), uint64(2))} },
			func(e env) []faketest.Col { return []faketest.Col{e.enc("c9", "UInt64", uint64(1), uint64(2))} }, ""},
		{"moreColumns", [][2]string{{"c", "UInt64"}},
			func(e env) []faketest.Col { return []faketest.Col{e.enc("c", "UInt64", uint64(1), uint64(2))} },
			func(e env) []faketest.Col {
				return []faketest.Col{e.enc("c", "UInt64", uint64(1), uint64(2)), e.enc("c1", "String", "x", "y")}
			}, ""},
		{"fewerColumns", [][2]string{{"c", "UInt64"}, {"c1", "String"}},
			func(e env) []faketest.Col {
				return []faketest.Col{e.enc("c", "UInt64", uint64(1), uint64(2)), e.enc("c1", "String", "x", "y")}
			},
			func(e env) []faketest.Col { return []faketest.Col{e.enc("c", "UInt64", uint64(1), uint64(2))} }, ""},
	}
	var out []*hcase
	for _, v := range []struct {
		suffix string
		modern bool
		comp   string
	}{{"/26.7", true, ""}, {"/lz4", false, "lz4"}, {"/zstd", true, "zstd"}} {
		ch := changes[0]
		out = append(out, withTiers(hcase{name: ch.name + v.suffix, modern: v.modern, comp: v.comp, selectAs: ch.selectAs, answer: func(e env) []byte {
			return e.join(e.header(ch.hdr...), e.data(2, ch.first(e)...), e.data(2, ch.second(e)...), e.end())
		}}, tierRows, tierSelect)...)
	}
	for _, ch := range changes {
		out = append(out, withTiers(hcase{name: ch.name, selectAs: ch.selectAs, answer: func(e env) []byte {
			return e.join(e.header(ch.hdr...), e.data(2, ch.first(e)...), e.data(2, ch.second(e)...), e.end())
		}}, readTiers...)...)
	}
	return out
}

// Finding 3: amplification past any budget (many columns each under its own cap).
func amplificationCases() []*hcase {
	const sparseRows = 1 << 24
	sparseAll := vu(sparseRows | 1<<62) // one group: every row is the default
	manySparse := func(n int, typ string) func(e env) []byte {
		return func(e env) []byte {
			var hdr [][2]string
			var cols []faketest.Col
			for i := 1; i <= n; i++ {
				name := fmt.Sprintf("c%d", i)
				hdr = append(hdr, [2]string{name, typ})
				cols = append(cols, e.kinds(name, typ, []byte{1}, sparseAll))
			}
			return e.join(e.header(hdr...), e.data(sparseRows, cols...), e.end())
		}
	}
	replicated := func(e env) []byte {
		const rows, size = 1024, 1 << 20
		data := cat(vu(rows), []byte{1}, make([]byte, rows), vu(1), str(strings.Repeat("A", size)))
		var hdr [][2]string
		var cols []faketest.Col
		for i := 1; i <= 5; i++ {
			name := fmt.Sprintf("c%d", i)
			hdr = append(hdr, [2]string{name, "String"})
			cols = append(cols, e.kinds(name, "String", []byte{4}, data))
		}
		return e.join(e.header(hdr...), e.data(rows, cols...), e.end())
	}
	// bomb is a Data packet of n String columns of one row, each value size bytes of 'A',
	// the values made of frames each decompressing to chunk bytes.
	bomb := func(n, size, chunk int, mkFrame func() []byte) func(e env) []byte {
		return func(e env) []byte {
			frame := mkFrame()
			var w []byte
			w = append(w, byte(nativeproto.ServerCodeData), 0)
			head := cat([]byte{1, 0, 2, 0xff, 0xff, 0xff, 0xff, 0}, vu(uint64(n)), vu(1))
			for i := 1; i <= n; i++ {
				head = cat(head, str(fmt.Sprintf("c%d", i)), str("String"), vu(uint64(size)))
				w = faketest.Compress(w, e.method, head)
				head = nil
				for range size / chunk {
					w = append(w, frame...)
				}
			}
			return cat(e.header([2]string{"c1", "String"}), w, e.end())
		}
	}
	const zchunk = 64 << 20
	zframe := func() []byte {
		return faketest.Frame(byte(nativeproto.MethodZSTD), faketest.ZSTDRLE('A', zchunk, 128<<10), zchunk, false)
	}
	const lchunk = 8 << 20
	lframe := func() []byte { return faketest.Compress(nil, nativeproto.MethodLZ4, bytes.Repeat([]byte{'A'}, lchunk)) }
	var out []*hcase
	out = append(out, withTiers(hcase{name: "sparseFixedString64x5", modern: true, answer: manySparse(5, "FixedString(64)")}, tierRows, tierBlocks)...)
	out = append(out, withTiers(hcase{name: "sparseUInt64x40", modern: true, answer: manySparse(40, "UInt64")}, tierRows, tierBlocks)...)
	out = append(out, withTiers(hcase{name: "replicatedString1MiBx5", modern: true, answer: replicated}, tierRows, tierBlocks)...)
	out = append(out, withTiers(hcase{name: "zstdRLE4x1GiB", comp: "zstd", answer: bomb(4, 1<<30, zchunk, zframe)}, tierRows, tierBlocks)...)
	out = append(out, withTiers(hcase{name: "lz4Bomb4x256MiB", comp: "lz4", answer: bomb(4, 256<<20, lchunk, lframe)}, tierRows, tierBlocks)...)
	// The same at block_memory_limit's default (1 GiB): refused within what the README's formula
	// allows a block (the limit, and the columns' growth past it), not at the 4-5 GiB it took.
	for _, c := range []hcase{
		{name: "sparseFixedString64x5", modern: true, answer: manySparse(5, "FixedString(64)")},
		{name: "sparseUInt64x40", modern: true, answer: manySparse(40, "UInt64")},
		{name: "replicatedString1MiBx5", modern: true, answer: replicated},
		{name: "zstdRLE4x1GiB", comp: "zstd", answer: bomb(4, 1<<30, zchunk, zframe)},
		{name: "lz4Bomb4x256MiB", comp: "lz4", answer: bomb(4, 256<<20, lchunk, lframe)},
	} {
		c.name += "/defaultLimit"
		c.defaultLimit, c.rssMiB = true, 2560
		out = append(out, withTiers(c, tierRows)...)
	}
	return out
}

// Finding 4 and beyond: depth of JSON paths and type names.
func depthCases() []*hcase {
	// A flattened JSON column (captured from chDB 26.7) with paths a.b, a.c and arr; a.b is
	// replaced with a path of 10^6 parts.
	jsonFlat := hexBytes("03000000000000000303612e6203612e630361727203000000000000000105496e74363403000000000000000106537472696e67030000000000000001164172726179284e756c6c61626c6528496e7436342929000100000000000000000178000200000000000000000001000000000000000200000000000000")
	deepJSON := func(e env) []byte {
		long := "a" + strings.Repeat(".a", 1_000_000-1)
		return simple("JSON", 1, bytes.Replace(jsonFlat, []byte("\x03a.b"), str(long), 1))(e)
	}
	nest := func(open, inner, close string, n int) string {
		return strings.Repeat(open, n) + inner + strings.Repeat(close, n)
	}
	var out []*hcase
	out = append(out, withTiers(hcase{name: "jsonPath1e6Parts", modern: true, answer: deepJSON}, readTiers...)...)
	for _, d := range []struct {
		name              string
		open, inner, shut string
		n                 int
	}{
		{"typeArrayDepth100k", "Array(", "UInt8", ")", 100_000},
		{"typeTupleDepth100k", "Tuple(", "UInt8", ")", 100_000},
		{"typeMapDepth50k", "Map(String, ", "UInt8", ")", 50_000},
		{"typeNullableArrayDepth60k", "Array(Nullable(", "UInt8", "))", 60_000},
		{"typeVariantDepth50k", "Variant(String, ", "UInt8", ")", 50_000},
	} {
		out = append(out, &hcase{name: d.name, answer: func(e env) []byte {
			return simple(nest(d.open, d.inner, d.shut, d.n), 1, []byte{0})(e)
		}})
	}
	return out
}

// Finding 5 and beyond: Log and ProfileEvents blocks.
func logCases() []*hcase {
	noCols := func(code nativeproto.ServerCode) func(e env) []byte {
		return func(e env) []byte {
			return e.join(e.header([2]string{"c", "UInt8"}), e.pkt(code, 1<<31-1), e.data(1, e.enc("c", "UInt8", uint8(1))), e.end())
		}
	}
	hugeString := func(code nativeproto.ServerCode) func(e env) []byte {
		return func(e env) []byte {
			return e.join(e.header([2]string{"c", "UInt8"}), e.pkt(code, 1, e.col("text", "String", vu(1<<40))), e.end())
		}
	}
	rowsEOF := func(code nativeproto.ServerCode) func(e env) []byte {
		return func(e env) []byte {
			return e.join(e.header([2]string{"c", "UInt8"}), e.pkt(code, 1<<31-1, e.col("name", "String", str("x"))))
		}
	}
	return []*hcase{
		{name: "logNoColumns2^31Rows", answer: noCols(nativeproto.ServerCodeLog)},
		{name: "logNoColumns2^31Rows/modern", modern: true, answer: noCols(nativeproto.ServerCodeLog)},
		{name: "profileEventsNoColumns2^31Rows", modern: true, answer: noCols(nativeproto.ServerCodeProfileEvents)},
		{name: "profileEventsNoColumns2^31Rows/lz4", modern: true, comp: "lz4", answer: noCols(nativeproto.ServerCodeProfileEvents)},
		{name: "logString2^40", answer: hugeString(nativeproto.ServerCodeLog)},
		{name: "profileEventsString2^40", modern: true, answer: hugeString(nativeproto.ServerCodeProfileEvents)},
		{name: "profileEvents2^31RowsThenEOF", modern: true, answer: rowsEOF(nativeproto.ServerCodeProfileEvents), closeAfter: true, retry: true, want: wantErr},
	}
}

// Every packet kind: unknown codes, lengths, nesting, packets out of place.
func packetCases() []*hcase {
	dataHead := []byte{byte(nativeproto.ServerCodeData), 0, 1, 0, 2, 0xff, 0xff, 0xff, 0xff, 0}
	hdr := func(e env) []byte { return e.header([2]string{"c", "UInt8"}) }
	after := func(b []byte) func(e env) []byte { return func(e env) []byte { return e.join(hdr(e), b) } }
	code := func(c nativeproto.ServerCode) []byte { return vu(uint64(c)) }
	return []*hcase{
		{name: "unknownPacket99", answer: raw(vu(99))},
		{name: "unknownPacketAfterHeader", answer: after(vu(99))},
		{name: "packetCode2^40", answer: raw(vu(1 << 40))},
		{name: "overlongVarint", answer: raw(append(bytes.Repeat([]byte{0xff}, 10), 1))},
		{name: "exceptionNested10000", answer: raw(faketest.Exception(nil, 1, "nested", 10_000))},
		{name: "exceptionMessage2^40", answer: raw(cat(code(nativeproto.ServerCodeException), []byte{1, 0, 0, 0}, str("DB::Exception"), vu(1<<40)))},
		{name: "exceptionName2^40", answer: raw(cat(code(nativeproto.ServerCodeException), []byte{1, 0, 0, 0}, vu(1<<40)))},
		{name: "helloMidQuery", answer: after(cat(code(nativeproto.ServerCodeHello), str("ClickHouse"), vu(1), vu(1), vu(54412)))},
		{name: "tablesStatusUnasked", answer: after(cat(code(nativeproto.ServerCodeTablesStatusResponse), vu(1<<40)))},
		{name: "partUUIDs2^40", answer: after(cat(code(nativeproto.ServerCodePartUUIDs), vu(1<<40)))},
		{name: "readTaskRequest", answer: after(code(nativeproto.ServerCodeReadTaskRequest))},
		{name: "mergeTreeAnnouncement", modern: true, answer: after(cat(code(nativeproto.ServerCodeMergeTreeAllRangesAnnouncement), vu(1<<40)))},
		{name: "tableColumnsInSelect2^40", answer: after(cat(code(nativeproto.ServerCodeTableColumns), vu(1<<40)))},
		{name: "timezoneUpdate2^40", modern: true, answer: after(cat(code(nativeproto.ServerCodeTimezoneUpdate), vu(1<<40)))},
		{name: "sshChallengeMidQuery", modern: true, answer: after(cat(code(nativeproto.ServerCodeSSHChallenge), str("x")))},
		{name: "progressThenUnknown", answer: func(e env) []byte { return e.join(hdr(e), e.progress(1, 1), vu(99)) }},
		{name: "dataTableName2^40", answer: raw(cat(code(nativeproto.ServerCodeData), vu(1<<40)))},
		{name: "blockInfoUnknownField", answer: raw(cat(code(nativeproto.ServerCodeData), []byte{0, 9, 1, 0}, vu(1), vu(1)))},
		{name: "columns2^40", answer: raw(cat(dataHead, vu(1<<40), vu(1)))},
		{name: "rows2^40", answer: simple("UInt8", 1<<40, []byte{1, 2, 3})},
		{name: "columnName2^40", answer: raw(cat(dataHead, vu(1), vu(1), vu(1<<40)))},
		{name: "typeName2^40", answer: raw(cat(dataHead, vu(1), vu(1), str("c"), vu(1<<40)))},
		{name: "typeNameUnknown", want: wantErr, answer: simple("Foo(Bar)", 1, []byte{0})},
		{name: "typeName2MiB", answer: raw(cat(dataHead, vu(1), vu(1), str("c"), str(strings.Repeat("A", 2<<20))))},
		{name: "progressThenEOF", closeAfter: true, retry: true, want: wantErr, answer: after(cat(code(nativeproto.ServerCodeProgress), vu(1)))},
		{name: "profileInfoThenEOF", closeAfter: true, retry: true, want: wantErr, answer: after(cat(code(nativeproto.ServerCodeProfileInfo), vu(1), vu(1)))},
		{name: "exceptionThenEOF", closeAfter: true, retry: true, want: wantErr, answer: raw(cat(code(nativeproto.ServerCodeException), []byte{1, 0, 0, 0}, str("DB::Exception")))},
		{name: "hasCustomByte7", modern: true, answer: func(e env) []byte {
			return e.join(e.header([2]string{"c", "UInt8"}), e.data(1, faketest.Col{Name: "c", Type: "UInt8", Data: []byte{7, 1}}), e.end())
		}},
	}
}

// Every column family: lengths, offsets, indexes, discriminators and type parameters that lie.
func columnCases() []*hcase {
	lc := func(mut func(b []byte) []byte) []byte {
		// LowCardinality(String) "a", "b", "a": version, flags (UInt8 indexes, additional keys,
		// update dictionary), 2 keys, 3 indexes.
		b := hexBytes("010000000000000000060000000000000200000000000000016101620300000000000000000100")
		return mut(b)
	}
	set := func(off int, v uint64) func(b []byte) []byte {
		return func(b []byte) []byte { binary.LittleEndian.PutUint64(b[off:], v); return b }
	}
	enum := "Enum8('a' = 1, 'b' = 2)"
	cases := []*hcase{
		{name: "string2^40", answer: simple("String", 1, vu(1<<40))},
		{name: "string1GiBThenEOF", answer: simple("String", 1, vu(1<<30-1)), closeAfter: true, retry: true, want: wantErr},
		{name: "uint64Rows2^31ThenEOF", answer: simple("UInt64", 1<<31-1, u64s(1, 2)), closeAfter: true, retry: true, want: wantErr},
		{name: "fixedString2^40Type", want: wantErr, answer: simple("FixedString(1099511627776)", 1, []byte{0})},
		{name: "fixedString0Type", want: wantErr, answer: simple("FixedString(0)", 1, []byte{0})},
		{name: "decimalPrecision80", want: wantErr, answer: simple("Decimal(80, 2)", 1, u64s(0))},
		{name: "decimalScaleOverPrecision", want: wantErr, answer: simple("Decimal(10, 20)", 1, u64s(0))},
		{name: "dateTime64Precision20", want: wantErr, answer: simple("DateTime64(20)", 1, u64s(0))},
		{name: "dateTimeUnknownZone", want: wantErr, answer: simple("DateTime('Mars/Olympus_Mons')", 1, []byte{0, 0, 0, 0})},
		{name: "time64Precision20", modern: true, want: wantErr, answer: simple("Time64(20)", 1, u64s(0))},
		{name: "enum8ValueNotInType", answer: simple(enum, 2, []byte{1, 9})},
		{name: "enum16ValueNotInType", answer: simple("Enum16('a' = 1000)", 1, []byte{0x39, 0x30})},
		{name: "enumDuplicateName", want: wantErr, answer: simple("Enum8('a' = 1, 'a' = 2)", 1, []byte{1})},
		{name: "nullableOfNullable", want: wantErr, answer: simple("Nullable(Nullable(UInt8))", 1, []byte{0, 0})},
		{name: "nullableOfArray", want: wantErr, answer: simple("Nullable(Array(UInt8))", 1, cat([]byte{0}, u64s(0)))},
		{name: "arrayOffsetsBackwards", answer: simple("Array(UInt8)", 2, append(u64s(5, 3), 1, 2, 3, 4, 5))},
		{name: "arrayOffsetPastEnd2^40", answer: simple("Array(UInt8)", 2, append(u64s(2, 1<<40), 1, 2))},
		{name: "arrayOffset2^62", answer: simple("Array(UInt64)", 1, u64s(1<<62))},
		{name: "arrayElements2^34ThenEOF", answer: simple("Array(UInt64)", 2, u64s(2, 1<<34, 1, 2)), closeAfter: true, retry: true, want: wantErr},
		{name: "mapOffsetsBackwards", answer: simple("Map(String, UInt8)", 2, cat(u64s(2, 1), str("k"), str("l"), []byte{1, 2}))},
		{name: "mapOffset2^40", answer: simple("Map(String, UInt8)", 1, cat(u64s(1<<40), str("k"), []byte{1}))},
		{name: "nestedOffsetsBackwards", answer: simple("Nested(a UInt8)", 2, cat(u64s(3, 1), []byte{1, 2, 3}))},
		{name: "tupleEmpty", want: wantErr, answer: simple("Tuple()", 1, nil)},
		{name: "lowCardinalityIndexPastDictionary", answer: simple("LowCardinality(String)", 3, lc(func(b []byte) []byte { b[len(b)-1] = 200; return b }))},
		{name: "lowCardinalityKeys2^40", answer: simple("LowCardinality(String)", 3, lc(set(16, 1<<40)))},
		{name: "lowCardinalityVersion5", answer: simple("LowCardinality(String)", 3, lc(set(0, 5)))},
		{name: "lowCardinalityIndexWidth7", answer: simple("LowCardinality(String)", 3, lc(set(8, 0x607)))},
		{name: "lowCardinalityIndexCountMismatch", answer: simple("LowCardinality(String)", 3, lc(set(28, 5)))},
		{name: "lowCardinalityOfArray", want: wantErr, answer: simple("LowCardinality(Array(UInt8))", 1, u64s(1, 0))},
		{name: "variantDiscriminator200", answer: simple("Variant(String, UInt64)", 2, cat(u64s(0), []byte{0, 200}, str("x")))},
		{name: "variantMode9", answer: simple("Variant(String, UInt64)", 1, cat(u64s(9), []byte{0}, str("x")))},
		{name: "variantMembers300", want: wantErr, answer: simple("Variant("+members(300)+")", 1, cat(u64s(0), []byte{255}))},
		{name: "dynamicTypes2^40", modern: true, answer: simple("Dynamic", 1, cat(u64s(3), vu(1<<40)))},
		{name: "dynamicUnknownType", modern: true, answer: simple("Dynamic", 1, cat(u64s(3), vu(1), str("Foo(Bar)"), []byte{0}))},
		{name: "dynamicTypeTwice", modern: true, answer: simple("Dynamic", 1, cat(u64s(3), vu(2), str("String"), str("String"), []byte{0}, str("x")))},
		{name: "dynamicVersion9", modern: true, answer: simple("Dynamic", 1, cat(u64s(9), vu(0), []byte{0}))},
		{name: "jsonPaths2^40", modern: true, answer: simple("JSON", 1, cat(u64s(3), vu(1<<40)))},
		{name: "jsonVersion9", modern: true, answer: simple("JSON", 1, cat(u64s(9), vu(0)))},
		{name: "ringOffsetsBackwards", answer: simple("Ring", 2, cat(u64s(2, 1), u64s(0, 0, 0, 0)))},
		{name: "polygonOffset2^40", answer: simple("Polygon", 1, cat(u64s(1<<40), u64s(1)))},
		{name: "qbitDimension2^40", modern: true, want: wantErr, answer: simple("QBit(Float32, 1099511627776)", 1, []byte{0})},
		{name: "qbitDimension0", modern: true, want: wantErr, answer: simple("QBit(Float32, 0)", 1, []byte{0})},
		{name: "aggregateFunctionGarbage", want: wantErr, answer: simple("AggregateFunction(uniq, UInt64)", 1, []byte{0xff, 0xff, 0xff})},
	}
	cases = append(cases, withTiers(hcase{name: "enum8ValueNotInType", answer: simple(enum, 2, []byte{1, 9})}, tierBlocks, tierSelect)...)
	// Every fixed-width family: a block of 2 rows whose data holds one row, then EOF.
	for _, f := range []struct {
		typ   string
		width int
	}{
		{"UInt16", 2}, {"Int32", 4}, {"Float64", 8}, {"Int128", 16}, {"UInt256", 32}, {"Decimal(38, 4)", 16},
		{"Decimal256(10)", 32}, {"Date", 2}, {"Date32", 4}, {"DateTime", 4}, {"DateTime64(3, 'UTC')", 8},
		{"UUID", 16}, {"IPv4", 4}, {"IPv6", 16}, {"FixedString(16)", 16}, {"Point", 16}, {"Bool", 1},
		{"BFloat16", 2}, {"Interval(Second)", 8},
	} {
		cases = append(cases, &hcase{name: "short/" + f.typ, answer: simple(f.typ, 2, make([]byte, f.width)),
			closeAfter: true, retry: true, want: wantErr})
	}
	return cases
}

// members is a comma-separated list of n distinct types (FixedString(1) ... FixedString(n)).
func members(n int) string {
	s := make([]string, n)
	for i := range s {
		s[i] = fmt.Sprintf("FixedString(%d)", i+1)
	}
	return strings.Join(s, ", ")
}

// Sparse and replicated serializations that lie (revision 54488).
func serializationCases() []*hcase {
	one := func(typ string, rows uint64, stack, data []byte) func(e env) []byte {
		return func(e env) []byte {
			return e.join(e.header([2]string{"c", typ}), e.data(rows, e.kinds("c", typ, stack, data)), e.end())
		}
	}
	return []*hcase{
		{name: "sparseOffsetsPastRows", modern: true, answer: one("UInt64", 4, []byte{1}, cat(vu(10), vu(1<<62), u64s(7)))},
		{name: "sparseNoEnd", modern: true, answer: one("UInt64", 4, []byte{1}, cat(vu(0), vu(0), vu(0), vu(0), vu(0), u64s(1, 2, 3, 4, 5)))},
		{name: "sparseRows2^31", modern: true, answer: one("UInt64", 1<<31-1, []byte{1}, vu(1<<31-1|1<<62))},
		{name: "sparseString2^40", modern: true, answer: one("String", 2, []byte{1}, cat(vu(0), vu(1|1<<62), vu(1<<40)))},
		{name: "replicatedIndexWidth3", modern: true, answer: one("UInt64", 2, []byte{4}, cat(vu(2), []byte{3, 0, 0, 0, 0, 0, 0}))},
		{name: "replicatedIndexPastDistinct", modern: true, answer: one("UInt64", 2, []byte{4}, cat(vu(2), []byte{1, 0, 9}, vu(1), u64s(7)))},
		{name: "replicatedRowsMismatch", modern: true, answer: one("UInt64", 2, []byte{4}, cat(vu(5), []byte{1, 0, 0}, vu(1), u64s(7)))},
		{name: "replicatedDistinct2^31ThenEOF", modern: true, closeAfter: true, retry: true, want: wantErr, answer: one("UInt64", 2, []byte{4}, cat(vu(2), []byte{1, 0, 0}, vu(1<<31-1), u64s(7)))},
		{name: "kindStackCode9", modern: true, answer: one("UInt64", 1, []byte{9}, u64s(1))},
		{name: "kindDetached", modern: true, answer: one("UInt64", 1, []byte{2}, u64s(1))},
		{name: "kindCombination100", modern: true, answer: one("UInt64", 1, cat([]byte{5}, vu(100), bytes.Repeat([]byte{1}, 100)), u64s(1))},
		{name: "hasCustomAt18.16", answer: func(e env) []byte {
			// A 54412 server never sends has_custom: this byte is read as data, so the block
			// is one byte short at the end.
			return e.join(e.header([2]string{"c", "UInt64"}), e.data(1, faketest.Col{Name: "c", Type: "UInt64", Data: append([]byte{1}, u64s(1)...)}), e.end())
		}},
	}
}

// LZ4 and ZSTD frames: bad headers, sizes, payloads (checksums valid unless said).
func frameCases() []*hcase {
	dataHead := []byte{byte(nativeproto.ServerCodeData), 0}
	good := func(e env) []byte {
		// The body of a valid 1-row block of one UInt8 column c.
		return cat([]byte{1, 0, 2, 0xff, 0xff, 0xff, 0xff, 0}, vu(1), vu(1), str("c"), str("UInt8"), []byte{7})
	}
	frame := func(method byte, payload []byte, usize uint32) func(e env) []byte {
		return func(e env) []byte {
			return cat(e.header([2]string{"c", "UInt8"}), dataHead, faketest.Frame(method, payload, usize, false), e.end())
		}
	}
	zstdRaw := func(body []byte) []byte {
		// A zstd frame of one raw block holding body, whatever its size (at most 128 KiB is valid).
		n := len(body)
		hdr := uint32(n)<<3 | 1 // raw block, last
		return cat([]byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x58}, []byte{byte(hdr), byte(hdr >> 8), byte(hdr >> 16)}, body)
	}
	bigBody := cat([]byte{1, 0, 2, 0xff, 0xff, 0xff, 0xff, 0}, vu(1), vu(1), str("c"), str("String"), str(strings.Repeat("z", 200<<10)))
	var out []*hcase
	for _, m := range []struct {
		comp   string
		method byte
	}{{"lz4", 0x82}, {"zstd", 0x90}} {
		mk := func(name string, f func(e env) []byte, w want, retry bool) {
			out = append(out, &hcase{name: "frame/" + m.comp + "/" + name, comp: m.comp, answer: f, want: w, retry: retry})
		}
		mk("badChecksum", func(e env) []byte {
			f := faketest.Compress(nil, nativeproto.Method(m.method), good(e))
			f[3] ^= 0x5a
			return cat(e.header([2]string{"c", "UInt8"}), dataHead, f)
		}, wantErr, true)
		mk("unknownMethod0x55", frame(0x55, []byte{1, 2, 3}, 3), wantProto, false)
		mk("usize4GiB", frame(m.method, []byte{0, 1, 2, 3}, 0xFFFFFFFF), wantProto, false)
		mk("usizeShort", func(e env) []byte {
			c := faketest.Compress(nil, nativeproto.Method(m.method), good(e))
			binary.LittleEndian.PutUint32(c[21:25], 3) // declared smaller than what it decodes to
			f := faketest.Frame(c[16], c[25:], 3, false)
			return cat(e.header([2]string{"c", "UInt8"}), dataHead, f)
		}, wantProto, false)
		mk("usizeLong", func(e env) []byte {
			c := faketest.Compress(nil, nativeproto.Method(m.method), good(e))
			f := faketest.Frame(c[16], c[25:], uint32(len(good(e))+1000), false)
			return cat(e.header([2]string{"c", "UInt8"}), dataHead, f)
		}, wantProto, false)
		mk("garbagePayload", frame(m.method, bytes.Repeat([]byte{0xa5}, 64), 4096), wantProto, false)
		mk("csizeUnderHeader", func(e env) []byte {
			f := faketest.Frame(m.method, []byte{1}, 1, false)
			binary.LittleEndian.PutUint32(f[17:21], 3)
			return cat(e.header([2]string{"c", "UInt8"}), dataHead, f)
		}, wantProto, false)
		mk("csize2GiBThenEOF", func(e env) []byte {
			f := faketest.Frame(m.method, []byte{1}, 1, false)
			binary.LittleEndian.PutUint32(f[17:21], 1<<31)
			return cat(e.header([2]string{"c", "UInt8"}), dataHead, f)
		}, wantProto, false)
	}
	out = append(out,
		&hcase{name: "frame/lz4/offsetBeforeStart", comp: "lz4", answer: frame(0x82, []byte{0x0f, 0xff, 0xff, 0x10, 0x00}, 64)},
		&hcase{name: "frame/lz4/literalsPastEnd", comp: "lz4", answer: frame(0x82, []byte{0xf0, 0xff, 0xff, 0x01, 'a'}, 64)},
		&hcase{name: "frame/zstd/rawBlock200KiB", comp: "zstd", answer: frame(0x90, zstdRaw(bigBody), uint32(len(bigBody)))},
		&hcase{name: "frame/zstd/rleBlock1MiB", comp: "zstd", answer: frame(0x90, faketest.ZSTDRLE('z', 1<<20, 1<<20), 1<<20)},
		&hcase{name: "frame/zstd/dictionaryID", comp: "zstd", answer: frame(0x90, []byte{0x28, 0xb5, 0x2f, 0xfd, 0x03, 0x58, 0x78, 0x56, 0x34, 0x12, 0x09, 0, 0, 'x'}, 1)},
		&hcase{name: "frame/none/compressedUnasked", answer: func(e env) []byte {
			return cat(e.header([2]string{"c", "UInt8"}), dataHead, faketest.Compress(nil, nativeproto.MethodLZ4, good(e)), e.end())
		}},
		&hcase{name: "frame/lz4/methodNoneUsizeMismatch", comp: "lz4", answer: frame(0x02, []byte{1, 2, 3, 4}, 9)},
	)
	return out
}

// Finding 8: Hellos that lie.
func helloCases() []*hcase {
	with := func(mut func(h *nativeproto.ServerHello)) func() nativeproto.ServerHello {
		return func() nativeproto.ServerHello {
			h := nativeproto.ServerHello{Name: "ClickHouse", Major: 18, Minor: 16, Revision: faketest.Revision, Timezone: "UTC", DisplayName: "faketest", Patch: 1}
			mut(&h)
			return h
		}
	}
	return []*hcase{
		{name: "helloRevision1", helloLie: true, hello: with(func(h *nativeproto.ServerHello) { h.Revision = 1 })},
		{name: "helloRevision54411", helloLie: true, hello: with(func(h *nativeproto.ServerHello) { h.Revision = nativeproto.OldestRevision - 1 })},
		{name: "helloName1MiB", helloLie: true, hello: with(func(h *nativeproto.ServerHello) { h.Name = strings.Repeat("n", 1<<20) })},
		{name: "helloChunkedRequired", helloLie: true, want: wantErr, hello: func() nativeproto.ServerHello {
			h := faketest.ModernHello()
			h.ChunkedSend, h.ChunkedRecv = "chunked", "chunked"
			return h
		}},
	}
}

// Valid answers at the edges of the limits: they must be read in full, and fast.
func validCases() []*hcase {
	name := strings.Repeat("n", 1<<20+16) // longer than the old 1 MiB cap on column names
	longName := func(e env) []byte {
		return e.join(e.header([2]string{name, "UInt64"}), e.data(1, e.enc(name, "UInt64", uint64(1))), e.end())
	}
	dynamic := func(e env) []byte {
		const n = 1 << 16 // the most the driver takes (flattened serialization)
		dyn := cat(u64s(3), vu(n))
		for i := 1; i <= n; i++ {
			dyn = append(dyn, str(fmt.Sprintf("FixedString(%d)", i))...)
		}
		dyn = append(dyn, 0, 0, 0, 0, 'x') // one row: index 0 (UInt32 indexes), FixedString(1) 'x'
		return simple("Dynamic", 1, dyn)(e)
	}
	var out []*hcase
	out = append(out, withTiers(hcase{name: "columnName1MiB", modern: true, want: wantOK, wantRows: 1, answer: longName}, tierRows, tierBlocks)...)
	out = append(out, withTiers(hcase{name: "dynamicTypes65536", modern: true, want: wantOK, wantRows: 1, answer: dynamic}, tierRows, tierBlocks)...)
	return out
}

// Inserts: the header a server answers an INSERT with, lying.
func insertCases() []*hcase {
	dataHead := []byte{byte(nativeproto.ServerCodeData), 0, 1, 0, 2, 0xff, 0xff, 0xff, 0xff, 0}
	return []*hcase{
		{name: "insert/headerColumns2^40", tier: tierBatch, answer: raw(cat(dataHead, vu(1<<40), vu(0)))},
		{name: "insert/headerTypeUnknown", tier: tierBatch, want: wantErr, answer: raw(cat(dataHead, vu(1), vu(0), str("c"), str("Foo(Bar)")))},
		{name: "insert/headerName2^40", tier: tierBatch, answer: raw(cat(dataHead, vu(1), vu(0), vu(1<<40)))},
		{name: "insert/exceptionNested10000", tier: tierBatch, answer: raw(faketest.Exception(nil, 1, "nested", 10_000))},
		{name: "insert/unknownPacket", tier: tierBatch, answer: raw(vu(99))},
		{name: "insert/tableColumns2^40", tier: tierBatch, answer: raw(cat(vu(uint64(nativeproto.ServerCodeTableColumns)), vu(1<<40)))},
		{name: "insert/headerRows2^31ThenEOF", tier: tierBatch, closeAfter: true, retry: true, want: wantErr, answer: raw(cat(dataHead, vu(1), vu(1<<31-1), str("c"), str("UInt64"), u64s(1)))},
		{name: "insert/profileEventsNoColumns", tier: tierBatch, modern: true, answer: func(e env) []byte {
			return e.join(e.pkt(nativeproto.ServerCodeProfileEvents, 1<<31-1), e.header([2]string{"c", "UInt8"}))
		}},
	}
}

func hexBytes(s string) []byte {
	b := make([]byte, len(s)/2)
	for i := range b {
		fmt.Sscanf(s[2*i:2*i+2], "%02x", &b[i])
	}
	return b
}

// fullAnswer is a real answer of several column kinds, to be cut after every byte.
func fullAnswer(e env) []byte {
	return e.join(
		e.header([2]string{"n", "UInt64"}, [2]string{"s", "String"}, [2]string{"a", "Array(UInt8)"},
			[2]string{"ns", "Nullable(String)"}, [2]string{"lc", "LowCardinality(String)"}),
		e.progress(3, 100),
		e.data(3, e.enc("n", "UInt64", uint64(1), uint64(2), uint64(3)), e.enc("s", "String", "one", "two", "three"),
			e.enc("a", "Array(UInt8)", []uint8{1}, []uint8{}, []uint8{2, 3}), e.enc("ns", "Nullable(String)", "x", nil, "z"),
			e.enc("lc", "LowCardinality(String)", "a", "b", "a")),
		e.end())
}

// Truncation at every byte of a real answer, in one child per server and compression: every
// cut is an error, the full answer is read in full, and no cut connection is used again.
func truncationCases() []*hcase {
	var out []*hcase
	for _, modern := range []bool{false, true} {
		for _, comp := range []string{"", "lz4", "zstd"} {
			name := "truncated/18.16/"
			rev := faketest.Revision
			if modern {
				name, rev = "truncated/26.7/", nativeproto.LatestRevision
			}
			name += map[string]string{"": "none", "lz4": "lz4", "zstd": "zstd"}[comp]
			e := env{rev: rev, method: methodOf(comp)}
			full := fullAnswer(e)
			out = append(out, &hcase{name: name, modern: modern, comp: comp, trunc: fullAnswer,
				params: []string{"read_retries=0"}, rssMiB: 384,
				body: func(t *testing.T, f *fake, db *sql.DB) {
					if err := goodQuery(db); err != nil {
						t.Fatalf("good query: %v", err)
					}
					for n := 0; n <= len(full); n++ {
						f.cut.Store(int64(n))
						ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
						rows, err := readRows(ctx, db)
						cancel()
						if n < len(full) && err == nil {
							t.Fatalf("answer cut after %d of %d bytes read as %d rows without error", n, len(full), rows)
						}
						if n == len(full) && (err != nil || rows != 3) {
							t.Fatalf("full answer: %d rows, %v", rows, err)
						}
					}
					if err := goodQuery(db); err != nil {
						t.Fatalf("good query after the cuts: %v", err)
					}
					if got, want := f.srv.Accepts(), int64(len(full)+1); got != want {
						t.Errorf("%d connections for %d cut answers: a cut connection was used again", got, len(full))
					}
					fmt.Printf("hostile: %d cuts, each an error\n", len(full))
				}})
		}
	}
	return out
}
