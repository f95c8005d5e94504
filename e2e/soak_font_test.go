package e2e

import (
	"image"
	"image/color"
	"strings"
)

// soakGlyphs is a 3x5 pixel font for the chart's labels: each glyph is
// five rows of three pixels, '#' set. Lower case is drawn as upper case;
// missing characters are blank.
var soakGlyphs = map[rune]string{
	'0': "###,#.#,#.#,#.#,###", '1': ".#.,##.,.#.,.#.,###", '2': "###,..#,###,#..,###",
	'3': "###,..#,.##,..#,###", '4': "#.#,#.#,###,..#,..#", '5': "###,#..,###,..#,###",
	'6': "###,#..,###,#.#,###", '7': "###,..#,.#.,.#.,.#.", '8': "###,#.#,###,#.#,###",
	'9': "###,#.#,###,..#,###", 'A': ".#.,#.#,###,#.#,#.#", 'B': "##.,#.#,##.,#.#,##.",
	'C': ".##,#..,#..,#..,.##", 'D': "##.,#.#,#.#,#.#,##.", 'E': "###,#..,##.,#..,###",
	'F': "###,#..,##.,#..,#..", 'G': ".##,#..,#.#,#.#,.##", 'H': "#.#,#.#,###,#.#,#.#",
	'I': "###,.#.,.#.,.#.,###", 'J': "..#,..#,..#,#.#,.#.", 'K': "#.#,#.#,##.,#.#,#.#",
	'L': "#..,#..,#..,#..,###", 'M': "#.#,###,###,#.#,#.#", 'N': "##.,#.#,#.#,#.#,#.#",
	'O': ".#.,#.#,#.#,#.#,.#.", 'P': "##.,#.#,##.,#..,#..", 'Q': ".#.,#.#,#.#,##.,.##",
	'R': "##.,#.#,##.,#.#,#.#", 'S': ".##,#..,.#.,..#,##.", 'T': "###,.#.,.#.,.#.,.#.",
	'U': "#.#,#.#,#.#,#.#,###", 'V': "#.#,#.#,#.#,#.#,.#.", 'W': "#.#,#.#,###,###,#.#",
	'X': "#.#,#.#,.#.,#.#,#.#", 'Y': "#.#,#.#,.#.,.#.,.#.", 'Z': "###,..#,.#.,#..,###",
	'-': "...,...,###,...,...", '/': "..#,..#,.#.,#..,#..", '.': "...,...,...,...,.#.",
	':': "...,.#.,...,.#.,...", '(': ".#.,#..,#..,#..,.#.", ')': ".#.,..#,..#,..#,.#.",
	'=': "...,###,...,###,...", '+': "...,.#.,###,.#.,...", '%': "#.#,..#,.#.,#..,#.#",
	',': "...,...,...,.#.,#..", '>': "#..,.#.,..#,.#.,#..", '<': "..#,.#.,#..,.#.,..#",
}

// soakText draws s at (x, y) (top left) with pixels scale x scale.
func soakText(img *image.RGBA, x, y, scale int, c color.Color, s string) {
	for _, r := range strings.ToUpper(s) {
		if g, ok := soakGlyphs[r]; ok {
			for row, bits := range strings.Split(g, ",") {
				for col, bit := range bits {
					if bit == '#' {
						soakRect(img, x+col*scale, y+row*scale, scale, scale, c)
					}
				}
			}
		}
		x += 4 * scale
	}
}

// soakRect fills a w x h rectangle at (x, y).
func soakRect(img *image.RGBA, x, y, w, h int, c color.Color) {
	for i := x; i < x+w; i++ {
		for j := y; j < y+h; j++ {
			img.Set(i, j, c)
		}
	}
}

// soakLine draws a line from (x0, y0) to (x1, y1), width 2.
func soakLine(img *image.RGBA, x0, y0, x1, y1 int, c color.Color) {
	dx, dy := x1-x0, y1-y0
	n := max(abs(dx), abs(dy), 1)
	for i := 0; i <= n; i++ {
		x, y := x0+dx*i/n, y0+dy*i/n
		soakRect(img, x, y, 2, 2, c)
	}
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
