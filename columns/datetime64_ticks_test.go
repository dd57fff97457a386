package columns

import (
	"math"
	"testing"
	"time"
)

// timeTicks's bounds skip the exact overflow test only where it cannot fail: at every precision,
// around both bounds and at ordinary times, it answers as the exact test alone does.
func TestTimeTicksMatchesExactTest(t *testing.T) {
	exact := func(tm time.Time, prec int) (int64, bool) {
		mul := pow10i64[prec]
		sec := tm.Unix()
		frac := int64(tm.Nanosecond()) / pow10i64[9-prec]
		if sec > (math.MaxInt64-frac)/mul || sec < math.MinInt64/mul {
			return 0, false
		}
		return sec*mul + frac, true
	}
	for prec := range pow10i64 {
		var secs []int64
		for _, edge := range []int64{tickSecMax[prec], tickSecMin[prec], 0, 1_767_225_600} {
			for d := int64(-2); d <= 2; d++ {
				secs = append(secs, edge+d)
			}
		}
		for _, sec := range secs {
			for _, ns := range []int64{0, 1, 999_999_999, 123_456_789, 5e8} {
				tm := time.Unix(sec, ns)
				got, gotOK := timeTicks(tm, prec)
				want, wantOK := exact(tm, prec)
				if got != want || gotOK != wantOK {
					t.Fatalf("prec %d, %d s %d ns: timeTicks = %d, %v; the exact test gives %d, %v", prec, sec, ns, got, gotOK, want, wantOK)
				}
			}
		}
	}
}
