package nativeproto

import "strconv"

// ClientCode is the code of a packet the client sends (Protocol::Client in Core/Protocol.h).
type ClientCode uint64

// Client packet codes.
const (
	ClientCodeHello                                  ClientCode = 0  // Hello
	ClientCodeQuery                                  ClientCode = 1  // query id, client info, settings, SQL
	ClientCodeData                                   ClientCode = 2  // table name + block
	ClientCodeCancel                                 ClientCode = 3  // cancel the running query
	ClientCodePing                                   ClientCode = 4  // server answers Pong
	ClientCodeTablesStatusRequest                    ClientCode = 5  // replica delays of tables
	ClientCodeKeepAlive                              ClientCode = 6  // no body
	ClientCodeScalar                                 ClientCode = 7  // like Data: scalar subquery result
	ClientCodeIgnoredPartUUIDs                       ClientCode = 8  // obsolete
	ClientCodeReadTaskResponse                       ClientCode = 9  // interserver
	ClientCodeMergeTreeReadTaskResponse              ClientCode = 10 // parallel replicas
	ClientCodeSSHChallengeRequest                    ClientCode = 11 // no body
	ClientCodeSSHChallengeResponse                   ClientCode = 12 // String signature
	ClientCodeQueryPlan                              ClientCode = 13 // interserver
	ClientCodeMergeTreeAllRangesAnnouncementResponse ClientCode = 14 // interserver
)

var clientCodeNames = [...]string{
	"Hello", "Query", "Data", "Cancel", "Ping", "TablesStatusRequest", "KeepAlive", "Scalar",
	"IgnoredPartUUIDs", "ReadTaskResponse", "MergeTreeReadTaskResponse", "SSHChallengeRequest",
	"SSHChallengeResponse", "QueryPlan", "MergeTreeAllRangesAnnouncementResponse",
}

// String returns the packet name, or "ClientCode(N)" for an unknown code.
func (c ClientCode) String() string {
	if c < ClientCode(len(clientCodeNames)) {
		return clientCodeNames[c]
	}
	return "ClientCode(" + strconv.FormatUint(uint64(c), 10) + ")"
}

// ServerCode is the code of a packet the server sends (Protocol::Server in Core/Protocol.h).
type ServerCode uint64

// Server packet codes.
const (
	ServerCodeHello                          ServerCode = 0  // Hello
	ServerCodeData                           ServerCode = 1  // table name + block
	ServerCodeException                      ServerCode = 2  // error, ends the query
	ServerCodeProgress                       ServerCode = 3  // progress delta
	ServerCodePong                           ServerCode = 4  // answer to Ping
	ServerCodeEndOfStream                    ServerCode = 5  // the query is finished
	ServerCodeProfileInfo                    ServerCode = 6  // rows/blocks/bytes statistics
	ServerCodeTotals                         ServerCode = 7  // like Data: WITH TOTALS row
	ServerCodeExtremes                       ServerCode = 8  // like Data: extremes
	ServerCodeTablesStatusResponse           ServerCode = 9  // answer to TablesStatusRequest
	ServerCodeLog                            ServerCode = 10 // table name + block of server log lines
	ServerCodeTableColumns                   ServerCode = 11 // column descriptions on INSERT
	ServerCodePartUUIDs                      ServerCode = 12 // obsolete
	ServerCodeReadTaskRequest                ServerCode = 13 // interserver, no body
	ServerCodeProfileEvents                  ServerCode = 14 // table name + block of profile events
	ServerCodeMergeTreeAllRangesAnnouncement ServerCode = 15 // parallel replicas
	ServerCodeMergeTreeReadTaskRequest       ServerCode = 16 // parallel replicas
	ServerCodeTimezoneUpdate                 ServerCode = 17 // String session timezone
	ServerCodeSSHChallenge                   ServerCode = 18 // String challenge
	ServerCodePreviewData                    ServerCode = 19 // like Data: preview of the result
)

// maxServerCode is the highest server packet code the package knows.
const maxServerCode = ServerCodePreviewData

var serverCodeNames = [...]string{
	"Hello", "Data", "Exception", "Progress", "Pong", "EndOfStream", "ProfileInfo", "Totals",
	"Extremes", "TablesStatusResponse", "Log", "TableColumns", "PartUUIDs", "ReadTaskRequest",
	"ProfileEvents", "MergeTreeAllRangesAnnouncement", "MergeTreeReadTaskRequest",
	"TimezoneUpdate", "SSHChallenge", "PreviewData",
}

// String returns the packet name, or "ServerCode(N)" for an unknown code.
func (c ServerCode) String() string {
	if c < ServerCode(len(serverCodeNames)) {
		return serverCodeNames[c]
	}
	return "ServerCode(" + strconv.FormatUint(uint64(c), 10) + ")"
}

// IsBlock reports whether packets with code c carry a table name and a block: Data, Totals,
// Extremes, Log, ProfileEvents, PreviewData.
func (c ServerCode) IsBlock() bool {
	switch c {
	case ServerCodeData, ServerCodeTotals, ServerCodeExtremes, ServerCodeLog, ServerCodeProfileEvents, ServerCodePreviewData:
		return true
	}
	return false
}
