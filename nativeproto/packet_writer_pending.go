package nativeproto

// PendingLen returns the number of bytes Flush would write now: the buffer and the column data
// borrowed by WriteDataStream.
func (p *PacketWriter) PendingLen() int {
	n := len(p.buf.Buf)
	for _, s := range p.borrowed {
		n += len(s.data)
	}
	return n
}

// AppendPending appends to dst the bytes Flush would write now, in the order it writes them
// (borrowed column data copied in place), and returns the extended slice; the pending bytes stay
// pending. A caller that keeps a copy of one packet calls it when the buffer holds that packet
// alone (after a Flush, before the next packet). The returned slice is the caller's.
func (p *PacketWriter) AppendPending(dst []byte) []byte {
	prev := 0
	for _, s := range p.borrowed {
		dst = append(dst, p.buf.Buf[prev:s.at]...)
		dst = append(dst, s.data...)
		prev = s.at
	}
	return append(dst, p.buf.Buf[prev:]...)
}

// WriteRawBorrowed queues data, bytes of whole packets encoded before (kept copies of earlier
// Data packets, sent again as they are), to go out after the pending bytes. Flush writes it from
// data's own memory, which must not change until then.
func (p *PacketWriter) WriteRawBorrowed(data []byte) {
	if len(data) > 0 {
		p.borrowed = append(p.borrowed, borrowedSeg{at: len(p.buf.Buf), data: data})
	}
}
