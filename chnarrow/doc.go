// Package chnarrow reads ClickHouse results as Apache Arrow record batches and inserts record
// batches into ClickHouse tables, over chnative's native protocol connection: no HTTP, no
// ArrowStream encoding on the server, no IPC decoding on the client.
//
//	rr, err := chnarrow.Query(ctx, db, "SELECT id, name, ts FROM events WHERE day = ?", day)
//	if err != nil { ... }
//	defer rr.Release()
//	for rr.Next() {
//		rec := rr.RecordBatch() // one record per result block
//		...
//	}
//	if err := rr.Err(); err != nil { ... }
//
//	n, err := chnarrow.Insert(ctx, db, "INSERT INTO events (id, name, ts)", reader) // any array.RecordReader
//
// db is a *sql.DB of the chnative driver. QuerySQLConn and InsertSQLConn take a *sql.Conn
// (a session's temporary tables and SET), QueryConn and InsertConn a chnative.Conn inside
// sql.Conn.Raw. It is its own Go module so that chnative itself has no Arrow dependency.
//
// # Memory
//
// Each record owns its memory outright. The values of fixed-width columns (numbers, Date32,
// DateTime64 of precision 0, 3, 6 or 9, Enum, IPv4, Interval) and a String's bytes are not
// copied: the record takes the slices the driver decoded the block into (columns.Fixed.Take,
// columns.String.Take), and the driver decodes its next block into new memory. Everything else
// (offsets, validity bitmaps, widened or rescaled values, LowCardinality dictionaries) is built
// anew per record. So a record stays valid, unchanged, after the reader's next Next and after
// its Release: Retain and Release keep arrow-go's counting, and the memory is Go heap (no
// arrow memory.Allocator is used), freed by the garbage collector once no array refers to it.
//
// Query reads the result in a goroutine inside the connection's sql.Conn.Raw, one block ahead
// of the caller; the connection is held until the reader is released (Release or Close, also
// after an error), which cancels a query not read to its end.
//
// # Types
//
// Query gives each result column the Arrow type below; the ClickHouse type is in each field's
// metadata under TypeMetadataKey. Where ClickHouse's own FORMAT Arrow output differs, the last
// column says how (TestRoundTripTypes compares the values with it for every type of the
// conformance suite). Insert takes, for each ClickHouse type, the Arrow type in its line, and
// converts others where the value allows (through the column's AppendValue: integers that fit, numeric and time strings,
// time.Time from timestamps and dates, a union member as the Variant type of its name, ...),
// else fails with a *chnative.ColumnError.
//
//	ClickHouse type               Arrow type                           ClickHouse's Arrow output
//	----------------------------  -----------------------------------  -----------------------------
//	Int8 … Int64, UInt8 … UInt64  int8 … int64, uint8 … uint64         same
//	Float32, Float64              float32, float64                     same
//	BFloat16                      float32 (exact)                      binary (2 bytes)
//	Int128, UInt128               fixed_size_binary[16], little-endian same
//	Int256, UInt256               fixed_size_binary[32], little-endian same
//	Bool                          bool                                 same
//	String                        utf8 (bytes as stored, not checked)  same
//	FixedString(N)                fixed_size_binary[N]                 same
//	Date, Date32                  date32                               same
//	DateTime, DateTime('tz')      timestamp[s, tz]                     uint32
//	DateTime64(P[, 'tz'])         timestamp[s|ms|us|ns, tz]: P 0, 3,   same for P 0, 3, 6, 9
//	                              6, 9 as is; 1-2 ms, 4-5 us, 7-8 ns
//	                              (scaled)
//	Time                          duration[s]                          time32[s]
//	Time64(P)                     duration[unit of P, as DateTime64]   time32/time64 (Time64(3)
//	                                                                   fails past ±596 h)
//	IntervalNanosecond … Second   duration[ns|us|ms|s]                 same
//	IntervalMinute … Year         int64 (count of the unit)            same
//	Decimal(P, S), P <= 38        decimal128(P, S)                     same
//	Decimal(P, S), P > 38         decimal256(P, S)                     same
//	UUID                          arrow.uuid extension (fixed_size_    fixed_size_binary[16]
//	                              binary[16], RFC 4122 byte order)
//	IPv4                          uint32 (127.0.0.1 = 0x7f000001)      same
//	IPv6                          fixed_size_binary[16], network order same
//	Enum8, Enum16                 int8, int16 (the enum's numbers;     same
//	                              names in the metadata's type)
//	Nullable(T)                   T's type, validity bitmap            same
//	Nothing, Nullable(Nothing)    null                                 same
//	Array(T)                      list<T>                              same
//	Nested(a T, ...)              list<struct<a: T, ...>>              same
//	Tuple(T1, ...)                struct<1: T1, ...> (names of a       same
//	                              named Tuple)
//	Map(K, V)                     map<K, V>                            same
//	LowCardinality(T)             dictionary<uint32, T> (one           T (unless asked)
//	                              dictionary per record)
//	SimpleAggregateFunction(f, T) T's type                             same
//	Point, Ring, LineString, ...  struct<1: float64, 2: float64> in    same
//	                              0 to 3 lists (their storage)
//	JSON                          utf8 (JSON text)                     same
//	Variant(T1, ...)              dense_union<T1: T1's type, ...,      same
//	                              NULL: null>, members named by type
//	QBit(T, D)                    fixed_size_list<T, D>, the vectors   fails
//	                              detransposed (BFloat16 as float32)
//	Dynamic                       refused: *UnsupportedTypeError       utf8 text
//	                              (select toString(v), or
//	                              dynamicElement(v, 'T') per type)
//
// Strings and lists in one record are limited to Arrow's 32-bit offsets (2 GiB of string bytes,
// 2^31-1 elements); a bigger block fails with a *LimitError naming the column (a smaller
// max_block_size avoids it: chnative.WithBlockSize).
//
// # Inserts
//
// Insert matches record fields to the insert's columns by name (all of them), else by position
// (same count), and sends a block every InsertBlockRows rows or InsertBlockBytes bytes (after
// the record that reaches either).
// A NULL into a column that is not Nullable and a value the column refuses end the insert with a
// *chnative.ColumnError naming the column, its type and the row, counted from 0 over all the
// records; the insert is cancelled, and the blocks sent before are the server's to keep or drop
// (see chnative.Batch). Map values arrive as Go maps, so a map's entries are inserted in key
// order and duplicate keys collapse.
package chnarrow
