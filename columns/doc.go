// Package columns holds ClickHouse column data in Go memory and encodes and decodes it in the
// Native format: the per-type column encodings that blocks of the native TCP protocol and of
// FORMAT Native carry.
//
// A [Column] stores the values of one column of one block in typed slices (one []uint64 for a
// UInt64 column, a byte arena plus end offsets for String, offsets plus an element column for
// Array, and so on). [New] makes an empty column from a type name as the server spells it. A block
// with rows > 0 carries, for each column, its state prefix ([Column.ReadPrefix],
// [Column.WritePrefix]; only LowCardinality, and the composites containing it, have a non-empty
// one) and then its data ([Column.Read], [Column.Write]). Decoding reads from a [Reader], over a
// byte slice ([NewBytesReader]) or a stream ([NewReader], [NewReaderSize]); encoding appends to a
// [Writer].
//
// # Reuse and borrowed memory
//
// Columns are meant to be reused block after block: Read replaces the contents and keeps the
// capacity, so decoding into a column that has reached its size allocates nothing. Slices and
// strings that typed accessors return (Fixed.Values, String.Bytes, String.UnsafeString,
// String.Data, FixedString.Bytes, Array.Offsets, Nullable.Nulls, LowCardinality.Indexes, ...) are
// borrowed: they are valid until the column is next Read, Reset, Truncated or appended to, and must
// not be modified. Value always returns memory of its own. A column never keeps a reference to the
// Reader's input: decoding from a [NewBytesReader] slice copies what it keeps, so the slice may be
// reused as soon as Read returns. A Reader never writes into a slice given to NewBytesReader or
// ResetBytes.
//
// # Custom serializations
//
// A server may send a block column in a serialization other than its type's own: sparse (the
// positions of the non-default rows, then only those values; to clients of revision 54465 and
// above, Nullable columns from 54483) or replicated (one index per row into the distinct rows;
// from 54482), and a Tuple's elements each in their own. The protocol layer reads the kinds that
// precede such a column with [Serialization.ReadKinds] and decodes its prefix and data with
// [Serialization.ReadPrefix] and [Serialization.Read], which fill the column exactly as its own
// encoding would: columns never hold sparse or replicated data, and nothing that reads them
// knows the difference. A Serialization keeps its scratch columns for the next block. The rows
// such data expands to are bounded by the block's rows and by [MaxExpandedRows] and
// [MaxExpandedBytes], since a few bytes of input can describe many rows, and charged to the
// reader's per-block budget before they are allocated ([Reader.Charge], the DSN key
// block_memory_limit), as are the per-row indexes and offsets a String, LowCardinality,
// Variant or Dynamic column keeps beyond its input.
//
// # Errors
//
// Read fails with a *[DecodeError] on malformed input, wrapping io.ErrUnexpectedEOF when the input
// ends inside a value and a *[LimitError] when a length or count passes a cap. Decoding hostile
// input allocates in proportion to the input actually received, never to the counts it declares.
// After a failed Read the column is empty (Rows() == 0) and usable. AppendValue fails with a
// *[TypeMismatchError] naming the ClickHouse type and the Go type, or with the error of a
// driver.Valuer; a failed AppendValue appends nothing, at any depth of a composite column.
//
// # Types
//
// AppendValue first follows pointers and driver.Valuer values (sql.NullString, ...); a nil
// pointer, a nil interface and a Valuer returning nil are NULL, which only Nullable and
// LowCardinality(Nullable(T)) columns take (Array and Map take nil as an empty value). Named types
// are accepted by their underlying kind (type MyInt int works wherever int does). Integers convert
// only when the value fits exactly; floats convert to integer columns only when integral and in
// range; numeric strings parse. A driver.Valuer (and [Decimal], which is one) is unwrapped by
// its Value method (see valuer.go).
//
// As clickhouse-go's columns do, some columns take a value by a method it has (a method with a
// pointer receiver too: each pointer is looked at before it is followed). FixedString takes the
// MarshalBinary of an encoding.BinaryMarshaler, before a driver.Valuer's Value (google/uuid.UUID
// gives its 16 bytes). String, FixedString, UUID, Enum8/16, Date, Date32, DateTime and DateTime64
// take the String() of a fmt.Stringer (else the MarshalText of an encoding.TextMarshaler, which
// clickhouse-go does not take), after a Valuer's Value and before a named type's kind: a type S
// string with a String method is its String(), a net.IP into String its text. The date and time
// columns take a named number as a number, and Enum too unless its String() is one of the enum's
// names (type Color int8 with names). The zero time.Time is the epoch (0) in Date, Date32,
// DateTime and DateTime64, as clickhouse-go stores it; other times out of a column's range are an
// error (clickhouse-go wraps them).
//
//	ClickHouse type                Column           Value returns     AppendValue accepts
//	-----------------------------  ---------------  ----------------  ---------------------------------------------
//	Int8 … Int64, UInt8 … UInt64   *Fixed[T]        int8 … uint64     any Go integer or float that fits, bool, numeric string
//	Float32, Float64               *Fixed[T]        float32, float64  any Go number (float32: |v| <= MaxFloat32), numeric string
//	Int128, UInt128, Int256,       *Wide[T]         *big.Int          *big.Int, big.Int, Int128/UInt128/Int256/UInt256,
//	UInt256                                                           any Go integer, decimal string (error if it does
//	                                                                  not fit)
//	Bool                           *Bool            bool              bool, integer or float 0/1, strconv.ParseBool string
//	BFloat16                       *BFloat16        float32           any Go number or numeric string, rounded to nearest
//	                                                                  even (finite values that round to ±Inf: error);
//	                                                                  NaN and ±Inf kept; Values() = raw bits []uint16
//	String                         *String          string            string, []byte, named string / byte-slice types
//	FixedString(N)                 *FixedString     string (N bytes)  string, []byte, [k]byte of at most N bytes (zero padded)
//	Date                           *Date            time.Time (UTC)   time.Time (its calendar day), "2006-01-02", day number
//	Date32                         *Date32          time.Time (UTC)   as Date; 1900-01-01 .. 2299-12-31 (Int32 days)
//	DateTime, DateTime('tz')       *DateTime        time.Time (in tz) time.Time, RFC 3339 or "2006-01-02 15:04:05" (in the
//	                                                                  column's zone), Unix seconds
//	DateTime64(P), DateTime64(P,   *DateTime64      time.Time (in tz) time.Time (exact integer ticks, sub-tick part
//	'tz')                                                             truncated toward the past), time strings as for
//	                                                                  DateTime (fraction up to 9 digits), int64 ticks
//	Time                           *Time            time.Duration     time.Duration (whole seconds, toward zero),
//	                                                                  "[-]hhh:mm:ss[.fff]", integer seconds; ±999:59:59
//	Time64(P)                      *Time64          time.Duration     time.Duration (whole ticks, toward zero),
//	                                                                  "[-]hhh:mm:ss[.fffffffff]", integer ticks
//	IPv4                           *IPv4            netip.Addr        netip.Addr, net.IP, [4]byte, 4-byte []byte, string
//	                                                                  (IPv4-mapped IPv6 unmapped), uint32 (0x7f000001)
//	IPv6                           *IPv6            netip.Addr        netip.Addr, net.IP, [16]byte, [4]byte, 16/4-byte
//	                                                                  []byte, string (IPv4 stored as ::ffff:a.b.c.d)
//	IntervalNanosecond …           *Interval        int64 (count of   any Go integer that fits, numeric string;
//	IntervalYear                                    the kind's unit)  time.Duration of whole units (Nanosecond … Week)
//	Decimal(P, S), Decimal32(S),   *Decimal32/64/   Decimal           Decimal, decimal string, *big.Int, *big.Rat, any Go
//	Decimal64(S), Decimal128(S),   128/256                            integer or float (rounded half away from zero to S;
//	Decimal256(S)                                                     error past P digits)
//	UUID                           *UUID            string            [16]byte (and named types of it), 16-byte []byte, string
//	Enum8(...), Enum16(...)        *Enum8, *Enum16  string (name)     name string, or a number the enum defines
//	Nothing                        *Nothing         nil               nil
//	Point                          *Geo             Point{X, Y}       Point, [2]float64 (orb.Point), 2-element slice,
//	                                                                  struct of two numbers
//	Ring, LineString               *Geo             Ring, LineString  slice of what Point accepts ([]Point, ...), nil
//	                                                ([]Point)
//	Polygon, MultiLineString       *Geo             Polygon ([]Ring), slice of slices of points ([][]Point, ...), nil
//	                                                MultiLineString
//	MultiPolygon                   *Geo             MultiPolygon      [][][]Point or any slices nested as deep, nil
//	                                                ([]Polygon)
//	SimpleAggregateFunction(f, T)  *SimpleAggregate T's type          what T accepts (encoded exactly as T)
//	                               Function
//	Nested(a T, b U)               *Nested          [][]any           as Array(Tuple(a T, b U)) (flatten_nested = 0)
//	AggregateFunction(...)         (none)                             New fails: *UnsupportedTypeError (opaque state;
//	                                                                  use finalizeAggregation() in the query)
//	Nullable(T)                    *Nullable        nil or T's type   nil, or what T accepts
//	Array(T)                       *Array           []T's type        slice or array of what T accepts, nil (empty)
//	                                                (*E for Nullable)
//	Tuple(T1, …) / Tuple(a T1, …)  *Tuple           []any             []any, slice or array of matching length, struct
//	                                                                  (exported fields in order), map[string]any (named)
//	Map(K, V)                      *Map             map[K]V           Go map of what K and V accept, nil (empty)
//	                                                (V = *E for Nullable)
//	LowCardinality(T)              *LowCardinality  T's type          what T accepts (T: String, FixedString, every
//	                                                                  integer and float incl. Int128 … UInt256 and
//	                                                                  BFloat16, Bool, Date, Date32, DateTime, Time,
//	                                                                  UUID, IPv4, IPv6, Interval*; not Decimal,
//	                                                                  DateTime64, Time64, Enum)
//	LowCardinality(Nullable(T))    *LowCardinality  nil or T's type   nil, or what T accepts
//	Variant(T1, …)                 *Variant         VariantValue      VariantValue{Type, Value}, nil, or a value exactly one
//	                                                (nil for NULL)    variant takes (its scan type first; else an error if
//	                                                                  several variants convert it)
//	Dynamic, Dynamic(max_types=N)  *Dynamic         DynamicValue      DynamicValue{Type, Value}, VariantValue, nil, or a
//	                                                (nil for NULL)    Go value of an inferable type (int -> Int64, string,
//	                                                                  float64, bool, time.Time, slices, map[string]T)
//	JSON, JSON(params)             *JSON            string (JSON      JSON object text (string, []byte, json.RawMessage),
//	                                                text; []byte for  or a map/struct that encoding/json marshals
//	                                                database/sql)
//	QBit(T, D), QBit(T, D, S)      *QBit            []float32 (Float32 []float32, []float64, []uint16 (bfloat16 bits) or
//	                                                and BFloat16),    []int8 of exactly D elements, converted exactly where
//	                                                []float64, []int8 possible (BFloat16 truncates as the server's CAST);
//	                                                                  planes stay transposed (Plane(k) borrowed)
//
// Variant, Dynamic and JSON have state prefixes too. Dynamic decodes the V1, V2 and FLATTENED
// structures (SharedVariant values, binary-encoded type plus value, become typed rows) and encodes
// FLATTENED; JSON decodes STRING, V1, V2 and FLATTENED and encodes STRING. Reading JSON is
// cheapest with output_format_native_write_json_as_string=1.
//
// Value returns the element types in slices and maps as the table's Value column says, with a
// pointer for Nullable elements (Array(Nullable(String)) gives []*string). ScanType reports the
// Go type Value returns for non-NULL values. Decimal(P, S) columns report their type as the
// server does, "Decimal(P, S)", whichever spelling made them.
//
// # Values for database/sql
//
// Value returns the package's own Go types. [SQLValue] returns what a database/sql driver hands
// over instead, where that differs: the types clickhouse-go's database/sql driver hands over, so
// that code scanning into them (big.Int, net.IP, github.com/paulmach/orb's geo types,
// map[string]any for named tuples, []map[string]any for Nested, decimal text) runs unchanged;
// [SQLScanType] names a type a variable of which takes them, and [ScanValue] stores values
// straight into this package's own types and other destinations database/sql's conversions do
// not reach (see SQLValue for the table). Point and the other geo types, Decimal, VariantValue
// and DynamicValue implement sql.Scanner, so they scan from SQLValue on every Go version. JSON is
// handed over as a []byte (clickhouse-go's form), which database/sql stores into
// json.RawMessage, []byte and string. ScanValue fills a slice whose elements (or pointers to
// them) implement sql.Scanner from an Array element by element, each given the element as
// SQLValue hands it (Decimal and UUID as text, NULL as nil), and a slice of [16]byte-shaped
// arrays from Array(UUID): shopspring's []decimal.Decimal and google/uuid's []uuid.UUID fill
// without this package importing them. database/sql reaches ScanValue from Go 1.27 (the
// driver's ScanColumn), and struct fields (chnative.Select) on every Go version; before Go 1.27
// Scan takes such an array as SQLValue's []Decimal or []string.
//
// Decimal text appended to a Decimal column ("-12.345", as a string or from a Valuer) is parsed
// without big.Rat when it is plain (sign, digits, point, digits), and shopspring's
// decimal.Decimal is read by its Coefficient and Exponent; digits past the scale are rounded
// half away from zero (clickhouse-go truncates them).
//
// DateTime and DateTime64 columns without a time zone of their own return times in UTC until
// [SetLocation] (or their SetLocation method) gives them the server's zone. Nullable cannot wrap
// the geo types or Nested, as on the server.
//
// The package reads and writes fixed-width values as the bytes of Go slices and so builds only on
// little-endian CPUs.
//
// # unsafe and the purego build
//
// unsafe is used in two files only, each saying why and what it relies on: fixed_unsafe.go (the
// byte views of fixed-width columns that make Read and Write one copy and WireBytes no copy) and
// string_unsafe.go (String.UnsafeString). Built with the purego tag, their twins fixed_purego.go
// and string_purego.go do the same with encoding/binary and copies: the same bytes and values,
// slower, and WireBytes and UnsafeString then return memory of their own.
package columns
