package columns

import (
	"database/sql/driver"
	"math/big"
	"strconv"
	"testing"
)

// valuerDecimal stands for shopspring's decimal.Decimal: a fmt.Stringer and driver.Valuer whose
// Value is its text.
type valuerDecimal string

func (d valuerDecimal) String() string               { return string(d) }
func (d valuerDecimal) Value() (driver.Value, error) { return string(d), nil }

// BenchmarkAppendDecimal appends decimal text (and a Valuer of text, and a decimal with
// Coefficient and Exponent methods, as shopspring's values are) into Decimal columns of each
// width, one value an op.
func BenchmarkAppendDecimal(b *testing.B) {
	texts := make([]string, 4096)
	for i := range texts {
		texts[i] = strconv.Itoa(i*7919-16000000) + "." + strconv.Itoa(1000+i%9000)
	}
	for _, bc := range []struct {
		name string
		typ  string
		val  func(i int) any
	}{
		{"Decimal32/string", "Decimal(9, 2)", func(i int) any { return strconv.Itoa(i*37-50000) + "." + strconv.Itoa(10+i%90) }},
		{"Decimal64/string", "Decimal(18, 4)", func(i int) any { return texts[i] }},
		{"Decimal128/string", "Decimal(38, 10)", func(i int) any { return texts[i] }},
		{"Decimal256/string", "Decimal(76, 20)", func(i int) any { return texts[i] }},
		{"Decimal64/valuer", "Decimal(18, 4)", func(i int) any { return valuerDecimal(texts[i]) }},
		{"Decimal64/coefficient", "Decimal(18, 4)", func(i int) any { return coefDecimal{big.NewInt(int64(i*7919 - 16000000)), -3} }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			col, err := New(bc.typ)
			if err != nil {
				b.Fatal(err)
			}
			vals := make([]any, len(texts))
			for i := range vals {
				vals[i] = bc.val(i)
			}
			i := 0
			b.ReportAllocs()
			for b.Loop() {
				if err := col.AppendValue(vals[i&4095]); err != nil {
					b.Fatal(err)
				}
				if i++; i&65535 == 0 {
					col.Reset()
				}
			}
		})
	}
}
