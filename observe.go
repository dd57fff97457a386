package chnative

import "github.com/chnative/chnative/internal/chconn"

// Observer receives the events of a Connector's connections: each query and insert (QueryStart,
// QueryEnd with its id, statement kind, rows, bytes, blocks, server time and error), each
// connection opened, returned to the pool with the memory it keeps, and closed, and each retry.
// Set it on Connector.Observer; nil (the default) costs nothing. The debug log goes through the
// same hook. Methods must be safe for concurrent use and must not use the connection; an event
// is valid during the call only. The otelchnative module implements it with OpenTelemetry.
type Observer = chconn.Observer

// QueryEvent, ConnEvent and RetryEvent are what an Observer is given (see their fields).
type (
	QueryEvent = chconn.QueryEvent
	ConnEvent  = chconn.ConnEvent
	RetryEvent = chconn.RetryEvent
)

// AuthError reports credentials that could not be used before anything was sent (field
// Method: "jwt", "ssh_key" or "tls_cert"; Err): GetJWT failed, a key or certificate file cannot
// be read or decrypted, a protocol_revision too old for SSH keys.
type AuthError = chconn.AuthError
