package columns

import (
	"reflect"
	"strconv"
	"strings"
	"time"
)

// MaxTime is the largest magnitude of a Time or Time64 value: 999:59:59 (Time64 adds up to
// 10^-P - 1 ticks of fraction).
const MaxTime = 999*time.Hour + 59*time.Minute + 59*time.Second

const maxTimeSeconds = int64(MaxTime / time.Second)

// Time is a column of Time: a signed number of seconds as Int32, -999:59:59 .. 999:59:59. Value
// returns a time.Duration; Values are borrowed as []int32 and Append appends raw seconds.
type Time struct{ Fixed[int32] }

// NewTime returns an empty Time column.
func NewTime() *Time { return &Time{Fixed[int32]{name: "Time"}} }

// Duration returns row i.
func (c *Time) Duration(i int) time.Duration { return time.Duration(c.data[i]) * time.Second }

// Value returns row i as a time.Duration.
func (c *Time) Value(i int) any { return c.Duration(i) }

func (c *Time) sliceValue(lo, hi int) any {
	out := make([]time.Duration, hi-lo)
	for j := range out {
		out[j] = c.Duration(lo + j)
	}
	return out
}

// ScanType returns time.Duration.
func (c *Time) ScanType() reflect.Type { return reflect.TypeFor[time.Duration]() }

// AppendDuration appends d in whole seconds (truncated toward zero); |d| must be at most MaxTime.
func (c *Time) AppendDuration(d time.Duration) error {
	s := int64(d / time.Second)
	if s > maxTimeSeconds || s < -maxTimeSeconds {
		return mismatch(c, d, "time out of range")
	}
	c.data = append(c.data, int32(s))
	return nil
}

// AppendValue appends a time.Duration, a "[-]hhh:mm:ss[.fff]" string, or an integer number of
// seconds, within ±999:59:59.
func (c *Time) AppendValue(v any) error {
	d, ok, err := durationArg(c, v)
	if err != nil {
		return err
	}
	if ok {
		return c.AppendDuration(d)
	}
	s, err := convertNum[int32](c, v)
	if err != nil {
		return err
	}
	if int64(s) > maxTimeSeconds || int64(s) < -maxTimeSeconds {
		return mismatch(c, v, "time out of range")
	}
	c.data = append(c.data, s)
	return nil
}

// Time64 is a column of Time64(P): a signed number of ticks of 10^-P seconds as Int64, P in 0..9,
// within ±999:59:59.999999999. Value returns a time.Duration; Values are borrowed as []int64 and
// Append appends raw ticks.
type Time64 struct {
	Fixed[int64]
	prec int
}

// NewTime64 returns an empty Time64(precision) column.
func NewTime64(precision int) (*Time64, error) {
	if precision < 0 || precision > 9 {
		return nil, &TypeMismatchError{Column: "Time64(" + strconv.Itoa(precision) + ")", GoType: "type", Reason: "precision must be 0..9"}
	}
	c := &Time64{prec: precision}
	c.name = "Time64(" + strconv.Itoa(precision) + ")"
	return c, nil
}

// Precision returns P: a tick is 10^-P seconds.
func (c *Time64) Precision() int { return c.prec }

// Duration returns row i (values past the range of a time.Duration saturate).
func (c *Time64) Duration(i int) time.Duration {
	x, mul := c.data[i], pow10i64[9-c.prec]
	switch {
	case x > int64(maxDuration)/mul:
		return maxDuration
	case x < int64(minDuration)/mul:
		return minDuration
	}
	return time.Duration(x * mul)
}

const (
	maxDuration = time.Duration(1<<63 - 1)
	minDuration = -maxDuration - 1
)

// Value returns row i as a time.Duration.
func (c *Time64) Value(i int) any { return c.Duration(i) }

func (c *Time64) sliceValue(lo, hi int) any {
	out := make([]time.Duration, hi-lo)
	for j := range out {
		out[j] = c.Duration(lo + j)
	}
	return out
}

// ScanType returns time.Duration.
func (c *Time64) ScanType() reflect.Type { return reflect.TypeFor[time.Duration]() }

