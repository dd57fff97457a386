package chgo

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/big"
	"net"
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2" // registers "clickhouse"
	"github.com/google/uuid"
	"github.com/paulmach/orb"
	"github.com/shopspring/decimal"

	"github.com/chnative/chnative" // registers "chnative"
	"github.com/chnative/chnative/conformance/types"
	"github.com/chnative/chnative/internal/testenv"
)

// destinations are the Go types the comparison scans every type into (a pointer to each is the
// destination), besides each driver's ColumnTypeScanType: what clickhouse-go's users write.
var destinations = []reflect.Type{
	reflect.TypeFor[any](),
	reflect.TypeFor[string](), reflect.TypeFor[*string](), reflect.TypeFor[[]byte](),
	reflect.TypeFor[int64](), reflect.TypeFor[*int64](), reflect.TypeFor[uint64](), reflect.TypeFor[int32](),
	reflect.TypeFor[float64](), reflect.TypeFor[*float64](), reflect.TypeFor[float32](), reflect.TypeFor[bool](),
	reflect.TypeFor[time.Time](), reflect.TypeFor[*time.Time](), reflect.TypeFor[time.Duration](),
	reflect.TypeFor[big.Int](), reflect.TypeFor[*big.Int](),
	reflect.TypeFor[net.IP](), reflect.TypeFor[*net.IP](), reflect.TypeFor[netip.Addr](),
	reflect.TypeFor[decimal.Decimal](), reflect.TypeFor[*decimal.Decimal](), reflect.TypeFor[uuid.UUID](),
	reflect.TypeFor[sql.NullString](), reflect.TypeFor[sql.NullInt64](), reflect.TypeFor[sql.NullFloat64](),
	reflect.TypeFor[sql.NullTime](), reflect.TypeFor[sql.NullBool](), reflect.TypeFor[json.RawMessage](),
	reflect.TypeFor[map[string]any](), reflect.TypeFor[[]any](), reflect.TypeFor[[]map[string]any](),
	reflect.TypeFor[orb.Point](), reflect.TypeFor[orb.Ring](), reflect.TypeFor[orb.LineString](),
	reflect.TypeFor[orb.MultiLineString](), reflect.TypeFor[orb.Polygon](), reflect.TypeFor[orb.MultiPolygon](),
	reflect.TypeFor[[]string](), reflect.TypeFor[[]*string](), reflect.TypeFor[[]int32](),
}

// skipped are the type-suite cases clickhouse-go cannot read at all.
var skipped = map[string]string{
	"Enum8('a' = 1, 'b' = -128, 'c' = 127, '' = 0, 'it''s \\t' = 5)": "clickhouse-go panics parsing the enum's names (lib/column/enum.go: slice bounds out of range), in a goroutine the caller cannot recover",
}

// difference is a kept difference from clickhouse-go for one type (matched by prefix of the
// type name) and destination (nil: every destination clickhouse-go fills).
type difference struct {
	typePrefix string
	dest       reflect.Type // nil: any destination
	reason     string
}

var differences = []difference{
	{"Interval", nil, "chnative hands over an Interval as its count (int64, which scans into numbers and strings); clickhouse-go as display text such as \"2 Seconds\" (\"1 Second\", \"-5 Second\")"},
	{"DateTime64", nil, "clickhouse-go converts DateTime64 through int64 nanoseconds, so dates past 2262 wrap (2299-12-31 reads as 1715-06-13, clickhouse-go #1311); chnative reads them exactly"},
	{"LowCardinality(Nullable(", reflect.TypeFor[any](), "clickhouse-go's Next unwraps only Nullable columns, so a LowCardinality(Nullable(T)) value reaches *any as a *T (and fails *T destinations, clickhouse-go #754); chnative hands over T, as for Nullable(T)"},
	{"SimpleAggregateFunction(anyLast, Nullable(", reflect.TypeFor[any](), "as LowCardinality(Nullable(T)): clickhouse-go hands over a *T"},
	{"Tuple(Int64, Tuple(", nil, "clickhouse-go cannot scan a Tuple holding a Tuple with an Array of Nullable (its Row swallows the error and hands over nil); chnative hands over []any{int64, []any{float64, []*string}}"},
	{"QBit(Float64", nil, "clickhouse-go reads every QBit as []float32, rounding Float64 elements (-1e100 becomes -Inf); chnative returns []float64"},
	{"JSON", nil, "clickhouse-go hands a JSON value over as its own *chcol.JSON (JSON paths as Variants); chnative as the JSON text (a []byte, as clickhouse-go hands it with output_format_native_write_json_as_string = 1: TestValuesLikeClickHouseGo; on Go 1.27 also into structs and maps)"},
	{"Nullable(JSON)", nil, "as JSON: *chcol.JSON against the text"},
	{"Array(Nullable(JSON))", nil, "as JSON: []*chcol.JSON against []*string"},
	{"Variant(", nil, "clickhouse-go hands over its chcol.Variant; chnative columns.VariantValue{Type, Value} (nil for NULL)"},
	{"Array(Variant(", nil, "as Variant: []chcol.Variant against []columns.VariantValue"},
	{"Map(String, Variant(", nil, "as Variant: map[string]chcol.Variant against map[string]columns.VariantValue"},
	{"Dynamic", nil, "clickhouse-go hands over its chcol.Variant; chnative columns.DynamicValue{Type, Value} (nil for NULL)"},
	{"Array(Dynamic)", nil, "as Dynamic: []chcol.Variant against []columns.DynamicValue"},
	{"Array(UUID)", nil, "clickhouse-go returns []uuid.UUID (github.com/google/uuid); chnative has no uuid dependency and returns []string (it fills a []uuid.UUID: TestArraysIntoUsualTypesLikeClickHouseGo)"},
	{"Array(Decimal(", nil, "clickhouse-go returns []decimal.Decimal (github.com/shopspring/decimal); chnative has no decimal dependency and returns []columns.Decimal (it fills a []decimal.Decimal: TestArraysIntoUsualTypesLikeClickHouseGo)"},
}

