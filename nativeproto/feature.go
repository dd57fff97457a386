package nativeproto

// Revision is a native protocol revision (ClickHouse DBMS_TCP_PROTOCOL_VERSION). The Rev*
// constants are the revisions at which a field or packet appears (src/Core/ProtocolDefines.h);
// a field gated on RevX is present when the negotiated revision is >= RevX.
type Revision uint64

// Revision gates. Names follow the DBMS_MIN_REVISION_WITH_* / DBMS_MIN_PROTOCOL_VERSION_WITH_*
// constants of ClickHouse; the ones marked historical are no longer in ProtocolDefines.h.
const (
	RevTemporaryTables              Revision = 50264 // historical: table name before every block
	RevTotalRowsInProgress          Revision = 51554 // historical: total_rows in Progress
	RevBlockInfo                    Revision = 51903 // historical: BlockInfo in Data blocks
	RevClientInfo                   Revision = 54032 // ClientInfo in Query
	RevServerTimezone               Revision = 54058 // timezone in server Hello
	RevQuotaKeyInClientInfo         Revision = 54060 // quota_key in ClientInfo
	RevTablesStatus                 Revision = 54226 // TablesStatusRequest/Response
	RevTimezoneInDateTimeType       Revision = 54337 // DateTime('tz') type names
	RevServerDisplayName            Revision = 54372 // display name in server Hello
	RevVersionPatch                 Revision = 54401 // patch in Hello and ClientInfo
	RevLowCardinality               Revision = 54405 // LowCardinality types sent as such
	RevServerLogs                   Revision = 54406 // Log packets
	RevColumnDefaults               Revision = 54410 // TableColumns packet on INSERT
	RevClientWriteInfo              Revision = 54420 // written_rows/bytes in Progress
	RevSettingsAsStrings            Revision = 54429 // settings as STRINGS_WITH_FLAGS (else BINARY)
	RevScalars                      Revision = 54429 // Scalar packets
	RevInterserverSecret            Revision = 54441 // interserver hash in Query
	RevOpenTelemetry                Revision = 54442 // trace context in ClientInfo
	RevXForwardedForInClientInfo    Revision = 54443 // forwarded_for (HTTP ClientInfo)
	RevRefererInClientInfo          Revision = 54447 // http_referer (HTTP ClientInfo)
	RevDistributedDepth             Revision = 54448 // distributed_depth in ClientInfo
	RevInitialQueryStartTime        Revision = 54449 // initial_query_start_time in ClientInfo
	RevIncrementalProfileEvents     Revision = 54451 // ProfileEvents packets during SELECT
	RevAggregateFunctionsVersioning Revision = 54452 // version in AggregateFunction type names
	RevParallelReplicas             Revision = 54453 // parallel replica fields in ClientInfo
	RevCustomSerialization          Revision = 54454 // has_custom byte per block column
	RevProfileEventsInInsert        Revision = 54456 // ProfileEvents during INSERT
	RevViewIfPermitted              Revision = 54457 // server side only
	RevAddendum                     Revision = 54458 // addendum after Hello
	RevQuotaKey                     Revision = 54458 // quota_key in the addendum
	RevParameters                   Revision = 54459 // query parameters in Query
	RevServerQueryTimeInProgress    Revision = 54460 // elapsed_ns in Progress
	RevPasswordComplexityRules      Revision = 54461 // password rules in server Hello
	RevInterserverSecretV2          Revision = 54462 // nonce in server Hello
	RevTotalBytesInProgress         Revision = 54463 // total_bytes_to_read in Progress
	RevTimezoneUpdates              Revision = 54464 // TimezoneUpdate packet
	RevSparseSerialization          Revision = 54465 // sparse columns (has_custom = 1)
	RevSSHAuthentication            Revision = 54466 // SSH challenge
	RevTableReadOnlyCheck           Revision = 54467 // is_readonly in TablesStatusResponse
	RevSystemKeywordsTable          Revision = 54468 // server side only
	RevRowsBeforeAggregation        Revision = 54469 // 2 fields in ProfileInfo
	RevChunkedPackets               Revision = 54470 // chunked caps in Hello and addendum
	RevVersionedParallelReplicas    Revision = 54471 // parallel replicas version in Hello and addendum
	RevInterserverExternalRoles     Revision = 54472 // extra roles string in Query
	RevV2DynamicAndJSON             Revision = 54473 // Dynamic/JSON serialization V2
	RevServerSettings               Revision = 54474 // settings in server Hello
	RevQueryAndLineNumbers          Revision = 54475 // script query/line numbers in ClientInfo
	RevJWTInInterserver             Revision = 54476 // has_jwt in ClientInfo
	RevQueryPlanSerialization       Revision = 54477 // query plan version in server Hello
	RevParallelBlockMarshalling     Revision = 54478 // interserver
	// RevVersionedClusterFunction: the server Hello ends with a VarUInt cluster-function
	// protocol version (DBMS_CLUSTER_PROCESSING_PROTOCOL_VERSION). Verified against 26.7
	// (revision 54488), which sends 8 there when the client revision is at least 54479 and
	// nothing below (the TCPHandler.cpp read for this package stops at 54477).
	RevVersionedClusterFunction Revision = 54479
	RevOutOfOrderBuckets        Revision = 54480 // BlockInfo field 3
	// RevCompressedLogsProfileEvents: with compression on, the blocks of Log and ProfileEvents
	// packets come compressed (their table names raw, as in Data) and so does the whole body of
	// TableColumns, table name included. All three verified against 26.7.
	RevCompressedLogsProfileEvents Revision = 54481
	RevReplicatedSerialization     Revision = 54482 // "replicated" column serialization kind
	RevNullableSparseSerialization Revision = 54483 // sparse Nullable columns
	// RevProgressInAsyncInsert: the server sends Progress packets while an asynchronous insert
	// runs. No new field: Progress keeps its layout.
	RevProgressInAsyncInsert Revision = 54484
	// RevClientAgentInClientInfo: String client_agent at the end of ClientInfo
	// (ClientInfo::write/read, verified in ClientInfo.cpp).
	RevClientAgentInClientInfo Revision = 54485
	// RevInternalQueryFlag: one byte, the is_internal flag, right after client_agent (after
	// the ClientInfo in the Query packet). The ClientInfo.cpp read for this package ends with
	// client_agent, and the TCPHandler.cpp seen is older, so the position was verified against
	// the 26.7 server: at 54486 and 54487 it accepts a Query only with exactly one byte (0, 1 or
	// 2 all accepted) between client_agent and the settings, and waits for more input without
	// it. (A third-party Rust client writes the same byte there.)
	RevInternalQueryFlag Revision = 54486
	// RevInterserverSecretTablesStatus: an interserver connection sends a cluster-secret hash
	// right after TablesStatusRequest (ProtocolDefines.h). Verified against 26.7 that a normal
	// (non-interserver) client sends nothing more at 54487 and 54488: an extra empty string there
	// is read as the next packet.
	RevInterserverSecretTablesStatus Revision = 54487
	// RevInterserverCurrentRoles: after the internal-query flag, UInt8 has_current_roles and, when
	// it is not 0, the roles as VarUInt count + that many Strings. Verified against 26.7: with the
	// flag 0 nothing follows; with 1 the server reads a count (1, then a one-byte string, was
	// accepted) before the settings.
	RevInterserverCurrentRoles Revision = 54488
)