// AppendDuration appends d in whole ticks (truncated toward zero); |d| must be below 1000 hours.
func (c *Time64) AppendDuration(d time.Duration) error {
	if d >= 1000*time.Hour || d <= -1000*time.Hour {
		return mismatch(c, d, "time out of range")
	}
	c.data = append(c.data, int64(d)/pow10i64[9-c.prec])
	return nil
}

// AppendValue appends a time.Duration, a "[-]hhh:mm:ss[.fffffffff]" string, or an integer number of
// ticks, within ±999:59:59.999999999.
func (c *Time64) AppendValue(v any) error {
	d, ok, err := durationArg(c, v)
	if err != nil {
		return err
	}
	if ok {
		return c.AppendDuration(d)
	}
	x, err := convertNum[int64](c, v)
	if err != nil {
		return err
	}
	if lim := 1000 * 3600 * pow10i64[c.prec]; x >= lim || x <= -lim {
		return mismatch(c, v, "time out of range")
	}
	c.data = append(c.data, x)
	return nil
}

// durationArg recognises time.Duration values and "[-]h:mm:ss[.f]" strings.
func durationArg(col Column, v any) (time.Duration, bool, error) {
	if d, ok := v.(time.Duration); ok {
		return d, true, nil
	}
	x, isNil, err := deref(v)
	if err != nil {
		return 0, false, err
	}
	if isNil {
		return 0, false, mismatch(col, nil, "NULL in a non-Nullable column")
	}
	switch t := x.(type) {
	case time.Duration:
		return t, true, nil
	case string:
		d, ok := ParseTime(t)
		if !ok {
			return 0, false, mismatch(col, v, textReason(v, t, "hhh:mm:ss[.fff]"))
		}
		return d, true, nil
	}
	return 0, false, nil
}

// ParseTime parses a Time value "[-]h:mm:ss[.f]" (1 to 3 hour digits, minutes and seconds below 60,
// up to 9 fraction digits) into a duration.
func ParseTime(s string) (time.Duration, bool) {
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	h, rest, ok := strings.Cut(s, ":")
	if !ok || len(h) < 1 || len(h) > 3 {
		return 0, false
	}
	m, rest, ok := strings.Cut(rest, ":")
	if !ok || len(m) != 2 {
		return 0, false
	}
	sec, frac, hasFrac := strings.Cut(rest, ".")
	if len(sec) != 2 || hasFrac && (len(frac) < 1 || len(frac) > 9) {
		return 0, false
	}
	num := func(s string) (int64, bool) {
		var n int64
		for i := 0; i < len(s); i++ {
			if s[i] < '0' || s[i] > '9' {
				return 0, false
			}
			n = n*10 + int64(s[i]-'0')
		}
		return n, true
	}
	hh, ok1 := num(h)
	mm, ok2 := num(m)
	ss, ok3 := num(sec)
	ff, ok4 := num(frac)
	if !ok1 || !ok2 || !ok3 || !ok4 || mm > 59 || ss > 59 {
		return 0, false
	}
	d := time.Duration(hh)*time.Hour + time.Duration(mm)*time.Minute + time.Duration(ss)*time.Second +
		time.Duration(ff*pow10i64[9-len(frac)])
	if neg {
		d = -d
	}
	return d, true
}

// FormatTime formats d as a Time value "[-]h:mm:ss[.fffffffff]" with prec fraction digits (0..9).
func FormatTime(d time.Duration, prec int) string {
	var b []byte
	if d < 0 {
		b = append(b, '-')
		d = -d
	}
	h, m, s := int64(d/time.Hour), int64(d/time.Minute%60), int64(d/time.Second%60)
	b = strconv.AppendInt(b, h, 10)
	b = append(b, ':', byte('0'+m/10), byte('0'+m%10), ':', byte('0'+s/10), byte('0'+s%10))
	if prec > 0 {
		f := int64(d%time.Second) / pow10i64[9-prec]
		b = append(b, '.')
		digits := strconv.AppendInt(nil, f+pow10i64[prec], 10) // leading 1 keeps the zeros
		b = append(b, digits[1:]...)
	}
	return string(b)
}
