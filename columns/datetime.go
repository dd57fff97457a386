package columns

import (
	"reflect"
	"strconv"
	"strings"
	"time"
)

// Date is a column of Date: days since 1970-01-01 as UInt16. Values are borrowed as []uint16.
type Date struct {
	Fixed[uint16]
	loc *time.Location // SetDateLocation's; nil: UTC
}

// NewDate returns an empty Date column.
func NewDate() *Date { return &Date{Fixed: Fixed[uint16]{name: "Date"}} }

// Time returns row i as midnight UTC of its day, or midnight in the location SetDateLocation set.
func (c *Date) Time(i int) time.Time { return dayTime(int64(c.data[i]), c.loc) }

// SetDateLocation makes Time and Value return midnight in loc (nil: UTC) of each day, as
// clickhouse-go does under WithUserLocation.
func (c *Date) SetDateLocation(loc *time.Location) { c.loc = loc }

// dayTime returns midnight of day (days since 1970-01-01) in loc (nil: UTC).
func dayTime(day int64, loc *time.Location) time.Time {
	t := time.Unix(day*86400, 0).UTC()
	if loc == nil || loc == time.UTC {
		return t
	}
	y, m, d := t.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, loc)
}

// Value returns row i as a time.Time at midnight UTC (see Time).
func (c *Date) Value(i int) any { return c.Time(i) }

func (c *Date) sliceValue(lo, hi int) any { return genericSlice(c, lo, hi) }

// ScanType returns time.Time.
func (c *Date) ScanType() reflect.Type { return reflect.TypeFor[time.Time]() }

// AppendTime appends the calendar day of t (in t's own location). The zero time.Time is the
// epoch, day 0 (as clickhouse-go writes it); other days outside 1970-01-01 .. 2149-06-06 are an
// error.
func (c *Date) AppendTime(t time.Time) error {
	if t.IsZero() {
		c.data = append(c.data, 0)
		return nil
	}
	d, err := daysOf(c, t, 0, 65535)
	if err != nil {
		return err
	}
	c.data = append(c.data, uint16(d))
	return nil
}

// AppendValue appends a time.Time (its calendar day), a "2006-01-02" string, the text of a
// fmt.Stringer or encoding.TextMarshaler in that form, or a day number.
func (c *Date) AppendValue(v any) error {
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

// The layouts of time strings: the date columns, DateTime, DateTime64 (a fraction of up to 9
// digits).
var (
	dateLayouts       = []string{time.RFC3339Nano, "2006-01-02 15:04:05.999999999", "2006-01-02"}
	dateTimeLayouts   = []string{time.RFC3339Nano, "2006-01-02 15:04:05", "2006-01-02"}
	dateTime64Layouts = dateLayouts
)

// timeArg recognises time.Time values, time strings in one of layouts (in loc when they carry no
// offset), and the text of a fmt.Stringer or encoding.TextMarshaler that is not a number (as
// clickhouse-go takes a Stringer into its date and time columns): ok is false for anything else,
// which the caller takes as a number.
func timeArg(col Column, v any, loc *time.Location, layouts []string) (time.Time, bool, error) {
	x, isNil, err := derefWith(v, nil, isTextualNotNumber)
	if err != nil {
		return time.Time{}, false, err
	}
	if isNil {
		return time.Time{}, false, mismatch(col, nil, "NULL in a non-Nullable column")
	}
	if t, ok := x.(time.Time); ok {
		return t, true, nil
	}
	s, ok := x.(string)
	if !ok {
		if !isTextualNotNumber(x) {
			return time.Time{}, false, nil
		}
		text, isText, err := textOf(x)
		if err != nil {
			return time.Time{}, false, mismatch(col, x, err.Error())
		}
		if !isText {
			return time.Time{}, false, nil
		}
		s = text
	}
	for _, layout := range layouts {
		if p, err := time.ParseInLocation(layout, s, loc); err == nil {
			return p, true, nil
		}
	}
	if _, isString := x.(string); isString {
		return time.Time{}, false, mismatch(col, x, "not a date or time")
	}
	return time.Time{}, false, mismatch(col, x, textReason(x, s, "a date or time"))
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

// AppendTime appends t, which must be within 1970-01-01 .. 2106-02-07 UTC. The zero time.Time is
// the epoch, 0 (as clickhouse-go writes it); other times out of range are an error.
func (c *DateTime) AppendTime(t time.Time) error {
	if t.IsZero() {
		c.data = append(c.data, 0)
		return nil
	}
	s := t.Unix()
	if s < 0 || s > 1<<32-1 {
		return mismatch(c, t, "time out of range")
	}
	c.data = append(c.data, uint32(s))
	return nil
}

// AppendValue appends a time.Time, a time string (RFC 3339 or "2006-01-02 15:04:05", in the
// column's location when it has no offset) or the text of a fmt.Stringer or
// encoding.TextMarshaler in those forms, or Unix seconds.
func (c *DateTime) AppendValue(v any) error {
	if t, ok := v.(time.Time); ok {
		return c.AppendTime(t)
	}
	t, ok, err := timeArg(c, v, c.loc, dateTimeLayouts)
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
