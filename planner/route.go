package planner

import (
	"github.com/ledgerline/research/tools"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
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
	// IssuerYears, when set, gives each issuer its own fiscal years: the
	// question binds years to issuers ("NVIDIA's fiscal 2023 revenue with
	// Apple's fiscal 2024 net sales"). It is set only when every issuer
	// gets a year and not all get the same ones.
	IssuerYears map[string][]int
	// BaseYears are the fiscal years named only as what another is
	// measured against ("lower than in 2019", "compared with 2022"): their
	// figures are planned for the comparison, but the question asks why
	// the other year's moved, not theirs.
	BaseYears []int `json:",omitempty"`
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
	// Paid is what a question asks the issuer paid for or spent on, where
	// the catalogue names no such figure: "How much cash did Netflix pay
	// for content assets" asks for its payments for content assets, and
	// "cash" there is the means of payment, not the cash balance.
	Paid string `json:",omitempty"`
}

// Causal is a question's claim that one thing drove another, as the
// Lexicon words of the cause and of the effect.
type Causal struct {
	Cause, Effect []string
	// CauseAspects and EffectAspects are the aspect names the words come from.
	CauseAspects, EffectAspects []string
	// CauseWords are the question's own words for a cause no aspect names
	// ("advertising", "tier"); a linking sentence must hold every one.
	CauseWords []string
}

var (
	fiscalYearExpr = regexp.MustCompile(`(?i)\b(?:fiscal\s+(?:year\s+)?|fy\s*)['’]?(\d{4}|\d{2})\b`)
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
	question = ReadShorthand(question, cat)
	issuers, notCovered, taken := findIssuers(question, cat, tickers)
	rt.Issuers, rt.NotCovered = issuers, notCovered
	rt.FiscalYears = findFiscalYears(question)
	rt.IssuerYears = bindYears(question, cat, rt.Issuers)
	rt.BaseYears = findBaseYears(question, rt.FiscalYears)
	comp := newCompounds(question, cat, rt.Issuers)
	rt.Figures = dropCompounds(question, FindFigures(question), comp)
	if paid, ok := paidFor(question); ok && !slices.ContainsFunc(FindFigures(paid), func(f FigureAsk) bool { return spentAs(f, paid) }) {
		rt.Paid = paid
		// Neither "cash" paid with nor "assets" in "content assets" is a
		// figure asked.
		rt.Figures = slices.DeleteFunc(rt.Figures, func(f FigureAsk) bool {
			return f.Metric == "cash" || strings.Contains(" "+normLabel(paid)+" ", " "+f.Phrase+" ")
		})
	}
	rt.AsksFigure = len(rt.Figures) > 0 || asksNumber(question)
	lower := routerNorm(question)
	rt.Quarterly = quarterExpr.MatchString(question)
	rt.Outlook = anyTerm(normalizeText(question), outlookTriggers) || futureView.MatchString(question) || willPersist.MatchString(question) || plansAhead.MatchString(question)
	// A topic named by one word heading another noun ("deferred revenue")
	// is not that topic; nor is a topic's word that qualifies a figure the
	// question asks ("segment operating margin" asks the segments'
	// margins, not what the filing says about segments).
	aspects := findAspects(lower, claimFigures(lower, rt.Figures, taken), func(start, end int) bool {
		return comp.head(lower[:start], strings.TrimSpace(lower[start:end])) ||
			qualifiesFigure(lower[start:end], lower[end:], rt.Figures)
	})
	names := make([]string, 0, len(aspects))
	for _, a := range aspects {
		names = append(names, a.value)
	}
	// A question about revenue that asks how it changed is about growth.
	if i := slices.Index(names, "revenue"); i >= 0 {
		if slices.Contains(names, "revenue_growth") {
			names = slices.Delete(names, i, i+1)
		} else if asksGrowth(normalizeText(question)) {
			names[i] = "revenue_growth"
			aspects[i].value = "revenue_growth"
		}
	}
	// The figures the question names stand in for aspects when the
	// aspects alone give no causal reading.
	causes := slices.Clone(aspects)
	for _, f := range rt.Figures {
		sp := span{start: f.at, end: f.at + len(f.Phrase), value: figurePrefix + f.Phrase}
		if !slices.ContainsFunc(aspects, func(a span) bool { return a.start < sp.end && sp.start < a.end }) {
			causes = append(causes, sp)
		}
	}
	slices.SortStableFunc(causes, func(a, b span) int { return a.start - b.start })
	if rt.Causal = findCausal(lower, aspects, taken); rt.Causal == nil {
		rt.Causal = findCausal(lower, causes, taken)
	}
	switch {
	case len(names) > 0:
		rt.Aspects = names
	case rt.Outlook:
		rt.Aspects = []string{"outlook"}
	default:
		rt.Aspects = []string{"general"}
		// "What gross merchandise volume did eBay report?" asks for an
		// amount of what it names, where nothing else says so.
		rt.AsksFigure = rt.AsksFigure || rt.Causal == nil && !asksWhy(question) && whatReported.MatchString(question)
	}
	return rt
}

