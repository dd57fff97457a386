package nativeproto

import "strings"

// Chunked packets (RevChunkedPackets).
//
// From revision 54470 both sides may frame every message as chunks (UInt32 size + bytes, a zero
// size ending the message). The server Hello carries its capabilities for each direction,
// proto_caps.send and proto_caps.recv of its configuration: "chunked" or "notchunked", strict, or
// with "_optional" (the client's choice wins). The client answers in the addendum with
// "chunked" or "notchunked" for what it sends and what it receives; a strict server capability
// the client does not match fails the connection on the server ("Incompatible protocol").
//
// Design: this package declines chunked framing. Its addendum always asks for "notchunked" in
// both directions (the servers' default is strict "notchunked"), and a server that strictly
// requires "chunked" in either direction is refused by CheckNotChunked before the addendum is
// sent, with an error naming the server setting, instead of a connection the server would drop.
// Chunks add nothing over TCP for a client that reads whole packets; implementing them means a
// framing layer under both the packet reader and the packet writer, which no tested server
// needs.

// Chunked capability strings of the server Hello and the addendum.
const (
	ChunkedOn  = "chunked"
	ChunkedOff = "notchunked"
)

// ChunkedDirection resolves one direction of the chunked negotiation as the server does:
// serverCaps is the server's capability for it, clientChunked what the client asks for. It
// returns whether the direction is chunked, or false when the strict server capability and the
// client's request disagree (ok false).
func ChunkedDirection(serverCaps string, clientChunked bool) (chunked, ok bool) {
	srv := strings.HasPrefix(serverCaps, ChunkedOn)
	if strings.HasSuffix(serverCaps, "_optional") {
		return clientChunked, true
	}
	return srv, srv == clientChunked
}

// CheckNotChunked returns a *ProtocolError when the server Hello h, decoded for negotiated
// revision rev, strictly requires chunked packets in a direction: the connection cannot go on,
// since this package sends and reads only unchunked packets. Below RevChunkedPackets, and for
// servers that allow or require "notchunked", it returns nil.
func CheckNotChunked(h *ServerHello, rev Revision) error {
	if !rev.Has(RevChunkedPackets) {
		return nil
	}
	if _, ok := ChunkedDirection(h.ChunkedSend, false); !ok {
		return protoErr("the server requires chunked packets for what it sends (proto_caps.send = %q); chnative does not implement chunked framing: set proto_caps.send to notchunked, notchunked_optional or chunked_optional on the server", h.ChunkedSend)
	}
	if _, ok := ChunkedDirection(h.ChunkedRecv, false); !ok {
		return protoErr("the server requires chunked packets for what it receives (proto_caps.recv = %q); chnative does not implement chunked framing: set proto_caps.recv to notchunked, notchunked_optional or chunked_optional on the server", h.ChunkedRecv)
	}
	return nil
}
