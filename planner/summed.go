package planner

import (
	"regexp"
	"strings"
)

// A total asked as a sum of named figures ("cash plus unrestricted
// marketable securities", "R&D + SG&A"): the filings state such a total
// in words of their own ("cash, cash equivalents and unrestricted
// marketable securities, which totaled $156.4 billion"), so it is asked of
// a sentence naming every summand with an amount, or named as a gap. A
// summand's own figure is not the total.

// sumWord matches a question's word of adding.
var sumWord = regexp.MustCompile(`(?i)^(?:plus|\+)$`)

// summedWords returns the words of the two names a question joins with
// "plus" (or "+"), each the run of words a question names a figure by
// next to it, without stop words, issuers' words and periods; nil when the
// question joins none, or either name is missing.
func (b *builder) summedWords() (left, right []string) {
	toks := strings.FieldsFunc(b.question, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '&' || r == '+' || r == '-' || r == '\'')
	})
	skip := issuerWordSet(b.cat, b.rt.Issuers)
	named := func(w string) bool {
		l := strings.ToLower(strings.Trim(w, "'-"))
		return l != "" && !questionStopwords[l] && !skip[l] && !periodWord(l) && !askingWords[l] && !countedStops[l]
	}
	for i, t := range toks {
		if !sumWord.MatchString(t) || left != nil {
			continue
		}
		for k := i - 1; k >= 0 && named(toks[k]) && len(left) < 4; k-- {
			left = append([]string{strings.ToLower(toks[k])}, left...)
		}
		for k := i + 1; k < len(toks) && named(toks[k]) && len(right) < 4; k++ {
			right = append(right, strings.ToLower(toks[k]))
		}
		if len(left) == 0 || len(right) == 0 {
			return nil, nil
		}
	}
	return left, right
}

// planSummedFigure plans the total a question asks as the sum of two
// named figures, for each issuer and period: a sentence of the filing
// naming every word of both with an amount, or its gap. It reports false,
// planning nothing, when the question asks no such total.
func (b *builder) planSummedFigure() bool {
	left, right := b.summedWords()
	if left == nil {
		return false
	}
	what := strings.Join(left, " ") + " plus " + strings.Join(right, " ")
	var groups [][]string
	for _, w := range append(append([]string{}, left...), right...) {
		groups = append(groups, wordForms(w))
	}
	groups = append(groups, []string{FigureTerm})
	b.eachAskedPeriod(func(t string, p filingPeriod, m reqMeta) {
		b.planNamedFigure(t, p, m, what, "", false, groups)
	})
	return true
}
