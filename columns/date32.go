package columns

import (
	"reflect"
	"time"
)

// The range of Date32: 1900-01-01 .. 2299-12-31, as days since 1970-01-01.
const (
	Date32Min = -25567 // 1900-01-01
	Date32Max = 120529 // 2299-12-31
)

// Date32 is a column of Date32: days since 1970-01-01 as Int32, 1900-01-01 .. 2299-12-31. Values are
// borrowed as []int32; Append appends a raw day number.
type Date32 struct {
	Fixed[int32]
	loc *time.Location // SetDateLocation's; nil: UTC
}

// NewDate32 returns an empty Date32 column.
func NewDate32() *Date32 { return &Date32{Fixed: Fixed[int32]{name: "Date32"}} }

// Time returns row i as midnight UTC of its day, or midnight in the location SetDateLocation set.
func (c *Date32) Time(i int) time.Time { return dayTime(int64(c.data[i]), c.loc) }

// SetDateLocation makes Time and Value return midnight in loc (nil: UTC) of each day.
func (c *Date32) SetDateLocation(loc *time.Location) { c.loc = loc }

// Value returns row i as a time.Time at midnight UTC (see Time).
func (c *Date32) Value(i int) any { return c.Time(i) }

func (c *Date32) sliceValue(lo, hi int) any {
	out := make([]time.Time, hi-lo)
	for j := range out {
		out[j] = c.Time(lo + j)
	}
	return out
}

// ScanType returns time.Time.
func (c *Date32) ScanType() reflect.Type { return reflect.TypeFor[time.Time]() }

// AppendTime appends the calendar day of t (in t's own location), which must be within
// 1900-01-01 .. 2299-12-31. The zero time.Time is the epoch, day 0 (as clickhouse-go writes it).
func (c *Date32) AppendTime(t time.Time) error {
	if t.IsZero() {
		c.data = append(c.data, 0)
		return nil
	}
	d, err := daysOf(c, t, Date32Min, Date32Max)
	if err != nil {
		return err
	}
	c.data = append(c.data, int32(d))
	return nil
}

// AppendValue appends a time.Time (its calendar day), a "2006-01-02" string, the text of a
// fmt.Stringer or encoding.TextMarshaler in that form, or a day number within the Date32 range.
func (c *Date32) AppendValue(v any) error {
	if t, ok := v.(time.Time); ok {
		return c.AppendTime(t)
	}
	t, ok, err := timeArg(c, v, time.UTC, dateLayouts)
	if err != nil {
		return err
	}
	if ok {
		return c.AppendTime(t)
	}
	d, err := convertNum[int32](c, v)
	if err != nil {
		return err
	}
	if d < Date32Min || d > Date32Max {
		return mismatch(c, v, "date out of range")
	}
	c.data = append(c.data, d)
	return nil
}
