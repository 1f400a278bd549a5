package eval

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Amount is a number read from an answer, with the scale and unit its
// words give it.
type Amount struct {
	Value float64 // scale applied: "$26.97 billion" is 26.97e9
	// Step is the place value of the last digit written, scale applied:
	// 0.01e9 for "$26.97 billion", 1 for "164,000". A figure rounded to
	// what was written matches within half a step.
	Step float64
	// Scaled is true when a scale word or suffix was written ("billion",
	// "M"); a number without one may be a table's figure in thousands or
	// millions.
	Scaled  bool
	Percent bool // followed by "%" or "percent"
	Dollar  bool // preceded by "$"
	Line    int  // 0-based line of the text it is on
	Text    string
}

// amountExpr finds numbers with an optional "$", sign or opening
// parenthesis before, and a scale word or percent sign after (a percent
// sign after the closing parenthesis of a negative one too: "(15)%").
var amountExpr = regexp.MustCompile(`(?i)(\$\s?)?(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(\)?\s?%|\s?(?:percent|per\s+cent)\b|\s?(?:trillion|billion|million|thousand|bn|mln)\b|[BMK]\b)?`)

// citationMarker is an answer's "[3]" or "[3][4]": not figures.
var citationMarker = regexp.MustCompile(`\[\d+\]`)

// ParseAmounts returns every number in text with its scale and unit. Years
// (four digits from 1900 to 2100 without a separator, scale or sign),
// citation markers and digits inside words ("FY2024", "Q3") are not
// amounts. Signs are dropped: an answer may write a loss as "(2,722)",
// "-2,722" or "a loss of 2,722", so figures are compared by magnitude.
func ParseAmounts(text string) []Amount {
	clean := citationMarker.ReplaceAllStringFunc(text, func(s string) string { return strings.Repeat(" ", len(s)) })
	var out []Amount
	for _, m := range amountExpr.FindAllStringSubmatchIndex(clean, -1) {
		start, end := m[0], m[1]
		numStart, numEnd := m[4], m[5]
		// Digits glued to a letter, digit or dot before them are part of a
		// word or of another number ("FY2024", "10-K" is fine: '-').
		if numStart > 0 && m[2] < 0 {
			r, _ := utf8.DecodeLastRuneInString(clean[:numStart])
			if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '.' || r == '_' {
				continue
			}
		}
		// Digits followed straight by a letter are a word ("3D", "5G"),
		// unless the letter is a scale suffix the expression took.
		if m[6] < 0 && numEnd < len(clean) {
			r, n := utf8.DecodeRuneInString(clean[numEnd:])
			if unicode.IsLetter(r) || r == '_' {
				continue
			}
			// A form name: "10-K", "8-K", "10-Q".
			if r == '-' && numEnd+n < len(clean) {
				if r2, _ := utf8.DecodeRuneInString(clean[numEnd+n:]); unicode.IsLetter(r2) {
					continue
				}
			}
		}
		num := strings.ReplaceAll(clean[numStart:numEnd], ",", "")
		v, err := strconv.ParseFloat(num, 64)
		if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
			continue
		}
		a := Amount{Dollar: m[2] >= 0, Text: text[start:end], Line: strings.Count(clean[:start], "\n"), Step: 1}
		if i := strings.IndexByte(num, '.'); i >= 0 {
			a.Step = math.Pow(10, -float64(len(num)-i-1))
		}
		if m[6] >= 0 {
			// A percentage a table prints negative in parentheses keeps
			// its sign outside the sign: "(15)%".
			suffix := strings.ToLower(strings.TrimSpace(strings.TrimPrefix(clean[m[6]:m[7]], ")")))
			switch {
			case suffix == "%" || strings.HasPrefix(suffix, "per"):
				a.Percent = true
			default:
				a.Scaled = true
				v *= scaleOf(suffix)
				a.Step *= scaleOf(suffix)
			}
		}
		if !a.Dollar && !a.Scaled && !a.Percent && !strings.ContainsAny(clean[numStart:numEnd], ".,") && len(num) == 4 && v >= 1900 && v <= 2100 {
			continue // a year
		}
		a.Value = v
		out = append(out, a)
	}
	return out
}

func scaleOf(suffix string) float64 {
	switch suffix {
	case "trillion":
		return 1e12
	case "billion", "bn", "b":
		return 1e9
	case "million", "mln", "m":
		return 1e6
	case "thousand", "k":
		return 1e3
	}
	return 1
}

// Matches reports whether the amount states the figure: within the
// figure's relative tolerance, or within half a step of what was written,
// so that a correctly rounded figure matches ("$4.4 billion" states
// 4,368 million) and a neighbouring one does not ("26,914" is not
// 26,974). A percentage matches only a percent figure. A number without
// a scale word matches at its face value, and also in thousands or
// millions, as financial tables state figures; so "26,974" on a line
// quoting the income statement matches 26,974,000,000.
func (a Amount) Matches(f Figure) bool {
	if (f.Unit == UnitPercent) != a.Percent {
		return false
	}
	want := math.Abs(f.Value)
	within := func(v, step float64) bool {
		return math.Abs(v-want) <= max(f.tolerance()*want, step/2*(1+1e-9))
	}
	if within(a.Value, a.Step) {
		return true
	}
	if a.Scaled || a.Percent {
		return false
	}
	return within(a.Value*1e3, a.Step*1e3) || within(a.Value*1e6, a.Step*1e6)
}

// FindFigure returns the first amount in text that states f on a line that
// names f's period, and false when there is none.
func FindFigure(text string, f Figure) (Amount, bool) {
	lines := strings.Split(text, "\n")
	period := strings.ToLower(f.Period)
	for _, a := range ParseAmounts(text) {
		if a.Matches(f) && a.Line < len(lines) && strings.Contains(strings.ToLower(lines[a.Line]), period) {
			return a, true
		}
	}
	return Amount{}, false
}