// ClientRevision is the revision the driver advertises in the client Hello by default (the one
// place to change it): LatestRevision, since every field and encoding gated at or below it is
// implemented, the column serializations a modern server sends among them (sparse from 54465,
// replicated from 54482, sparse Nullable from 54483, Dynamic/JSON V2 from 54473: package columns
// decodes them into the same columns the default encoding fills). A connection may advertise
// less, down to OldestRevision, with the protocol_revision DSN key.
const ClientRevision = LatestRevision // 54488

// LatestRevision is the highest revision whose every packet field this package encodes and
// decodes (gates up to 54488, ClickHouse 26.7). Advertising it also lets the server send sparse
// (54465), replicated (54482) and sparse Nullable (54483) column serializations and Dynamic/JSON
// V2 (54473), all of which the block decoder handles.
const LatestRevision = RevInterserverCurrentRoles // 54488

// OldestRevision is the lowest revision a connection may advertise: that of ClickHouse 18.16,
// the oldest server the driver is tested against. Fields and packets of older revisions are
// still gated, but nothing below it is tested.
const OldestRevision Revision = 54412

// ClusterFunctionProtocolVersion is DBMS_CLUSTER_PROCESSING_PROTOCOL_VERSION of the servers the
// package was checked against (26.7 sends 8 in its Hello); fake servers in tests announce it.
const ClusterFunctionProtocolVersion = 8

// ParallelReplicasProtocolVersion is sent in the addendum at RevVersionedParallelReplicas and
// above (DBMS_PARALLEL_REPLICAS_PROTOCOL_VERSION).
const ParallelReplicasProtocolVersion = 8

// Has reports whether revision r includes the field or packet gated at feature.
func (r Revision) Has(feature Revision) bool { return r >= feature }

// Negotiate returns the revision both sides use after the handshake: min(client, server).
func Negotiate(client, server Revision) Revision { return min(client, server) }