// scanTypeDifferences are the types (by prefix) whose ColumnTypeScanType is not clickhouse-go's,
// with the reason; both are types a variable of can be scanned into (TestScanTypeFills).
var scanTypeDifferences = []difference{
	{"Decimal", nil, "clickhouse-go names shopspring's decimal.Decimal, a dependency chnative does not have: chnative names string, the type of the value it hands over (decimal.Decimal scans from it)"},
	{"Nullable(Decimal", nil, "as Decimal: *string against *decimal.Decimal"},
	{"Array(Decimal", nil, "as Decimal: []columns.Decimal against []decimal.Decimal"},
	{"UUID", nil, "clickhouse-go names google's uuid.UUID, a dependency chnative does not have: chnative names string (uuid.UUID scans from it)"},
	{"Nullable(UUID)", nil, "as UUID"},
	{"Array(UUID)", nil, "as UUID"},
	{"LowCardinality(UUID)", nil, "as UUID"},
	{"Interval", nil, "int64 against string (see differences)"},
	{"QBit(Float64", nil, "[]float64 against []float32 (see differences)"},
	{"Variant(", nil, "columns.VariantValue against chcol.Variant"},
	{"Array(Variant(", nil, "as Variant"},
	{"Map(String, Variant(", nil, "as Variant"},
	{"Dynamic", nil, "columns.DynamicValue against chcol.Dynamic"},
	{"Array(Dynamic)", nil, "as Dynamic"},
	{"JSON", nil, "string against chcol.JSON"},
	{"Nullable(JSON)", nil, "*string against *chcol.JSON"},
	{"Array(Nullable(JSON))", nil, "[]*string against []*chcol.JSON"},
}

func (d difference) matches(typ string, dest reflect.Type) bool {
	return strings.HasPrefix(typ, d.typePrefix) && (d.dest == nil || d.dest == dest)
}

// result is what one driver scanned from every row of a query into one destination type.
type result struct {
	vals []string // canon of each row's value
	err  error    // the first error (query, scan or rows)
}

// scanAll runs q and scans every row into a fresh *dt.
func scanAll(ctx context.Context, db *sql.DB, q string, dt reflect.Type) (res result) {
	defer func() {
		if p := recover(); p != nil {
			res.err = fmt.Errorf("panic: %v", p)
		}
	}()
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return result{err: err}
	}
	defer rows.Close()
	for rows.Next() {
		d := reflect.New(dt)
		if err := rows.Scan(d.Interface()); err != nil {
			return result{vals: res.vals, err: err}
		}
		res.vals = append(res.vals, canon(d.Elem()))
	}
	res.err = rows.Err()
	return res
}

// scanType returns the ColumnTypeScanType of q's only column.
func scanType(ctx context.Context, db *sql.DB, q string) (reflect.Type, error) {
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cts, err := rows.ColumnTypes()
	if err != nil {
		return nil, err
	}
	return cts[0].ScanType(), nil
}

// openBoth opens both drivers on the 26.7 server with the type suite's session settings (the
// experimental and suspicious types allowed), which clickhouse-go sends as settings too.
func openBoth(t *testing.T) (chn, chgo *sql.DB) {
	dsn, err := types.ModernDSN(testenv.ModernDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	if chn, err = sql.Open("chnative", dsn); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { chn.Close() })
	if chgo, err = sql.Open("clickhouse", dsn); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { chgo.Close() })
	return chn, chgo
}

