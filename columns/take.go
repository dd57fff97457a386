package columns

// Take returns the values and leaves the column empty without them: the slice is the caller's
// (the column keeps no reference to it), and the next Read or Append allocates anew. It hands a
// decoded block's memory to another owner, such as an Arrow record, without a copy; the types
// built on Fixed (Date, DateTime, DateTime64, Decimal32, Decimal64, Enum, IPv4, ...) have it too.
func (c *Fixed[T]) Take() []T {
	d := c.data
	c.data = nil
	return d
}

// Take returns the byte arena and the end offsets (the value i is buf[ends[i-1]:ends[i]]) and
// leaves the column empty without them, as Fixed.Take does: both slices are the caller's.
func (c *String) Take() (buf []byte, ends []int) {
	buf, ends = c.buf, c.ends
	c.buf, c.ends = nil, nil
	return buf, ends
}
