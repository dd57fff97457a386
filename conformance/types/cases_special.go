package types

// specialCases: Interval*, SimpleAggregateFunction, QBit.
func specialCases() []Case {
	iv := func(unit string) Case {
		return c("Interval"+unit, "0", "1", "-1", "9223372036854775807", "-9223372036854775808").
			noServer("18.16 cannot store Interval in a table")
	}
	return []Case{
		iv("Nanosecond"), iv("Microsecond"), iv("Millisecond"), iv("Second"), iv("Minute"), iv("Hour"),
		iv("Day"), iv("Week"), iv("Month"), iv("Quarter"), iv("Year"),
		c("SimpleAggregateFunction(sum, UInt64)", "0", "1", "18446744073709551615"),
		c("SimpleAggregateFunction(anyLast, Nullable(String))", "NULL", "''", "'x'"),
		c("QBit(Float32, 3)", "[0, 0, 0]", "[1, -2.5, 3]", "[nan, inf, -0.]"),
		c("QBit(Float64, 9)", "[1, 2, 3, 4, 5, 6, 7, 8, 9]", "[-1e100, 0.1, 0, 0, 0, 0, 0, 0, 5e-324]"),
		c("QBit(BFloat16, 16)", "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]",
			"[-1.5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.5]"),
	}
}
