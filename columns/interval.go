package columns

import (
	"strings"
	"time"
)

// intervalUnits maps each Interval kind to its length, 0 for the calendar kinds (Month, Quarter,
// Year) that have no fixed length.
var intervalUnits = map[string]time.Duration{
	"Nanosecond": time.Nanosecond, "Microsecond": time.Microsecond, "Millisecond": time.Millisecond,
	"Second": time.Second, "Minute": time.Minute, "Hour": time.Hour, "Day": 24 * time.Hour,
	"Week": 7 * 24 * time.Hour, "Month": 0, "Quarter": 0, "Year": 0,
}

// Interval is a column of IntervalNanosecond … IntervalYear: a signed count of the kind's unit as
// Int64. Value returns that count as int64 (not a time.Duration: months and years have no fixed
// length); Values are borrowed as []int64. Type keeps the kind ("IntervalDay").
type Interval struct {
	Fixed[int64]
	unit time.Duration // 0 for Month, Quarter, Year
}

// NewInterval returns an empty column of Interval<kind>, kind one of Nanosecond, Microsecond,
// Millisecond, Second, Minute, Hour, Day, Week, Month, Quarter, Year; ok is false for another kind.
func NewInterval(kind string) (c *Interval, ok bool) {
	unit, ok := intervalUnits[kind]
	if !ok {
		return nil, false
	}
	return &Interval{Fixed[int64]{name: "Interval" + kind}, unit}, true
}

// Kind returns the unit's name, such as "Second".
func (c *Interval) Kind() string { return strings.TrimPrefix(c.name, "Interval") }

// AppendValue appends a count of units (any Go integer, integral float or numeric string that fits
// an Int64) or, for the kinds of fixed length (Nanosecond … Week), a time.Duration that is a whole
// number of units.
func (c *Interval) AppendValue(v any) error {
	d, ok := v.(time.Duration)
	if !ok {
		x, isNil, err := deref(v)
		if err != nil {
			return err
		}
		if !isNil {
			d, ok = x.(time.Duration)
		}
	}
	if !ok {
		return c.Fixed.AppendValue(v)
	}
	if c.unit == 0 {
		return mismatch(c, v, "a duration cannot express "+strings.ToLower(c.Kind())+"s")
	}
	if d%c.unit != 0 {
		return mismatch(c, v, "not a whole number of "+strings.ToLower(c.Kind())+"s")
	}
	c.data = append(c.data, int64(d/c.unit))
	return nil
}
