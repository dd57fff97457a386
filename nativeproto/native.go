package nativeproto

import (
	"io"

	"github.com/chnative/chnative/internal/wire"
)

// NativeReader reads blocks of the Native format (FORMAT Native, clickhouse-local dumps): blocks
// without BlockInfo and without serialization-kind bytes, one after another until the end of the
// input.
type NativeReader struct {
	r       *wire.Reader
	block   *Block
	scratch []byte
}

// NewNativeReader returns a NativeReader reading from r.
func NewNativeReader(r io.Reader) *NativeReader {
	return &NativeReader{r: wire.NewReader(r)}
}

// Next decodes the next block. It returns io.EOF when the input ends cleanly between blocks.
//
// The returned block and its columns are reused by the next call: their contents are valid only
// until then. Copy what must outlive it.
func (n *NativeReader) Next() (*Block, error) {
	b, err := readBlock(n.r, 0, false, n.block, &n.scratch)
	n.block = b
	if err != nil {
		return nil, err
	}
	return b, nil
}

// NativeWriter writes blocks in the Native format.
type NativeWriter struct {
	w   io.Writer
	buf wire.Writer
}

// NewNativeWriter returns a NativeWriter writing to w.
func NewNativeWriter(w io.Writer) *NativeWriter {
	return &NativeWriter{w: w}
}

// Write encodes b and writes it to the underlying writer.
func (n *NativeWriter) Write(b *Block) error {
	n.buf.Reset()
	if err := WriteBlock(&n.buf, 0, false, b); err != nil {
		return err
	}
	_, err := n.w.Write(n.buf.Buf)
	return err
}
