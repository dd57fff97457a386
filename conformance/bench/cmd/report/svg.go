package main

import (
	"fmt"
	"html"
	"math"
	"strings"
)

type bar struct {
	label string
	ratio float64
	base  string
}

// chart draws one horizontal bar per chnative arm: its best-of-N ns/row over its group's
// baseline, on a log2 axis from 1/8x to 64x, with the 1.0x line marked. Hand-written SVG.
func chart(bars []bar) string {
	const (
		left, width, rowH, top = 430, 420, 16, 40
		lo, hi                 = -3.0, 6.0 // log2 range
	)
	h := top + rowH*len(bars) + 30
	x := func(r float64) float64 {
		l := math.Log2(r)
		l = math.Max(lo, math.Min(hi, l))
		return left + (l-lo)/(hi-lo)*width
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="11">`+"\n", left+width+70, h)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&b, `<text x="10" y="18" font-size="13" font-weight="bold">chnative best ns/row ÷ baseline best ns/row (log scale; left of 1x = faster than the baseline)</text>`+"\n")
	for _, t := range []float64{0.125, 0.25, 0.5, 1, 2, 4, 8, 16, 32, 64} {
		xx := x(t)
		stroke := "#ddd"
		if t == 1 {
			stroke = "#333"
		}
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s"/>`+"\n", xx, top-6, xx, h-24, stroke)
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle" fill="#555">%gx</text>`+"\n", xx, h-10, t)
	}
	for i, br := range bars {
		y := top + i*rowH
		color := "#2e7d32"
		if br.ratio > 1 {
			color = "#c62828"
		}
		x0, x1 := x(1), x(br.ratio)
		if x1 < x0 {
			x0, x1 = x1, x0
		}
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", left-6, y+11, html.EscapeString(br.label+" vs "+br.base))
		fmt.Fprintf(&b, `<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s"/>`+"\n", x0, y+2, math.Max(x1-x0, 1), rowH-4, color)
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" fill="#333">%.2fx</text>`+"\n", math.Max(x(br.ratio), x(1))+4, y+11, br.ratio)
	}
	b.WriteString("</svg>\n")
	return b.String()
}