// TestScanLikeClickHouseGo runs every type of the type suite through both drivers on 26.7 and
// scans it into clickhouse-go's destination types: wherever clickhouse-go fills a destination,
// chnative must fill it with an equal value (same Go types, same contents), unless the
// difference is listed in differences with its reason.
func TestScanLikeClickHouseGo(t *testing.T) {
	chn, chgo := openBoth(t)
	ctx := context.Background()
	used, scanTypesUsed := map[int]bool{}, map[int]bool{}
	compared := 0
	for _, k := range types.AllCases() {
		if k.NoModern != "" {
			continue
		}
		if why, ok := skipped[k.Type]; ok {
			t.Logf("%s: not compared: %s", k.Type, why)
			continue
		}
		q := types.SelectSQL(k)
		wantST, wantErr := scanType(ctx, chgo, q)
		gotST, gotErr := scanType(ctx, chn, q)
		if wantErr != nil {
			// The server refuses the query (a setting it needs): so must it for chnative.
			if gotErr == nil {
				t.Errorf("%s: clickhouse-go's query fails (%v), chnative's does not", k.Type, wantErr)
			}
			continue
		}
		if gotErr != nil {
			t.Errorf("%s: %v", k.Type, gotErr)
			continue
		}
		if listed := matchAny(scanTypeDifferences, k.Type, scanTypesUsed); gotST != wantST && !listed {
			t.Errorf("%s: ColumnTypeScanType %v, clickhouse-go's %v", k.Type, gotST, wantST)
		} else if listed && gotST == wantST {
			t.Errorf("%s: ColumnTypeScanType %v is clickhouse-go's: remove it from scanTypeDifferences", k.Type, gotST)
		}
		dests := append([]reflect.Type{wantST, gotST}, destinations...)
		for _, dt := range dests {
			want := scanAll(ctx, chgo, q, dt)
			if want.err != nil {
				continue // clickhouse-go cannot fill it: no expectation
			}
			got := scanAll(ctx, chn, q, dt)
			same := got.err == nil && strings.Join(got.vals, "\n") == strings.Join(want.vals, "\n")
			compared++
			di := -1
			for i, d := range differences {
				if d.matches(k.Type, dt) {
					di = i
					break
				}
			}
			switch {
			case di >= 0 && !same:
				used[di] = true
			case di >= 0 && same:
				// Listed but equal here: fine for a destination-wide entry, which the other
				// destinations of the type must still show (checked below).
			case !same:
				t.Errorf("%s into *%v: clickhouse-go gives\n\t%s\nchnative gives\n\t%s (err %v)",
					k.Type, dt, strings.Join(want.vals, "\n\t"), strings.Join(got.vals, "\n\t"), got.err)
			}
		}
	}
	for i, d := range differences {
		if !used[i] {
			t.Errorf("difference %q (into %v) no longer shows: remove it from the list (%s)", d.typePrefix, d.dest, d.reason)
		}
	}
	for i, d := range scanTypeDifferences {
		if !scanTypesUsed[i] {
			t.Errorf("scan type difference %q matches no type: remove it (%s)", d.typePrefix, d.reason)
		}
	}
	t.Logf("%d type and destination pairs compared", compared)
}

// matchAny reports whether a difference of list matches typ (any destination), marking it used.
func matchAny(list []difference, typ string, used map[int]bool) bool {
	for i, d := range list {
		if d.matches(typ, nil) {
			used[i] = true
			return true
		}
	}
	return false
}

// TestUserLocationLikeClickHouseGo: under each driver's WithUserLocation, zone-less DateTime,
// DateTime64, Date and Date32 values (also in arrays) come back as clickhouse-go's do: in the
// caller's zone, dates at its midnight; a column's own zone stays.
func TestUserLocationLikeClickHouseGo(t *testing.T) {
	chn, chgo := openBoth(t)
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		t.Fatal(err)
	}
	q := "SELECT toDateTime(0), toDateTime(0, 'America/St_Johns'), toDateTime64(1.5, 3), toDate('2020-02-29')," +
		" toDate32('1950-01-01'), [toDateTime(60)], [toDate('2000-01-01')]"
	scan := func(ctx context.Context, db *sql.DB) string {
		var a, b, c, d, e time.Time
		var f, g []time.Time
		if err := db.QueryRowContext(ctx, q).Scan(&a, &b, &c, &d, &e, &f, &g); err != nil {
			t.Fatal(err)
		}
		return canon(reflect.ValueOf([]any{a, b, c, d, e, f, g}))
	}
	got := scan(chnative.WithUserLocation(context.Background(), tokyo), chn)
	want := scan(clickhouse.Context(context.Background(), clickhouse.WithUserLocation(tokyo)), chgo)
	if got != want || !strings.Contains(got, "@Asia/Tokyo") {
		t.Fatalf("clickhouse-go:\n\t%s\nchnative:\n\t%s", want, got)
	}
}
