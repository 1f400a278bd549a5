package tools

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/ledger"
)

// A filing states some figures only in a sentence: "As of June 30, 2022,
// we employed approximately 221,000 people on a full-time basis". Such a
// count is no tagged fact and no table row, yet a question may compute
// with it (how much headcount grew, how many more people one issuer
// employs than another). lookup_fact reads it, when asked with a stated
// key ("stated:employees") and the words a stating sentence holds, as a
// fact whose evidence is the whole sentence, so that calculate can name it
// and every number of the answer still traces to a span.

// StatedPrefix starts the key of a count a filing states in a sentence.
const StatedPrefix = "stated:"

// StatedKey returns the key of a stated count called name.
func StatedKey(name string) string { return StatedPrefix + name }

// Bounds of a stated lookup's arguments and of the sentences it reads.
const (
	maxStatedTerms    = 12
	maxStatedTerm     = 40
	maxStatedSentence = 700 // bytes; longer spans are not one sentence
	maxStatedGap      = 48  // bytes between a count and the word it counts
	maxStatedHits     = 4000
)

var (
	statedName = regexp.MustCompile(`^[a-z][a-z0-9_]{0,59}$`)
	statedTerm = regexp.MustCompile(`^[a-z][a-z -]*[a-z]$`)
	// countPattern matches a number as a sentence prints a count: 221,000,
	// 74,067, 2.3 million.
	countPattern = regexp.MustCompile(`(?i)(\$\s?)?\b(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(\s+(?:thousand|million|billion)\b)?(\s*%|\s+percent\b)?`)
	yearPattern  = regexp.MustCompile(`\b(19|20)\d\d\b`)
	monthBefore  = regexp.MustCompile(`(?i)\b(jan(uary)?|feb(ruary)?|mar(ch)?|apr(il)?|may|june?|july?|aug(ust)?|sep(tember)?|sept|oct(ober)?|nov(ember)?|dec(ember)?)\.?\s*$`)
)

// checkStated checks the stated form of a lookup: a "stated:" key and the
// words a stating sentence holds.
func checkStated(tool, key string, terms []string) (string, []string, error) {
	name, ok := strings.CutPrefix(strings.TrimSpace(key), StatedPrefix)
	if !ok || !statedName.MatchString(name) {
		return "", nil, argErr(tool, "concept", "%q: with stated words the concept is %q and a name of lower-case letters, digits and underscores, such as %q", key, StatedPrefix, StatedKey("employees"))
	}
	if len(terms) == 0 || len(terms) > maxStatedTerms {
		return "", nil, argErr(tool, "stated", "%d words; give 1 to %d words a sentence stating the figure holds", len(terms), maxStatedTerms)
	}
	out := make([]string, 0, len(terms))
	for _, t := range terms {
		t = strings.ToLower(strings.TrimSpace(t))
		if len(t) < 2 || len(t) > maxStatedTerm || !statedTerm.MatchString(t) {
			return "", nil, argErr(tool, "stated", "%q is not a word or phrase of letters (2 to %d bytes)", t, maxStatedTerm)
		}
		out = append(out, t)
	}
	return StatedKey(name), out, nil
}

