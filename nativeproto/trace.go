package nativeproto

import (
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// Trace is a W3C trace context, sent in ClientInfo (RevOpenTelemetry): the ids of the caller's
// trace and span, the trace flags (bit 0: sampled) and the tracestate header.
type Trace struct {
	TraceID [16]byte // in RFC (big-endian) byte order; each 8-byte half is reversed on the wire
	SpanID  [8]byte  // big-endian; sent as a UInt64 LE of these bytes
	Flags   uint8
	State   string
}

// IsValid reports whether both ids are non-zero, as W3C requires.
func (tc Trace) IsValid() bool {
	return tc.TraceID != [16]byte{} && tc.SpanID != [8]byte{}
}

// Traceparent returns the W3C traceparent header of tc: "00-<trace id>-<span id>-<flags>".
func (tc Trace) Traceparent() string {
	return fmt.Sprintf("00-%x-%x-%02x", tc.TraceID[:], tc.SpanID[:], tc.Flags)
}

// ParseTraceparent reads a W3C traceparent header and a tracestate header ("" for none).
// Versions other than 00 are read as 00 when they have its layout, as W3C asks of parsers; the
// all-zero ids and version ff are refused.
func ParseTraceparent(traceparent, tracestate string) (Trace, error) {
	var tc Trace
	fail := func(what string) (Trace, error) {
		return Trace{}, fmt.Errorf("chnative: traceparent %q: %s", traceparent, what)
	}
	s := strings.TrimSpace(traceparent)
	parts := strings.Split(s, "-")
	if len(parts) < 4 || len(parts[0]) != 2 || len(parts[1]) != 32 || len(parts[2]) != 16 || len(parts[3]) != 2 {
		return fail("want 00-<32 hex digits>-<16 hex digits>-<2 hex digits>")
	}
	if parts[0] == "00" && len(parts) != 4 {
		return fail("version 00 has four fields")
	}
	var ver, flags [1]byte
	if _, err := hex.Decode(ver[:], []byte(parts[0])); err != nil || ver[0] == 0xff || strings.ToLower(s) != s {
		return fail("bad version or upper-case hex")
	}
	for _, f := range []struct {
		name string
		dst  []byte
		src  string
	}{{"trace id", tc.TraceID[:], parts[1]}, {"span id", tc.SpanID[:], parts[2]}, {"flags", flags[:], parts[3]}} {
		if _, err := hex.Decode(f.dst, []byte(f.src)); err != nil {
			return fail(f.name + ": " + err.Error())
		}
	}
	tc.Flags = flags[0]
	if !tc.IsValid() {
		return Trace{}, errors.New("chnative: traceparent " + traceparent + ": all-zero trace or span id")
	}
	tc.State = tracestate
	return tc, nil
}
