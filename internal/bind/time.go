package bind

import (
	"fmt"
	"math"
	"time"

	"github.com/chnative/chnative/columns"
)

// intervalUnits are the lengths of the Interval kinds a time.Duration can count.
var intervalUnits = map[string]time.Duration{
	"IntervalNanosecond": time.Nanosecond, "IntervalMicrosecond": time.Microsecond,
	"IntervalMillisecond": time.Millisecond, "IntervalSecond": time.Second, "IntervalMinute": time.Minute,
	"IntervalHour": time.Hour, "IntervalDay": 24 * time.Hour, "IntervalWeek": 7 * 24 * time.Hour,
}

// epochIfZero returns the epoch for the zero time.Time, which the Date and time columns store as
// 0 (as clickhouse-go does), so that a parameter or literal of it means what a column of it holds.
func epochIfZero(t time.Time) time.Time {
	if t.IsZero() {
		return time.Unix(0, 0).UTC()
	}
	return t
}

// dateTimeText writes t for DateTime or DateTime64 (see parameterText).
func dateTimeText(t time.Time, n *columns.TypeNode) string {
	t = epochIfZero(t)
	sec, ns := t.Unix(), t.Nanosecond()
	if n.Name == "DateTime" || ns == 0 {
		if sec < 0 {
			return "-" + fmt.Sprintf("%010d", -sec)
		}
		return fmt.Sprintf("%010d", sec)
	}
	if sec >= 0 {
		return fmt.Sprintf("%010d.%09d", sec, ns)
	}
	// t = sec + ns/1e9 with sec < 0: its magnitude is (-sec-1) + (1e9-ns)/1e9.
	if mag := -sec - 1; mag > 0 {
		return fmt.Sprintf("-%010d.%09d", mag, 1e9-ns)
	}
	loc := time.UTC
	if len(n.Args) > 1 && n.Args[1].Kind == columns.ArgString {
		if l, err := time.LoadLocation(n.Args[1].String); err == nil {
			loc = l
		}
	}
	return t.In(loc).Format("2006-01-02 15:04:05.000000000")
}

// durationText writes d as Time/Time64 text: [-]h:mm:ss[.fffffffff].
func durationText(d time.Duration) string {
	sign := ""
	u := uint64(d)
	if d < 0 {
		sign, u = "-", uint64(-d) // -MinInt64 wraps to its magnitude as uint64
	}
	sec, frac := u/1e9, u%1e9
	s := fmt.Sprintf("%s%02d:%02d:%02d", sign, sec/3600, sec/60%60, sec%60)
	if frac != 0 {
		s += fmt.Sprintf(".%09d", frac)
	}
	return s
}

// formatTime writes t as a DateTime (whole seconds in its range) or DateTime64(9) literal in UTC.
func formatTime(t time.Time) string {
	u := epochIfZero(t).UTC()
	if u.Nanosecond() == 0 && u.Unix() >= 0 && u.Unix() <= math.MaxUint32 {
		return "toDateTime('" + u.Format("2006-01-02 15:04:05") + "', 'UTC')"
	}
	return "toDateTime64('" + u.Format("2006-01-02 15:04:05.000000000") + "', 9, 'UTC')"
}