// runStated finds the count a filing of the fiscal year states in a
// sentence holding one of the call's words (10-K first), and records it
// as a fact for the filing's period end, with the sentence as evidence.
// Finding nothing is not an error: the response says what was tried.
func runStated(ctx context.Context, env *Env, c *lookupCall) (*result, error) {
	mine, year, err := lookupFilings(ctx, env, c)
	if err != nil {
		return nil, err
	}
	ff := &factFinder{ctx: ctx, store: env.Store, texts: map[string]*docText{}, cache: env.Texts}
	res := &result{}
	name := strings.TrimPrefix(c.Concepts[0], StatedPrefix)
	var tried []string
	var found *statement
	var from corpus.Document
	for _, d := range filingsOf(mine, year, false) {
		tried = append(tried, fmt.Sprintf("%s for %s (period ended %s)", d.Form, PeriodLabel(d.FiscalYear), d.PeriodEnd.Format(time.DateOnly)))
		t, err := ff.text(d.ID)
		if err != nil {
			return nil, err
		}
		if s, ok := findStatement(t.text, c.Stated, d); ok {
			found, from = &s, d
			ev := ledger.Evidence{
				Kind:       ledger.KindFact,
				DocumentID: d.ID,
				Start:      s.start,
				End:        s.end,
				Excerpt:    t.text[s.start:s.end],
				Ticker:     d.Ticker,
				Form:       d.Form,
				Period:     PeriodLabel(d.FiscalYear),
				Page:       t.pages.Page(s.start),
				Section:    sectionAt(t.sections, s.start),
			}
			res.addEvidence(ev, "")
			res.addFact(ledger.Fact{
				EvidenceID: ledger.EvidenceID(d.ID, s.start, s.end),
				Concept:    c.Concepts[0],
				Value:      s.value,
				Unit:       "pure",
				Period:     d.PeriodEnd.Format(time.DateOnly),
			}, fmt.Sprintf("as a sentence of the %s for %s states it (%q)", d.Form, PeriodLabel(d.FiscalYear), s.number))
			break
		}
	}
	var header string
	switch {
	case year == 0 || len(tried) == 0:
		header = fmt.Sprintf("%s: no filing of %s for %s in the run's scope, so no stated %s.", LookupFact, c.Ticker, PeriodLabel(year), name)
	case found == nil:
		header = fmt.Sprintf("%s: no sentence of %s states a number of %s (%s) for %s. Tried: %s.", LookupFact, c.Ticker, name,
			strings.Join(c.Stated, ", "), PeriodLabel(year), strings.Join(tried, "; "))
	default:
		header = fmt.Sprintf("%s: %s %s %s: %s, stated in a sentence of the %s (concept %s).", LookupFact, c.Ticker, name,
			PeriodLabel(year), found.number, from.Form, c.Concepts[0])
	}
	res.render = func(r *result) string { return renderFacts(r, header) }
	return res, nil
}

// statement is a count a sentence states.
type statement struct {
	start, end int    // the sentence, in the document's text
	number     string // as printed: "approximately 221,000" reads "221,000"
	value      decimal.Decimal
}

// findStatement returns the first sentence of text that states a count of
// what terms name: a number (not an amount of money, a percentage, a day
// or a year) within a few words of one of the terms, in a sentence that
// names the filing's year or none. A sentence naming only other years
// states a count for another time, and a sentence among many numbers is a
// table's line, not a statement.
func findStatement(text string, terms []string, d corpus.Document) (statement, bool) {
	lower := asciiLowerString(text)
	type hit struct{ at, end int }
	var hits []hit
	for _, t := range terms {
		for from := 0; len(hits) < maxStatedHits; {
			i := strings.Index(lower[from:], t)
			if i < 0 {
				break
			}
			at := from + i
			from = at + len(t)
			if at > 0 && isLetter(lower[at-1]) {
				continue
			}
			end := at + len(t)
			for end < len(lower) && isLetter(lower[end]) {
				end++ // "employee" reads "employees"
			}
			hits = append(hits, hit{at, end})
		}
	}
	// The hits of each sentence, in the order of the filing.
	type sentence struct {
		start, end int
		hits       [][2]int // term spans, relative to start
	}
	var sentences []sentence
	index := map[int]int{}
	for _, h := range hits {
		start, end := corpus.WholeSentences(text, h.at, h.end, maxStatedSentence)
		if end-start > maxStatedSentence {
			continue
		}
		i, ok := index[start]
		if !ok {
			i = len(sentences)
			index[start] = i
			sentences = append(sentences, sentence{start: start, end: end})
		}
		sentences[i].hits = append(sentences[i].hits, [2]int{h.at - start, h.end - start})
	}
	slices.SortFunc(sentences, func(a, b sentence) int { return a.start - b.start })
	years := ownYears(d)
	var undated *statement
	for _, sn := range sentences {
		text := text[sn.start:sn.end]
		dated, other := namesYears(text, years)
		if other && !dated {
			continue
		}
		s, ok := firstCount(text, sn.hits)
		if !ok {
			continue
		}
		s.start, s.end = sn.start, sn.end
		// A sentence naming the filing's year beats one naming none; then
		// the first in the filing (the headline figure comes before its
		// parts).
		if dated {
			return s, true
		}
		if undated == nil {
			undated = &s
		}
	}
	if undated != nil {
		return *undated, true
	}
	return statement{}, false
}

