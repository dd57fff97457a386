package types

// decimalCases: Decimal(P, S) at every width (32, 64, 128, 256 bits), scales 0, mid and P,
// with the largest and smallest values at full precision.
func decimalCases() []Case {
	dec := func(p, sc int, server bool, vals ...string) Case {
		k := Case{Type: "Decimal(" + itoa(p) + ", " + itoa(sc) + ")", Server: server}
		k.Values = append([]string{"0", "1", "-1", "'0.5'"}, vals...)
		if sc == 0 {
			k.Values = append([]string{"0", "1", "-1"}, vals...)
		}
		if sc == p {
			k.Values = append([]string{"0", "'-0.5'", "'0.5'"}, vals...)
		}
		return k
	}
	return []Case{
		dec(9, 0, true, "'999999999'", "'-999999999'"),
		dec(9, 4, true, "'99999.9999'", "'-99999.9999'", "'-0.0001'", "'12345.6789'"),
		dec(9, 9, true, "'0.999999999'", "'-0.999999999'", "'-0.000000001'"),
		dec(18, 0, true, "'999999999999999999'", "'-999999999999999999'"),
		dec(18, 6, true, "'999999999999.999999'", "'-999999999999.999999'", "'-0.000001'"),
		dec(18, 18, true, "'0.999999999999999999'", "'-0.999999999999999999'"),
		dec(38, 0, true, "'99999999999999999999999999999999999999'", "'-99999999999999999999999999999999999999'"),
		dec(38, 10, true, "'9999999999999999999999999999.9999999999'", "'-9999999999999999999999999999.9999999999'",
			"'-18446744073709551616.0000000001'"),
		dec(38, 38, true, "'0.99999999999999999999999999999999999999'", "'-0.99999999999999999999999999999999999999'"),
		dec(76, 0, false, "'"+nines(76)+"'", "'-"+nines(76)+"'"),
		dec(76, 20, false, "'"+nines(56)+"."+nines(20)+"'", "'-"+nines(56)+"."+nines(20)+"'",
			"'-340282366920938463463374607431768211456.00000000000000000001'"),
		dec(76, 76, false, "'0."+nines(76)+"'", "'-0."+nines(76)+"'"),
		s("Decimal32(2)", "'-1.5'", "'9999999.99'"),
		s("Decimal64(4)", "'-1.5'", "'99999999999999.9999'"),
		s("Decimal128(5)", "'-1.5'", "'-999999999999999999999999999999999.99999'"),
		c("Decimal256(10)", "'-1.5'", "'-"+nines(66)+"."+nines(10)+"'"),
	}
}

func nines(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = '9'
	}
	return string(b)
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}