// compounds tells whether a question uses a one-word name of a figure or
// topic as the head of a line item of its own, as the filings print their
// row labels: "deferred revenue", "unearned revenue" and "restricted cash"
// are rows, not revenue or cash. The word before the name and the name
// must be a row label of some filing (or its start), the word no issuer's
// name, no part of an issuer's business the question names and no word
// that only qualifies a figure (sameFigure), and the two words no
// catalogue name ("net revenue", "operating income" are). The question's
// words then name that row, found by its label, or its gap.
type compounds struct {
	keep   map[string]bool // words that may stand before a name: the issuers' and their parts'
	names  []string        // the catalogue's names, normalised, padded with spaces
	labels []string        // every filing's row labels, normalised, padded with spaces
}

func newCompounds(question string, cat *Catalog, issuers []string) *compounds {
	c := &compounds{keep: map[string]bool{}}
	for _, m := range tools.Metrics {
		for _, a := range append([]string{m.Label}, m.Aliases...) {
			c.names = append(c.names, " "+normLabel(a)+" ")
		}
	}
	for _, d := range tools.DerivedMetrics {
		for _, a := range append([]string{d.Label}, d.Aliases...) {
			c.names = append(c.names, " "+normLabel(a)+" ")
		}
	}
	for _, t := range issuers {
		c.keep[strings.ToLower(t)] = true
		for _, w := range strings.Fields(normLabel(cat.Company(t) + " " + cat.ShortName(t))) {
			c.keep[w] = true
		}
		for _, n := range cat.issuerNames(t) {
			for _, w := range strings.Fields(normLabel(n)) {
				c.keep[w] = true
			}
		}
		for _, seg := range cat.SegmentsIn(question, t) {
			for _, w := range strings.Fields(normLabel(seg.Name)) {
				c.keep[w] = true
			}
		}
	}
	c.labels = cat.rowLabels()
	return c
}

// rowLabels returns the distinct row labels of every filing's figures,
// normalised and padded with spaces.
func (c *Catalog) rowLabels() []string {
	seen := map[string]bool{}
	var out []string
	for _, entries := range c.figures {
		for _, e := range entries {
			if l := normLabel(e.Label); l != "" && !seen[l] {
				seen[l] = true
				out = append(out, " "+l+" ")
			}
		}
	}
	return out
}

// head reports whether name, one word, heads a line item in text, the
// question lower-cased up to the name.
func (c *compounds) head(text, name string) bool {
	before := strings.Fields(normLabel(text))
	if len(before) == 0 || strings.Contains(name, " ") || len(c.labels) == 0 {
		return false
	}
	w := before[len(before)-1]
	if strings.HasSuffix(w, "'s") || len(w) <= 2 || strings.IndexFunc(w, unicode.IsDigit) >= 0 ||
		questionStopwords[w] || phraseStopwords[w] || looseFiller[w] || c.keep[w] || sameFigure[w] {
		return false
	}
	item := " " + w + " " + normLabel(name) + " "
	if slices.ContainsFunc(c.names, func(n string) bool { return strings.Contains(n, item) }) {
		return false
	}
	return slices.ContainsFunc(c.labels, func(l string) bool { return strings.HasPrefix(l, item) })
}

// dropCompounds leaves out the figures the question names only as the
// head of another noun (compounds).
func dropCompounds(question string, asks []FigureAsk, c *compounds) []FigureAsk {
	norm := " " + strings.Join(strings.Fields(normLabel(strings.ReplaceAll(question, "%", " percent "))), " ") + " "
	out := asks[:0:0]
	for _, a := range asks {
		if a.at <= len(norm) && c.head(norm[:a.at], a.Phrase) {
			continue
		}
		out = append(out, a)
	}
	return out
}

