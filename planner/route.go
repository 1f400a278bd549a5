package planner

import (
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Route is what the router read from the question, before any model call.
type Route struct {
	Refused bool
	Reason  string // why it was refused, short, for the user

	// Issuers are the tickers of the corpus the question names (or the
	// caller gave), in the order named.
	Issuers []string
	// NotCovered are the issuers the question names that the corpus does
	// not hold, in the order named: "TICKER (SEC name)" when the SEC's
	// issuer list resolves them ("TSLA (Tesla, Inc.)" for "Tesla", "tsla"
	// or "$TSLA"), else as written ("Samsung", "XYZQ").
	NotCovered []string
	// FiscalYears are the fiscal years named ("2022", "fiscal 2024",
	// "FY23", "2021-2023"), ascending; empty means the latest.
	FiscalYears []int
	// Aspects are the Lexicon aspects the question asks about, in the order
	// named; "general" when it names none.
	Aspects []string
	// Outlook is set when the question asks about persistence, outlook,
	// guidance or expectations.
	Outlook bool
	// Causal is set when the question asks whether one aspect caused,
	// improved or drove another.
	Causal *Causal
	// Quarterly is set when the question asks about a quarter or a 10-Q.
	Quarterly bool
	// Figures are the reported and derived figures the question names
	// ("operating margin", "diluted EPS", "cash and cash equivalents").
	Figures []FigureAsk
	// AsksFigure is set when the question asks for a number ("how much",
	// "how many", "what was"), whether or not the catalogue names it.
	AsksFigure bool
}

// Causal is a question's claim that one thing drove another, as the
// Lexicon words of the cause and of the effect.
type Causal struct {
	Cause, Effect []string
	// CauseAspects and EffectAspects are the aspect names the words come from.
	CauseAspects, EffectAspects []string
}

var (
	fiscalYearExpr = regexp.MustCompile(`(?i)\b(?:fiscal\s+(?:year\s+)?|fy\s*'?)(\d{4}|\d{2})\b`)
	yearRange      = regexp.MustCompile(`(?i)\b((?:19|20)\d{2})\s*(?:-|–|—|to|through|until|and)\s*(?:fy\s*|fiscal\s+)?((?:19|20)\d{2})\b`)
	bareYear       = regexp.MustCompile(`\b(?:19|20)\d{2}\b`)
	quarterExpr    = regexp.MustCompile(`(?i)\b(quarters?|quarterly|10-q|q[1-4]|three\s+months|six\s+months|nine\s+months|first\s+half|second\s+half)\b`)
)

// span is a matched part of the question, [start, end) in bytes.
type span struct {
	start, end int
	value      string // a ticker, an aspect name, or the text as written
}

// claims marks the bytes of a question that a match has taken, so that
// each part of it counts once.
type claims []bool

func (c claims) overlaps(s, e int) bool {
	for i := s; i < e; i++ {
		if c[i] {
			return true
		}
	}
	return false
}

func (c claims) claim(s, e int) {
	for i := s; i < e; i++ {
		c[i] = true
	}
}

// RouteQuestion reads a question: whether it must be refused, which
// issuers, fiscal years and aspects it names, and whether it asks about
// outlook, a cause or a quarter. tickers are issuers the caller named
// explicitly (a --tickers flag); they come first, and any the catalog does
// not hold is reported in NotCovered.
func RouteQuestion(question string, cat *Catalog, tickers []string) Route {
	if cat == nil {
		cat = NewCatalog(nil)
	}
	var rt Route
	if reason := refuse(question); reason != "" {
		return Route{Refused: true, Reason: reason}
	}
	issuers, notCovered, taken := findIssuers(question, cat, tickers)
	rt.Issuers, rt.NotCovered = issuers, notCovered
	rt.FiscalYears = findFiscalYears(question)
	rt.Figures = FindFigures(question)
	rt.AsksFigure = len(rt.Figures) > 0 || figureShaped.MatchString(question)
	lower := routerNorm(question)
	rt.Quarterly = quarterExpr.MatchString(question)
	rt.Outlook = anyTerm(normalizeText(question), outlookTriggers)
	aspects := findAspects(lower, claimFigures(lower, rt.Figures, taken))
	names := make([]string, 0, len(aspects))
	for _, a := range aspects {
		names = append(names, a.value)
	}
	// A question about revenue that asks how it changed is about growth.
	if i := slices.Index(names, "revenue"); i >= 0 {
		if slices.Contains(names, "revenue_growth") {
			names = slices.Delete(names, i, i+1)
		} else if anyTerm(normalizeText(question), ChangeWords) {
			names[i] = "revenue_growth"
			aspects[i].value = "revenue_growth"
		}
	}
	rt.Causal = findCausal(lower, aspects)
	switch {
	case len(names) > 0:
		rt.Aspects = names
	case rt.Outlook:
		rt.Aspects = []string{"outlook"}
	default:
		rt.Aspects = []string{"general"}
	}
	return rt
}

// anyTerm reports whether the normalised text holds any of terms.
func anyTerm(text string, terms []string) bool {
	for _, t := range terms {
		if termIn(text, normalizeTerm(t)) {
			return true
		}
	}
	return false
}

// routerNorm is normalizeText for the router: it keeps the byte offsets of
// the question (ASCII letters lower-cased, ASCII hyphens and white space
// turned into spaces), so spans found in it are spans of the question.
func routerNorm(s string) string {
	b := []byte(asciiLower(s))
	for i, c := range b {
		if c == '-' || isSpaceByte(c) {
			b[i] = ' '
		}
	}
	return string(b)
}

// asciiLower lower-cases ASCII letters only, so byte offsets stay those of
// the question.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// findWord returns the spans where word occurs in text as a whole word
// (a possessive may follow). text and word are compared as given.
func findWord(text, word string) []span {
	var out []span
	if word == "" {
		return nil
	}
	for from := 0; from <= len(text)-len(word); {
		i := strings.Index(text[from:], word)
		if i < 0 {
			break
		}
		i += from
		from = i + 1
		end := i + len(word)
		if i > 0 && isWordByte(text[i-1]) && isWordByte(word[0]) {
			continue
		}
		if end < len(text) && isWordByte(text[end]) && isWordByte(word[len(word)-1]) {
			continue
		}
		out = append(out, span{start: i, end: end, value: text[i:end]})
	}
	return out
}

func isWordByte(c byte) bool {
	return c >= 0x80 || c == '_' || ('0' <= c && c <= '9') || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
}

// shouted reports whether most of a question's words are in capitals, in
// which case capital words are not read as tickers.
func shouted(q string) bool {
	words, caps := 0, 0
	for _, w := range strings.FieldsFunc(q, func(r rune) bool { return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z') }) {
		if len(w) < 2 {
			continue
		}
		words++
		if strings.ToUpper(w) == w {
			caps++
		}
	}
	return words >= 3 && caps*2 > words
}

// findFiscalYears returns the fiscal years a question names, ascending.
func findFiscalYears(q string) []int {
	set := map[int]bool{}
	taken := make(claims, len(q))
	add := func(y int) {
		if y >= 1993 && y <= 2100 {
			set[y] = true
		}
	}
	for _, m := range yearRange.FindAllStringSubmatchIndex(q, -1) {
		a, _ := strconv.Atoi(q[m[2]:m[3]])
		b, _ := strconv.Atoi(q[m[4]:m[5]])
		if b < a || b-a > 10 {
			continue
		}
		// "2021 and 2023" names two years; "2021-2023" and "2021 to 2023" a range.
		sep := strings.ToLower(strings.TrimSpace(q[m[3]:m[4]]))
		if strings.HasPrefix(sep, "and") {
			add(a)
			add(b)
		} else {
			for y := a; y <= b; y++ {
				add(y)
			}
		}
		taken.claim(m[0], m[1])
	}
	for _, m := range fiscalYearExpr.FindAllStringSubmatchIndex(q, -1) {
		if taken.overlaps(m[0], m[1]) {
			continue
		}
		y, _ := strconv.Atoi(q[m[2]:m[3]])
		if m[3]-m[2] == 2 {
			if y >= 93 {
				y += 1900
			} else {
				y += 2000
			}
		}
		add(y)
		taken.claim(m[0], m[1])
	}
	for _, m := range bareYear.FindAllStringIndex(q, -1) {
		if taken.overlaps(m[0], m[1]) || (m[0] > 0 && (q[m[0]-1] == '$' || q[m[0]-1] == '.' || q[m[0]-1] == ',')) {
			continue
		}
		if m[1] < len(q) && (q[m[1]] == '%' || q[m[1]] == ',' && m[1]+1 < len(q) && q[m[1]+1] >= '0' && q[m[1]+1] <= '9') {
			continue
		}
		y, _ := strconv.Atoi(q[m[0]:m[1]])
		add(y)
	}
	years := make([]int, 0, len(set))
	for y := range set {
		years = append(years, y)
	}
	slices.Sort(years)
	return years
}

// findAspects returns the Lexicon aspects a lower-cased question names, in
// the order named (norm is the question through routerNorm). Triggers are
// tried longest first and a part of the
// question counts for one aspect only; issuer names are skipped.
func findAspects(norm string, issuerSpans claims) []span {
	type trig struct{ term, aspect string }
	var trigs []trig
	for _, a := range Lexicon {
		for _, t := range a.Triggers {
			trigs = append(trigs, trig{normalizeTerm(t), a.Name})
		}
	}
	sort.SliceStable(trigs, func(i, j int) bool { return len(trigs[i].term) > len(trigs[j].term) })
	taken := slices.Clone(issuerSpans)
	if len(taken) < len(norm) {
		taken = append(taken, make(claims, len(norm)-len(taken))...)
	}
	first := map[string]int{}
	for _, t := range trigs {
		for _, s := range termSpans(norm, t.term) {
			if taken.overlaps(s[0], s[1]) {
				continue
			}
			taken.claim(s[0], s[1])
			if p, ok := first[t.aspect]; !ok || s[0] < p {
				first[t.aspect] = s[0]
			}
		}
	}
	out := make([]span, 0, len(first))
	for name, p := range first {
		out = append(out, span{start: p, value: name})
	}
	slices.SortFunc(out, func(a, b span) int { return a.start - b.start })
	return out
}

// termSpans returns where a normalised term matches normalised text, as
// termIn matches it; each span runs to the end of the matched word.
func termSpans(s, t string) [][2]int {
	var out [][2]int
	for from := 0; from <= len(s)-len(t) && t != ""; {
		i := strings.Index(s[from:], t)
		if i < 0 {
			break
		}
		i += from
		from = i + 1
		end := i + len(t)
		for end < len(s) && isWordByte(s[end]) {
			end++
		}
		if termIn(s[i:end], t) && (i == 0 || !isWordByte(s[i-1]) || !isWordByte(t[0])) {
			out = append(out, [2]int{i, end})
		}
	}
	return out
}

// causalVerbs are the verbs of "did X improve Y" and "X improved Y": the
// cause comes before them, the effect after.
var causalVerbs = regexp.MustCompile(`\b(improve[sd]?|improving|drive[sn]?|drove|driving|cause[sd]?|causing|boost(s|ed|ing)?|lead\s+to|leads\s+to|led\s+to|result(s|ed)?\s+in|contribute[sd]?\s+to|hurt(s|ing)?|weigh(s|ed)?\s+on|pressure[sd]?|affect(s|ed)?|impact(s|ed)?|help(s|ed)?|lift(s|ed)?|raise[sd]?|reduce[sd]?|lower(s|ed)?|expand(s|ed)?|compress(es|ed)?|benefit(s|ed|ted)?|erode[sd]?|dampen(s|ed)?|fuel(s|ed|led)?|translate[sd]?\s+into|increase[sd]?|decrease[sd]?)\b`)

// reverseCausal introduce the cause after the effect: "Y rose because of X".
var reverseCausal = regexp.MustCompile(`\b(because\s+of|due\s+to|driven\s+by|as\s+a\s+result\s+of|thanks\s+to|caused\s+by|attributable\s+to|owing\s+to|on\s+the\s+back\s+of|fueled\s+by|fuelled\s+by|helped\s+by|hurt\s+by|pressured\s+by)\b`)

// findCausal reads "did X improve Y", "X improved Y" and "Y because of X",
// where X and Y are different aspects of the question.
func findCausal(lower string, aspects []span) *Causal {
	if len(aspects) < 2 {
		return nil
	}
	try := func(at int, causeBefore bool) *Causal {
		var before, after []string
		for _, a := range aspects {
			if a.value == "general" || a.value == "outlook" {
				continue
			}
			if a.start < at {
				before = append(before, a.value)
			} else {
				after = append(after, a.value)
			}
		}
		cause, effect := before, after
		if !causeBefore {
			cause, effect = after, before
		}
		effect = slices.DeleteFunc(effect, func(n string) bool { return slices.Contains(cause, n) })
		if len(cause) == 0 || len(effect) == 0 {
			return nil
		}
		c := &Causal{CauseAspects: cause, EffectAspects: effect}
		for _, n := range cause {
			a, _ := AspectByName(n)
			c.Cause = appendNew(c.Cause, a.Terms...)
		}
		for _, n := range effect {
			a, _ := AspectByName(n)
			c.Effect = appendNew(c.Effect, a.Terms...)
		}
		return c
	}
	if m := reverseCausal.FindStringIndex(lower); m != nil {
		if c := try(m[0], false); c != nil {
			return c
		}
	}
	for _, m := range causalVerbs.FindAllStringIndex(lower, -1) {
		if c := try(m[0], true); c != nil {
			return c
		}
	}
	return nil
}

// appendNew appends the items of add that list does not hold.
func appendNew(list []string, add ...string) []string {
	for _, a := range add {
		if !slices.Contains(list, a) {
			list = append(list, a)
		}
	}
	return list
}
