package wire

import (
	"bytes"
	"testing"
)

// decodeAll reads data as a sequence of values chosen by each value's first byte, and returns a
// transcript of what was read and the error that stopped it.
func decodeAll(r *Reader) ([]any, error) {
	var out []any
	for {
		op, err := r.Byte()
		if err != nil {
			return out, err
		}
		var v any
		switch op % 8 {
		case 0:
			v, err = r.UVarInt()
		case 1:
			v, err = r.Bool()
		case 2:
			v, err = r.Uint16()
		case 3:
			v, err = r.Uint32()
		case 4:
			v, err = r.Uint64()
		case 5:
			v, err = r.String("s", 1<<10)
		case 6:
			v, err = r.Count("n", 100)
		case 7:
			err = r.Skip(int(op>>3) + 1)
		}
		if err != nil {
			return out, err
		}
		out = append(out, v)
	}
}

// Every kind of Reader decodes any input to the same values and the same error, without panics,
// and never writes into the caller's slice.
func FuzzReader(f *testing.F) {
	f.Add([]byte{0, 0x80, 0x01, 5, 3, 'a', 'b', 'c', 1, 1})
	f.Add([]byte{5, 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Add([]byte{6, 101, 7, 4, 1, 2, 3, 4, 5, 6, 7, 8})
	f.Add([]byte{0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02})
	f.Fuzz(func(t *testing.T, data []byte) {
		keep := bytes.Clone(data)
		want, wantErr := decodeAll(NewBytesReader(data))
		if !bytes.Equal(data, keep) {
			t.Fatal("bytes Reader wrote into its input")
		}
		for _, rk := range readerKinds[1:] {
			got, err := decodeAll(rk.new(data))
			if len(got) != len(want) || (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
				t.Fatalf("%s: %d values, %v; bytes Reader: %d values, %v", rk.name, len(got), err, len(want), wantErr)
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("%s: value %d = %v, bytes Reader %v", rk.name, i, got[i], want[i])
				}
			}
		}
	})
}