// sameFigure are words that qualify a figure without making it another:
// its period, its scope, its basis.
var sameFigure = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`quarterly yearly monthly full first second third fourth ttm trailing cumulative
	consolidated reported gaap overall global worldwide group entire whole its their her his combined`) {
		sameFigure[w] = true
	}
}

// growthWords show that a question about revenue asks how it changed
// over time: the change words, less those that compare levels ("compare",
// "higher", "lower"), which a comparison of two issuers' revenue uses too.
var growthWords = slices.DeleteFunc(slices.Clone(ChangeWords), func(w string) bool {
	return w == "compare" || w == "higher" || w == "lower" || w == "up" || w == "down"
})

// movedUpDown matches "up" and "down" saying a figure moved ("revenue was
// up 8%", "down from 2022", "went down"), not as the particle of another
// verb ("stack up against", "break down by segment").
var movedUpDown = regexp.MustCompile(`\b(was|were|is|are|been|be|went|go|gone|going|came|come|trended|moving|moved)\s+(up|down)\b|\b(up|down)\s+(\$|\d|by\b|from\b|year\b|yoy\b|y/y|on\s+the\s+year|versus\b|vs\b|compared\b|over\b|sharply\b|significantly\b|slightly\b|materially\b|meaningfully\b)`)

// asksGrowth reports whether a normalised question asks how a figure
// changed.
func asksGrowth(norm string) bool {
	return anyTerm(norm, growthWords) || movedUpDown.MatchString(norm)
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
		// Shorthand is written in capitals in any question ("FY22 GM%
		// for COST?"): it says nothing of how the rest is written.
		if len(w) < 2 || financeAcronyms[strings.ToLower(w)] {
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
	var years []int
	for _, ys := range findYearSpans(q) {
		years = appendNewInts(years, ys.years...)
	}
	slices.Sort(years)
	return years
}

// paidVerb matches a question asking what an issuer paid for or spent on
// something: its object is the third group.
var paidVerb = regexp.MustCompile(`(?i)\b(did|does|do|has|have|had|will)\s+(?:[\pL&.'’-]+\s+){1,4}?(pay|paid|spend|spent|invest|invested)\s+(?:in\s+cash\s+)?(?:for|on|in)\s+((?:[\pL&-]+\s*){1,5})`)

// paidFor returns what a question asks the issuer paid for ("content
// assets"), up to a period word, a number or a clause's end.
func paidFor(q string) (string, bool) {
	m := paidVerb.FindStringSubmatch(q)
	if m == nil {
		return "", false
	}
	var words []string
	for _, w := range strings.Fields(m[3]) {
		lw := strings.ToLower(w)
		if questionStopwords[lw] || wholeWords[lw] || askingWords[lw] || months[lw] || lw == "fiscal" || lw == "fy" || lw == "last" || lw == "this" {
			break
		}
		words = append(words, lw)
	}
	if len(words) == 0 || len(words) > 4 {
		return "", false
	}
	return strings.Join(words, " "), true
}

// baseCue ends the text before a year named as a comparison's base.
var baseCue = regexp.MustCompile(`(?i)\b(than|vs\.?|versus|compared\s+(to|with)|relative\s+to|against|from)\s+(in\s+|during\s+|for\s+)?(the\s+)?(fiscal\s+(year\s+)?|fy\s*)?$`)

// findBaseYears returns the years of q named only after a comparison's
// cue ("than in 2019"), when q names another year too.
func findBaseYears(q string, years []int) []int {
	if len(years) < 2 {
		return nil
	}
	var base, other []int
	for _, sp := range findYearSpans(q) {
		if len(sp.years) == 1 && baseCue.MatchString(q[:sp.start]) {
			base = appendNewInts(base, sp.years...)
		} else {
			other = appendNewInts(other, sp.years...)
		}
	}
	base = slices.DeleteFunc(base, func(y int) bool { return slices.Contains(other, y) })
	if len(other) == 0 {
		return nil
	}
	slices.Sort(base)
	return base
}

// yearSpan is a stretch of a question naming fiscal years.
type yearSpan struct {
	start, end int
	years      []int
}

// findYearSpans returns the stretches of q that name fiscal years, in
// order, each with the years it names.
func findYearSpans(q string) []yearSpan {
	var out []yearSpan
	var cur *yearSpan
	taken := make(claims, len(q))
	add := func(y int) {
		if y >= 1993 && y <= 2100 {
			cur.years = appendNewInts(cur.years, y)
		}
	}
	open := func(start, end int) {
		out = append(out, yearSpan{start: start, end: end})
		cur = &out[len(out)-1]
	}
	for _, m := range yearRange.FindAllStringSubmatchIndex(q, -1) {
		a, _ := strconv.Atoi(q[m[2]:m[3]])
		b, _ := strconv.Atoi(q[m[4]:m[5]])
		if b < a || b-a > 10 {
			continue
		}
		// "2021 and 2023" names two years; "2021-2023" and "2021 to 2023" a range.
		sep := strings.ToLower(strings.TrimSpace(q[m[3]:m[4]]))
		open(m[0], m[1])
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
		open(m[0], m[1])
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
		open(m[0], m[1])
		add(y)
	}
	out = slices.DeleteFunc(out, func(y yearSpan) bool { return len(y.years) == 0 })
	slices.SortFunc(out, func(a, b yearSpan) int { return a.start - b.start })
	return out
}

func appendNewInts(list []int, add ...int) []int {
	for _, a := range add {
		if !slices.Contains(list, a) {
			list = append(list, a)
		}
	}
	return list
}

// findAspects returns the Lexicon aspects a lower-cased question names, in
// the order named (norm is the question through routerNorm). Triggers are
// tried longest first and a part of the
// question counts for one aspect only; issuer names are skipped.
func findAspects(norm string, issuerSpans claims, skip func(start, end int) bool) []span {
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
			if skip != nil && skip(s[0], s[1]) {
				continue
			}
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
var causalVerbs = regexp.MustCompile(`\b(improve[sd]?|improving|drive[sn]?|drove|driving|cause[sd]?|causing|boost(s|ed|ing)?|lead\s+to|leads\s+to|led\s+to|result(s|ed)?\s+in|contribute[sd]?\s+to|hurt(s|ing)?|weigh(s|ed)?\s+on|pressure[sd]?|affect(s|ed)?|impact(s|ed)?|help(s|ed)?|lift(s|ed)?|raise[sd]?|reduce[sd]?|lower(s|ed)?|expand(s|ed)?|compress(es|ed)?|benefit(s|ed|ted)?|erode[sd]?|dampen(s|ed)?|fuel(s|ed|led)?|translate[sd]?\s+into|increase[sd]?|decrease[sd]?|push(es|ed|ing)?|behind)\b`)

// reverseCausal introduce the cause after the effect: "Y rose because of X".
var reverseCausal = regexp.MustCompile(`\b(because\s+of|due\s+to|driven\s+by|as\s+a\s+result\s+of|thanks\s+to|caused\s+by|attributable\s+to|owing\s+to|on\s+the\s+back\s+of|fueled\s+by|fuelled\s+by|helped\s+by|hurt\s+by|pressured\s+by)\b`)

// findCausal reads "did X improve Y", "X improved Y" and "Y because of X",
// where Y is an aspect of the question and X another aspect or, when no
// aspect stands there, the question's own words for the cause ("did the
// advertising tier cause margins to rise": advertising, tier). Words in
// taken (the issuers' names) are not a cause.
func findCausal(lower string, aspects []span, taken claims) *Causal {
	if len(aspects) == 0 {
		return nil
	}
	try := func(at, end int, causeBefore bool) *Causal {
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
		if len(effect) == 0 {
			return nil
		}
		c := &Causal{CauseAspects: cause, EffectAspects: effect}
		if len(cause) == 0 {
			// The cause in the question's own words.
			// The cause is named in the clause of the verb: "caused by the
			// drop in GMV — I need the dollar attribution" names the drop
			// in GMV.
			from, to := clauseStart(lower, at), at
			if !causeBefore {
				from, to = end, clauseEnd(lower, end)
			}
			c.CauseWords = causeWords(lower, from, to, aspects, taken)
			if len(c.CauseWords) == 0 {
				return nil
			}
		}
		c.CauseAspects, c.Cause = causeTerms(cause)
		c.EffectAspects, c.Effect = causeTerms(effect)
		return c
	}
	if m := causeNoun.FindStringSubmatchIndex(lower); m != nil {
		// "Was X the reason Y rose?", "Y rose. Was X the reason for
		// that?": the cause stands between the verb and the noun, the
		// effect anywhere else.
		if c := causeBetween(lower, m[2], m[3], aspects, taken); c != nil {
			return c
		}
	}
	if m := reverseCausal.FindStringIndex(lower); m != nil {
		if c := try(m[0], m[1], false); c != nil {
			return c
		}
	}
	for _, m := range causalVerbs.FindAllStringIndex(lower, -1) {
		if c := try(m[0], m[1], true); c != nil {
			return c
		}
	}
	return nil
}

// causeNoun matches a question that names its cause as "the reason" or
// "the cause": the cause is its first group, within one clause ("What was
// the percentage, and what does management point to as the reason" names
// no cause).
var causeNoun = regexp.MustCompile(`\b(?:was|were|is|are)\s+([^,;:?!.]+?)\s+(?:the|a|one\s+of\s+the)\s+(?:main\s+|primary\s+|real\s+|key\s+|biggest\s+|only\s+)?(?:reason|reasons|cause|causes|driver|drivers)\b`)

// causeBetween reads a causal question whose cause is lower[from:to]:
// the aspects there, or its own words, cause the aspects outside it.
func causeBetween(lower string, from, to int, aspects []span, taken claims) *Causal {
	var cause, effect []string
	for _, a := range aspects {
		if a.value == "general" || a.value == "outlook" {
			continue
		}
		if a.start >= from && a.start < to {
			cause = appendNew(cause, a.value)
		} else {
			effect = appendNew(effect, a.value)
		}
	}
	effect = slices.DeleteFunc(effect, func(n string) bool { return slices.Contains(cause, n) })
	if len(effect) == 0 {
		return nil
	}
	c := &Causal{}
	if len(cause) == 0 {
		if c.CauseWords = causeWords(lower, from, to, aspects, taken); len(c.CauseWords) == 0 {
			return nil
		}
	}
	c.CauseAspects, c.Cause = causeTerms(cause)
	c.EffectAspects, c.Effect = causeTerms(effect)
	return c
}

// figurePrefix marks a figure the question names among the spans a
// causal reading considers: "figure:operating margin".
const figurePrefix = "figure:"

// causeTerms returns the aspect names among names and the words a
// sentence may use for them: an aspect's terms, a figure's phrase.
func causeTerms(names []string) (aspects, terms []string) {
	for _, n := range names {
		if phrase, ok := strings.CutPrefix(n, figurePrefix); ok {
			terms = appendNew(terms, phrase)
			continue
		}
		a, _ := AspectByName(n)
		aspects = append(aspects, n)
		terms = appendNew(terms, a.Terms...)
	}
	return aspects, terms
}

// causeWords are the content words of lower[from:to] that name a cause:
// letter words of three letters or more, not stop words, not an issuer's
// name, not in an aspect's span; at most four, or none when the stretch
// holds more (a clause, not a noun phrase).
func causeWords(lower string, from, to int, aspects []span, taken claims) []string {
	var out []string
	i := from
	for i < to {
		for i < to && !isLetterByte(lower[i]) {
			i++
		}
		j := i
		for j < to && (isLetterByte(lower[j]) || lower[j] == '\'') {
			j++
		}
		if j == i {
			break
		}
		w := strings.TrimSuffix(strings.TrimSuffix(lower[i:j], "'s"), "'")
		inAspect := slices.ContainsFunc(aspects, func(a span) bool { return i < a.end && a.start < j })
		verb := causalVerbs.MatchString(w) || anyTerm(w, whyWords)
		if len(w) >= 3 && !verb && !questionStopwords[w] && !causeStopwords[w] && !taken.overlaps(i, min(j, len(taken))) && !inAspect {
			out = appendNew(out, w)
		}
		i = j
	}
	if len(out) > 4 {
		return nil
	}
	return out
}

// clauseBreak matches what ends a clause within a question.
var clauseBreak = regexp.MustCompile(`[—–;:?!]|\.\s|\s-\s`)

// clauseStart returns where the clause holding lower[at] starts.
func clauseStart(lower string, at int) int {
	start := 0
	for _, m := range clauseBreak.FindAllStringIndex(lower[:at], -1) {
		start = m[1]
	}
	return start
}

// clauseEnd returns where the clause holding lower[at] ends.
func clauseEnd(lower string, at int) int {
	if m := clauseBreak.FindStringIndex(lower[at:]); m != nil {
		return at + m[0]
	}
	return len(lower)
}

func isLetterByte(c byte) bool { return 'a' <= c && c <= 'z' || c >= 0x80 }

// causeStopwords are the words of a yes-or-no causal question around its
// cause that are not the cause.
var causeStopwords = map[string]bool{"the": true, "its": true, "their": true, "his": true, "her": true,
	"not": true, "yes": true, "really": true, "actually": true, "indeed": true, "ever": true, "all": true}

// appendNew appends the items of add that list does not hold.
func appendNew(list []string, add ...string) []string {
	for _, a := range add {
		if !slices.Contains(list, a) {
			list = append(list, a)
		}
	}
	return list
}

// bindYears gives each issuer the fiscal years named after its mention and
// before the next issuer's (or, for years before any issuer, the first
// issuer's). It returns nil unless two or more issuers are named, every one
// gets a year, and they do not all get the same years: then the years are
// the question's, for every issuer.
func bindYears(question string, cat *Catalog, issuers []string) map[string][]int {
	if len(issuers) < 2 {
		return nil
	}
	spans := findYearSpans(question)
	if len(spans) < 2 {
		return nil
	}
	lower := routerNorm(question)
	type mention struct {
		at     int
		ticker string
	}
	var mentions []mention
	for _, t := range issuers {
		at := -1
		names := append([]string{t, cat.ShortName(t), shortName(cat.Company(t))}, cat.issuerNames(t)...)
		for _, n := range names {
			n = strings.TrimSpace(asciiLower(n))
			if len(n) < 2 {
				continue
			}
			for _, sp := range findWord(lower, n) {
				if at < 0 || sp.start < at {
					at = sp.start
				}
			}
		}
		if at < 0 {
			return nil // named by --tickers, not in the question
		}
		mentions = append(mentions, mention{at, t})
	}
	slices.SortFunc(mentions, func(a, b mention) int { return a.at - b.at })
	out := map[string][]int{}
	for _, ys := range spans {
		owner := mentions[0].ticker
		for _, m := range mentions {
			if m.at <= ys.start {
				owner = m.ticker
			}
		}
		out[owner] = appendNewInts(out[owner], ys.years...)
	}
	// "Amazon and Alphabet at Dec 31, 2024 vs Oracle at May 31, 2023":
	// issuers listed together before a date share it.
	for i, m := range mentions {
		if len(out[m.ticker]) > 0 {
			continue
		}
		for _, ys := range spans {
			if ys.start > m.at {
				if i+1 < len(mentions) && mentions[i+1].at < ys.start {
					out[m.ticker] = appendNewInts(out[m.ticker], ys.years...)
				}
				break
			}
		}
	}
	same := true
	for _, t := range issuers {
		if len(out[t]) == 0 {
			return nil
		}
		slices.Sort(out[t])
		if !slices.Equal(out[t], out[issuers[0]]) {
			same = false
		}
	}
	if same {
		return nil
	}
	return out
}

// qualifiesFigure reports whether trigger, a word of a topic without
// figures of its own (Lexicon "segments", "risks"), stands right before a
// figure the question asks: rest, the question after it, starts with the
// figure's name.
func qualifiesFigure(trigger, rest string, figures []FigureAsk) bool {
	term := normalizeTerm(strings.TrimSpace(trigger))
	topic := slices.ContainsFunc(Lexicon, func(a Aspect) bool {
		return len(a.Metrics) == 0 && a.Name != "general" && slices.ContainsFunc(a.Triggers, func(t string) bool {
			return strings.HasPrefix(term, normalizeTerm(t))
		})
	})
	if !topic {
		return false
	}
	rest = strings.TrimLeft(rest, " ")
	return slices.ContainsFunc(figures, func(f FigureAsk) bool {
		return f.Phrase != "" && strings.HasPrefix(rest, f.Phrase)
	})
}

// spentAs reports whether f, a figure named in what a question asks was
// paid for or spent on, is that spending: named as the whole object ("how
// much did Apple spend on capital expenditures"), or as its last word when
// the figure is money going out ("spend on share buybacks": buybacks), not
// a figure the object merely contains ("assets" of "content assets").
func spentAs(f FigureAsk, paid string) bool {
	object := normLabel(paid)
	if f.Phrase == object {
		return true
	}
	m, ok := tools.MetricByName(f.Metric)
	return ok && m.Outflow && strings.HasSuffix(" "+object, " "+f.Phrase)
}
