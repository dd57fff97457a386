package columns

import (
	"reflect"
	"strconv"
	"strings"
	"time"
)

// Date is a column of Date: days since 1970-01-01 as UInt16. Values are borrowed as []uint16.
type Date struct{ Fixed[uint16] }

// NewDate returns an empty Date column.
func NewDate() *Date { return &Date{Fixed[uint16]{name: "Date"}} }

// Time returns row i as midnight UTC of its day.
func (c *Date) Time(i int) time.Time { return time.Unix(int64(c.data[i])*86400, 0).UTC() }

// Value returns row i as a time.Time at midnight UTC.
func (c *Date) Value(i int) any { return c.Time(i) }

func (c *Date) sliceValue(lo, hi int) any { return genericSlice(c, lo, hi) }

// ScanType returns time.Time.
func (c *Date) ScanType() reflect.Type { return reflect.TypeFor[time.Time]() }

// AppendTime appends the calendar day of t (in t's own location).
func (c *Date) AppendTime(t time.Time) error {
	d, err := daysOf(c, t, 0, 65535)
	if err != nil {
		return err
	}
	c.data = append(c.data, uint16(d))
	return nil
}

// AppendValue appends a time.Time (its calendar day), a "2006-01-02" string, or a day number.
func (c *Date) AppendValue(v any) error {
	t, ok, err := timeArg(c, v)
	if err != nil {
		return err
	}
	if ok {
		return c.AppendTime(t)
	}
	return c.Fixed.AppendValue(v)
}

// daysOf returns the day number of t's calendar date, checked against [lo, hi].
func daysOf(col Column, t time.Time, lo, hi int64) (int64, error) {
	y, m, d := t.Date()
	days := time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() / 86400
	if days < lo || days > hi {
		return 0, mismatch(col, t, "date out of range")
	}
	return days, nil
}

// timeArg recognises time.Time values and date/time strings.
func timeArg(col Column, v any) (time.Time, bool, error) {
	x, isNil, err := deref(v)
	if err != nil {
		return time.Time{}, false, err
	}
	if isNil {
		return time.Time{}, false, mismatch(col, nil, "NULL in a non-Nullable column")
	}
	switch t := x.(type) {
	case time.Time:
		return t, true, nil
	case string:
		for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05.999999999", "2006-01-02"} {
			if p, err := time.ParseInLocation(layout, t, time.UTC); err == nil {
				return p, true, nil
			}
		}
		return time.Time{}, false, mismatch(col, t, "not a date or time")
	}
	return time.Time{}, false, nil
}

// DateTime is a column of DateTime or DateTime('tz'): Unix seconds as UInt32. Values are borrowed as
// []uint32.
type DateTime struct {
	Fixed[uint32]
	tz  string
	loc *time.Location
}

// NewDateTime returns an empty DateTime column; tz "" means the type carries no time zone (values
// are then shown in UTC unless the caller sets a location with SetLocation).
func NewDateTime(tz string) (*DateTime, error) {
	c := &DateTime{tz: tz, loc: time.UTC}
	c.name = c.Type()
	if tz != "" {
		loc, err := time.LoadLocation(tz)
		if err != nil {
			return nil, &TypeMismatchError{Column: "DateTime(" + strconv.Quote(tz) + ")", GoType: "time zone", Reason: err.Error()}
		}
		c.loc = loc
	}
	return c, nil
}

// Type returns "DateTime" or "DateTime('tz')".
func (c *DateTime) Type() string {
	if c.tz == "" {
		return "DateTime"
	}
	return "DateTime(" + quoteString(c.tz) + ")"
}

// Location returns the location values are returned in.
func (c *DateTime) Location() *time.Location { return c.loc }

// SetLocation sets the location of returned times for a DateTime without its own time zone (the
// driver uses the server's time zone).
func (c *DateTime) SetLocation(loc *time.Location) {
	if c.tz == "" && loc != nil {
		c.loc = loc
	}
}

// Time returns row i in the column's location.
func (c *DateTime) Time(i int) time.Time { return time.Unix(int64(c.data[i]), 0).In(c.loc) }

// Value returns row i as a time.Time in the column's location.
func (c *DateTime) Value(i int) any { return c.Time(i) }

func (c *DateTime) sliceValue(lo, hi int) any { return genericSlice(c, lo, hi) }

// ScanType returns time.Time.
func (c *DateTime) ScanType() reflect.Type { return reflect.TypeFor[time.Time]() }

// AppendTime appends t, which must be within 1970-01-01 .. 2106-02-07 UTC.
func (c *DateTime) AppendTime(t time.Time) error {
	s := t.Unix()
	if s < 0 || s > 1<<32-1 {
		return mismatch(c, t, "time out of range")
	}
	c.data = append(c.data, uint32(s))
	return nil
}

// AppendValue appends a time.Time, a time string (RFC 3339 or "2006-01-02 15:04:05", in the
// column's location when it has no offset), or Unix seconds.
func (c *DateTime) AppendValue(v any) error {
	x, isNil, err := deref(v)
	if err != nil {
		return err
	}
	if isNil {
		return mismatch(c, nil, "NULL in a non-Nullable column")
	}
	if s, ok := x.(string); ok {
		for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05", "2006-01-02"} {
			if p, err := time.ParseInLocation(layout, s, c.loc); err == nil {
				return c.AppendTime(p)
			}
		}
		return mismatch(c, v, "not a time")
	}
	t, ok, err := timeArg(c, x)
	if err != nil {
		return err
	}
	if ok {
		return c.AppendTime(t)
	}
	return c.Fixed.AppendValue(v)
}

// quoteString single-quotes s with ClickHouse's escapes, as the server writes names in types.
func quoteString(s string) string {
	var b strings.Builder
	tnWriteQuoted(&b, s, '\'')
	return b.String()
}
