package columns

import (
	"io"

	"github.com/chnative/chnative/internal/wire"
)

// The byte reader lives in internal/wire, below this package and nativeproto, which share it.
// Columns decode from a *Reader (see Column), so the public API names it here: each name below
// denotes the same type, value or function as internal/wire's.

// DefaultReaderSize is the buffer size of a Reader made by NewReader. It lives in internal/wire.
const DefaultReaderSize = wire.DefaultReaderSize

// MaxStringSize caps the length of one String value a Reader accepts (1 GiB, as the server's own
// cap). It lives in internal/wire.
const MaxStringSize = wire.MaxStringSize

// MinReaderSize is the smallest buffer NewReaderSize uses: every fixed-width value the package
// reads with Next or Peek fits in it. It lives in internal/wire.
const MinReaderSize = wire.MinReaderSize

// ErrShortBuffer wraps io.ErrUnexpectedEOF: the input ended inside a value. It lives in
// internal/wire.
var ErrShortBuffer = wire.ErrShortBuffer

// Reader is a buffered little-endian reader of the ClickHouse binary encodings (varints,
// fixed-width integers, length-prefixed strings); columns decode from it. It is not safe for
// concurrent use. It lives in internal/wire, whose package doc describes its ownership rules.
type Reader = wire.Reader

// LimitError reports a count or length read from the input that exceeds a cap. It lives in
// internal/wire.
type LimitError = wire.LimitError

// NewReader returns a Reader over src with a DefaultReaderSize buffer. It lives in internal/wire.
func NewReader(src io.Reader) *Reader { return wire.NewReader(src) }

// NewReaderSize returns a Reader over src with a buffer of size bytes (at least MinReaderSize).
// It lives in internal/wire.
func NewReaderSize(src io.Reader, size int) *Reader { return wire.NewReaderSize(src, size) }

// NewBytesReader returns a Reader over b, reading b in place: strings returned as borrowed bytes
// point into b. It lives in internal/wire.
func NewBytesReader(b []byte) *Reader { return wire.NewBytesReader(b) }

// unexpected turns io.EOF into io.ErrUnexpectedEOF: inside a value the end of input is never clean.
func unexpected(err error) error { return wire.Unexpected(err) }
