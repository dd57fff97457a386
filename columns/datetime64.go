package columns

import (
	"math"
	"reflect"
	"strconv"
	"time"
)

// pow10i64 holds 10^0 .. 10^9.
var pow10i64 = [...]int64{1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9}

// DateTime64 is a column of DateTime64(P) or DateTime64(P, 'tz'): ticks of 10^-P seconds since
// 1970-01-01 00:00:00 UTC as Int64, P in 0..9. Values are borrowed as []int64; Append appends raw
// ticks.
type DateTime64 struct {
	Fixed[int64]
	prec int
	tz   string
	loc  *time.Location
}

// NewDateTime64 returns an empty DateTime64(precision[, tz]) column; tz "" means the type carries no
// time zone (values are then shown in UTC unless the caller sets a location with SetLocation).
func NewDateTime64(precision int, tz string) (*DateTime64, error) {
	c := &DateTime64{prec: precision, tz: tz, loc: time.UTC}
	if precision < 0 || precision > 9 {
		return nil, &TypeMismatchError{Column: "DateTime64(" + strconv.Itoa(precision) + ")", GoType: "type", Reason: "precision must be 0..9"}
	}
	if tz != "" {
		loc, err := time.LoadLocation(tz)
		if err != nil {
			return nil, &TypeMismatchError{Column: c.Type(), GoType: "time zone", Reason: err.Error()}
		}
		c.loc = loc
	}
	c.name = c.Type()
	return c, nil
}

// Type returns "DateTime64(P)" or "DateTime64(P, 'tz')".
func (c *DateTime64) Type() string {
	if c.tz == "" {
		return "DateTime64(" + strconv.Itoa(c.prec) + ")"
	}
	return "DateTime64(" + strconv.Itoa(c.prec) + ", " + quoteString(c.tz) + ")"
}

// Precision returns P: a tick is 10^-P seconds.
func (c *DateTime64) Precision() int { return c.prec }

// Location returns the location values are returned in.
func (c *DateTime64) Location() *time.Location { return c.loc }

// SetLocation sets the location of returned times for a DateTime64 without its own time zone (the
// driver uses the server's time zone).
func (c *DateTime64) SetLocation(loc *time.Location) {
	if c.tz == "" && loc != nil {
		c.loc = loc
	}
}

// ticksTime converts ticks of 10^-prec seconds to a time.Time (floor division, so negative ticks
// before 1970 are exact).
func ticksTime(ticks int64, prec int) time.Time {
	div := pow10i64[prec]
	sec, frac := ticks/div, ticks%div
	if frac < 0 {
		sec--
		frac += div
	}
	return time.Unix(sec, frac*pow10i64[9-prec])
}

// timeTicks converts t to ticks of 10^-prec seconds, truncating toward the past, and reports
// whether they fit in an Int64.
func timeTicks(t time.Time, prec int) (int64, bool) {
	mul := pow10i64[prec]
	sec := t.Unix()
	ns := int64(t.Nanosecond())
	var frac int64 // 0 <= frac < mul; the usual precisions divide by constants (no division)
	switch prec {
	case 3:
		frac = ns / 1e6
	case 6:
		frac = ns / 1e3
	case 9:
		frac = ns
	default:
		frac = ns / pow10i64[9-prec]
	}
	// Seconds strictly inside the bounds fit whatever frac is; at or past the upper one the
	// exact test decides (it divides, so the appends of ordinary times skip it).
	if sec >= tickSecMax[prec] || sec < tickSecMin[prec] {
		if sec > (math.MaxInt64-frac)/mul || sec < math.MinInt64/mul {
			return 0, false
		}
	}
	return sec*mul + frac, true
}

// tickSecMax[p] and tickSecMin[p] are MaxInt64 and MinInt64 divided by 10^p: a time of
// precision p whose seconds lie in [min, max) converts without overflow.
var tickSecMax, tickSecMin = func() (hi, lo [len(pow10i64)]int64) {
	for p, mul := range pow10i64 {
		hi[p], lo[p] = math.MaxInt64/mul, math.MinInt64/mul
	}
	return hi, lo
}()

// Time returns row i in the column's location.
func (c *DateTime64) Time(i int) time.Time { return ticksTime(c.data[i], c.prec).In(c.loc) }

// Value returns row i as a time.Time in the column's location.
func (c *DateTime64) Value(i int) any { return c.Time(i) }

func (c *DateTime64) sliceValue(lo, hi int) any {
	out := make([]time.Time, hi-lo)
	for j := range out {
		out[j] = c.Time(lo + j)
	}
	return out
}

// ScanType returns time.Time.
func (c *DateTime64) ScanType() reflect.Type { return reflect.TypeFor[time.Time]() }

// AppendTime appends t as whole ticks (sub-tick nanoseconds are truncated toward the past). The
// zero time.Time is the epoch, 0 ticks (as clickhouse-go writes it).
func (c *DateTime64) AppendTime(t time.Time) error {
	if t.IsZero() {
		c.data = append(c.data, 0)
		return nil
	}
	x, ok := timeTicks(t, c.prec)
	if !ok {
		return mismatch(c, t, "time out of range")
	}
	c.data = append(c.data, x)
	return nil
}

// AppendValue appends a time.Time, a time string (RFC 3339, "2006-01-02 15:04:05[.fffffffff]" or
// "2006-01-02", in the column's location when it has no offset) or the text of a fmt.Stringer or
// encoding.TextMarshaler in those forms, or an integer number of ticks.
func (c *DateTime64) AppendValue(v any) error {
	if t, ok := v.(time.Time); ok {
		return c.AppendTime(t)
	}
	t, ok, err := timeArg(c, v, c.loc, dateTime64Layouts)
	if err != nil {
		return err
	}
	if ok {
		return c.AppendTime(t)
	}
	return c.Fixed.AppendValue(v)
}
