package columns

import "github.com/chnative/chnative/internal/wire"

// Writer accumulates the ClickHouse binary encoding of values in a byte slice; columns encode into
// it and the protocol layer then sends (or compresses) Buf. The zero value is ready to use. It
// lives in internal/wire, below this package and nativeproto, which share it.
type Writer = wire.Writer

// WireByteser is implemented by columns whose encoding (after the state prefix) is exactly their
// memory, such as the fixed-width numbers: WireBytes returns it without copying, valid until the
// column is next changed.
type WireByteser interface {
	WireBytes() []byte
}