// firstCount returns the first count a sentence prints within
// maxStatedGap bytes of one of its term hits, with no other number
// between: the whole comes before its parts ("221,000 people on a
// full-time basis, 122,000 in the U.S.").
func firstCount(sentence string, hits [][2]int) (statement, bool) {
	ms := countPattern.FindAllStringSubmatchIndex(sentence, -1)
	if len(ms) > 12 {
		return statement{}, false // a table's line
	}
	for _, m := range ms {
		if m[2] >= 0 || m[10] >= 0 {
			continue // money or a percentage
		}
		digits := sentence[m[4]:m[5]]
		if m[6] < 0 && m[8] < 0 && !strings.Contains(digits, ",") {
			// A plain number: a day, a year, a section number or a small
			// count; counts worth computing with are printed with
			// thousands separators or a scale.
			continue
		}
		if monthBefore.MatchString(sentence[:m[0]]) {
			continue
		}
		if !slices.ContainsFunc(hits, func(h [2]int) bool { return near(sentence, m[0], m[1], h[0], h[1]) }) {
			continue
		}
		v, err := decimal.NewFromString(strings.ReplaceAll(digits, ",", "") + fraction(sentence, m))
		if err != nil {
			continue
		}
		if m[8] >= 0 {
			switch strings.ToLower(strings.TrimSpace(sentence[m[8]:m[9]])) {
			case "thousand":
				v = v.Shift(3)
			case "million":
				v = v.Shift(6)
			case "billion":
				v = v.Shift(9)
			}
		}
		if !v.IsInteger() || !v.IsPositive() {
			continue
		}
		return statement{number: strings.TrimSpace(sentence[m[0]:m[1]]), value: v}, true
	}
	return statement{}, false
}

// near reports whether the number at [a, b) of a sentence and the term at
// [at, end) are at most maxStatedGap bytes apart with no number or
// clause mark between.
func near(sentence string, a, b, at, end int) bool {
	var between string
	switch {
	case b <= at:
		between = sentence[b:at]
	case a >= end:
		between = sentence[end:a]
	default:
		return false
	}
	return len(between) <= maxStatedGap && !strings.ContainsAny(between, ";:()") && !countPattern.MatchString(between)
}

func fraction(s string, m []int) string {
	if m[6] < 0 {
		return ""
	}
	return s[m[6]:m[7]]
}

// ownYears are the years a sentence of filing d may name for its own
// period: the fiscal year and the calendar year its period ends in.
func ownYears(d corpus.Document) []string {
	ys := []string{fmt.Sprint(d.FiscalYear)}
	if y := fmt.Sprint(d.PeriodEnd.Year()); y != ys[0] && !d.PeriodEnd.IsZero() {
		ys = append(ys, y)
	}
	return ys
}

// namesYears reports whether a sentence names one of own years, and
// whether it names another.
func namesYears(sentence string, own []string) (dated, other bool) {
	for _, y := range yearPattern.FindAllString(sentence, -1) {
		if slices.Contains(own, y) {
			dated = true
		} else {
			other = true
		}
	}
	return dated, other
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// asciiLowerString lower-cases ASCII letters only, so offsets stay those
// of s.
func asciiLowerString(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
