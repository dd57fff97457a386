package columns

// Appending without conversion: a column whose common Go value types go straight in implements
// fastAppender, and the driver asks [AppendFast] before AppendValue's conversions.

// fastAppender is a column that appends values of its own Go type without conversion. outer is
// the column asked (see exact).
type fastAppender interface {
	appendFast(outer Column, v any) bool
}

// AppendFast appends v to c when v has the exact Go type c stores (uint64 to UInt64, string and
// []byte to String, ...: the plain numeric columns and String), reporting false, with nothing
// appended, otherwise: the caller then calls c.AppendValue(v), which converts. What it appends is
// what AppendValue would.
func AppendFast(c Column, v any) bool {
	if a, ok := c.(fastAppender); ok {
		return a.appendFast(c, v)
	}
	return false
}

func (c *Fixed[T]) appendFast(outer Column, v any) bool {
	if x, ok := v.(T); ok && c.exact(outer) {
		c.data = append(c.data, x)
		return true
	}
	return false
}

func (c *String) appendFast(outer Column, v any) bool {
	if outer != Column(c) {
		return false
	}
	switch x := v.(type) {
	case string:
		c.Append(x)
		return true
	case []byte:
		c.AppendBytes(x)
		return true
	}
	return false
}
