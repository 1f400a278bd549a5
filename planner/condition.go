package planner

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/tools"
)

// Check reports whether req's completion condition holds in the ledger, and
// the evidence that meets it.
//
// Evidence counts for a requirement when it is linked to it (the ledger
// requirement's Evidence) — plus, for fact conditions, any fact of the run
// whose evidence has the issuer's ticker, and for passage conditions any
// passage of the run of the issuer and period. calcs lists the requirement
// ids with a successful calculation; met lists the requirement ids already
// met, for comparable conditions.
//
//   - passage: passage evidence of the issuer (and of the period, when the
//     condition names one), linked or gathered for another requirement, with
//     one sentence that holds a word of every AllOf group; the evidence ids
//     come best first (most words matched), linked first among equals.
//   - fact: a fact of one of Concepts (qualified or not) for the issuer and
//     period; see FactInPeriod for how periods are compared.
//   - calculation: calcs[req.ID]; the evidence is what is linked to req.
//   - comparable: every requirement of Of is in met.
func Check(req Requirement, l *ledger.RunLedger, calcs map[string]bool, met map[string]bool) (evidenceIDs []string, ok bool) {
	c := req.Completion
	issuer := c.Issuer
	if issuer == "" {
		issuer = req.Issuer
	}
	period := c.Period
	if period == "" {
		period = req.Period
	}
	switch c.Kind {
	case CondPassage:
		if l == nil {
			return nil, false
		}
		return checkPassage(l, req.ID, issuer, period, c.AllOf, IsCausal(req))
	case CondFact:
		if l == nil {
			return nil, false
		}
		return checkFact(l, issuer, period, c.QuarterEnded, c.Concepts)
	case CondCalculation:
		if !calcs[req.ID] {
			return nil, false
		}
		if l != nil {
			if lr := ledgerRequirement(l, req.ID); lr != nil {
				evidenceIDs = slices.Clone(lr.Evidence)
			}
		}
		return evidenceIDs, true
	case CondComparable:
		if len(c.Of) == 0 {
			return nil, false
		}
		for _, id := range c.Of {
			if !met[id] {
				return nil, false
			}
		}
		return nil, true
	}
	return nil, false
}

func ledgerRequirement(l *ledger.RunLedger, id string) *ledger.Requirement {
	for i := range l.Requirements {
		if l.Requirements[i].ID == id {
			return &l.Requirements[i]
		}
	}
	return nil
}

// IsCausal reports whether req is a causal question's link: one sentence
// must state that the cause brought about the effect (see Linked).
func IsCausal(req Requirement) bool {
	return req.Aspect == "causal" || strings.HasSuffix(req.ID, "-causal")
}

func checkPassage(l *ledger.RunLedger, reqID, issuer, period string, groups [][]string, link bool) ([]string, bool) {
	lr := ledgerRequirement(l, reqID)
	if lr == nil {
		return nil, false
	}
	byID := make(map[string]*ledger.Evidence, len(l.Evidence))
	for i := range l.Evidence {
		byID[l.Evidence[i].ID] = &l.Evidence[i]
	}
	// The passages gathered for the requirement come first; then every
	// other passage of the run from the same filing period, gathered for
	// another requirement ("Google Cloud revenues increased $10.1 billion
	// ... primarily driven by", found by the search for the premise's
	// statement, explains the growth asked as well). A passage is the
	// filing's, whichever search found it; the condition decides.
	pool := slices.Clone(lr.Evidence)
	for i := range l.Evidence {
		if link {
			// A causal link is looked for in the passages searched for
			// it: reading every sentence of the run for one is costly,
			// and the cause and effect's own searches find it.
			break
		}
		if e := &l.Evidence[i]; e.Kind == ledger.KindPassage && e.Ticker == issuer && (period == "" || e.Period == period) {
			pool = append(pool, e.ID)
		}
	}
	if len(pool) == 0 {
		return nil, false
	}
	m := compileGroups(groups)
	if fy, ok := FiscalYearOf(period); ok {
		m.year = fy
	}
	type hit struct {
		id    string
		score int
	}
	var hits []hit
	seen := map[string]bool{}
	for _, id := range pool {
		e := byID[id]
		if e == nil || seen[id] || e.Kind != ledger.KindPassage || e.Ticker != issuer {
			continue
		}
		if period != "" && e.Period != period {
			continue
		}
		seen[id] = true
		if link {
			for _, sen := range Sentences(e.Excerpt) {
				if sc, all := m.score(sen); all && Linked(sen, groups) {
					hits = append(hits, hit{id, sc})
					break
				}
			}
			continue
		}
		if !m.mayMatch(e.Excerpt) {
			continue // some group's words are nowhere in the passage
		}
		if _, score, ok := m.best(e.Excerpt); ok {
			hits = append(hits, hit{id, score})
		}
	}
	slices.SortStableFunc(hits, func(a, b hit) int { return b.score - a.score })
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.id
	}
	return ids, len(ids) > 0
}

func checkFact(l *ledger.RunLedger, issuer, period, quarterEnded string, concepts []string) ([]string, bool) {
	byID := make(map[string]*ledger.Evidence, len(l.Evidence))
	for i := range l.Evidence {
		byID[l.Evidence[i].ID] = &l.Evidence[i]
	}
	rank := make(map[string]int, len(concepts))
	for i, c := range concepts {
		if _, ok := rank[localName(c)]; !ok {
			rank[localName(c)] = i
		}
	}
	type hit struct {
		id   string
		rank int
	}
	var hits []hit
	seen := map[string]bool{}
	for _, f := range l.Facts {
		r, ok := rank[localName(f.Concept)]
		if !ok {
			continue
		}
		e := byID[f.EvidenceID]
		if e == nil || e.Ticker != issuer || seen[e.ID] {
			continue
		}
		if !factMeets(f, *e, period, quarterEnded) {
			continue
		}
		seen[e.ID] = true
		hits = append(hits, hit{e.ID, r})
	}
	slices.SortStableFunc(hits, func(a, b hit) int { return a.rank - b.rank })
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.id
	}
	return ids, len(ids) > 0
}

// localName drops a concept's prefix: "us-gaap:Revenues" -> "Revenues".
func localName(concept string) string {
	return tools.LocalKey(concept)
}

// FactInPeriod reports whether fact f, shown in evidence e, belongs to
// the period "FY2024"; it is the rule Check applies to fact conditions. A
// fact whose period is a date or a date range is judged by its dates: it
// ends in the fiscal year (or in the first two weeks of the next one, for
// 52/53-week years ending early in January) and, when it is a duration, it
// spans a year — or any length for a fact shown in a 10-Q. A fact whose
// period cannot be read, or a period that is not a fiscal year, is judged
// by the evidence's period label.
func FactInPeriod(f ledger.Fact, e ledger.Evidence, period string) bool {
	fy, ok := FiscalYearOf(period)
	if !ok {
		return e.Period == period
	}
	start, end, ok := factDates(f.Period)
	if !ok {
		return e.Period == period
	}
	endsInYear := end.Year() == fy || (end.Year() == fy+1 && end.Month() == time.January && end.Day() <= 14)
	if !endsInYear {
		return false
	}
	if start.IsZero() || strings.HasPrefix(e.Form, "10-Q") {
		return true
	}
	return end.Sub(start) >= 300*24*time.Hour
}

// FactMeets reports whether fact f, shown in evidence e, is of the
// period fact condition c asks (the issuer aside): its quarter where it
// names one (factInQuarter), else its fiscal year (FactInPeriod); period
// stands in for c.Period when that is empty.
func FactMeets(f ledger.Fact, e ledger.Evidence, c Condition, period string) bool {
	return factMeets(f, e, cmp.Or(c.Period, period), c.QuarterEnded)
}

func factMeets(f ledger.Fact, e ledger.Evidence, period, quarterEnded string) bool {
	switch {
	case quarterEnded != "":
		return factInQuarter(f, quarterEnded)
	case period != "":
		return FactInPeriod(f, e, period)
	}
	return true
}

// factInQuarter reports whether fact f lasts a quarter that ends in the
// month quarterEnded names ("2020-09"), or in the first week of the next
// (see Condition.QuarterEnded).
func factInQuarter(f ledger.Fact, quarterEnded string) bool {
	start, end, ok := factDates(f.Period)
	if !ok || start.IsZero() || end.Sub(start) > tools.MaxQuarterDays*24*time.Hour {
		return false
	}
	m, y := quarterMonth(end)
	return fmt.Sprintf("%04d-%02d", y, int(m)) == quarterEnded
}

// FiscalYearOf reads a fiscal-year period label: "FY2024" is 2024. Any
// other text reports false.
func FiscalYearOf(period string) (int, bool) {
	s, ok := strings.CutPrefix(period, "FY")
	if !ok || len(s) != 4 {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

// factDates reads a fact period: "2023-10-01/2024-09-28" or an instant
// "2024-09-28" (start is zero then).
func factDates(p string) (start, end time.Time, ok bool) {
	a, b, isRange := strings.Cut(strings.TrimSpace(p), "/")
	if !isRange {
		t, err := time.Parse(time.DateOnly, a)
		return time.Time{}, t, err == nil
	}
	s, err1 := time.Parse(time.DateOnly, a)
	t, err2 := time.Parse(time.DateOnly, b)
	return s, t, err1 == nil && err2 == nil
}

// SentenceMatch returns the sentence of text that holds a word or phrase of
// every group, or false when none does. When several do, the one with the
// most distinct words matched wins, then the earliest. The sentence is a
// verbatim part of text. With no groups, any sentence matches: the first.
// Matching follows the rules of Aspect: case-insensitive, on word
// boundaries, short words whole, longer ones as prefixes; FigureTerm
// matches a reported amount.
func SentenceMatch(text string, groups [][]string) (sentence string, ok bool) {
	s, _, ok := compileGroups(groups).best(text)
	return s, ok
}

// matcher is a compiled list of condition groups.
type matcher struct {
	groups  [][]string // normalised terms
	forward bool       // the notice on forward-looking statements does not count: it is not what is asked
	why     bool       // a group is the words of a reason (DriverWords): the sentence explains what moved
	// year, when set, is the fiscal year a figure is asked for: a
	// sentence stating a figure (a number term) that names years, none of
	// them this one, states another year's ("... for 2020, of which 1.3
	// million were paid members" in the 2022 report).
	year int
}

// driverTerms are DriverWords as a compiled group holds them: a condition
// asking why a figure moved, whose sentence, naming other years only,
// explains another year's move.
var driverTerms = sync.OnceValue(func() []string {
	var out []string
	for _, t := range DriverWords {
		if t = normalizeTerm(t); t != "" {
			out = append(out, t)
		}
	}
	return out
})

// yearWords finds the years a sentence names.
var yearWords = regexp.MustCompile(`\b(?:19|20)\d{2}\b`)

// otherYear reports whether s states a figure of a year other than m.year:
// m asks a figure, and s names years, none of them m.year.
func (m matcher) otherYear(s string) bool {
	if m.year == 0 || !slices.ContainsFunc(m.groups, func(g []string) bool {
		return slices.ContainsFunc(g, func(t string) bool { return IsNumberTerm(t) && t != ExpectedTerm }) || slices.Equal(g, driverTerms())
	}) {
		return false
	}
	ys := yearWords.FindAllStringIndex(s, -1)
	if len(ys) == 0 {
		return false
	}
	asked, prior := strconv.Itoa(m.year), strconv.Itoa(m.year-1)
	for _, y := range ys {
		switch year := s[y[0]:y[1]]; {
		case year == asked:
			return false
		case year == prior && comparedWith.MatchString(s[max(0, y[0]-comparisonReach):y[0]]):
			// "increased 10% compared to 2023": the year before, which
			// the asked year's figure is set against.
			return false
		}
	}
	return true
}

// comparedWith finds, before a year, the words that make it the base a
// change is measured from ("compared to", "from", "over", "than").
var comparedWith = regexp.MustCompile(`(?i)\b(?:compared\s+(?:to|with)|from|over|than|versus|vs\.?|relative\s+to|prior|since)\b[^.;]*$`)

// comparisonReach is how many bytes before a year comparedWith reads.
const comparisonReach = 40

// compileGroups compiles condition groups. The legal notice on
// forward-looking statements (SafeHarbour) lists what management might
// expect, risk, or say of its revenue and margins without stating any of
// it, so no sentence of it meets a condition, unless a group asks for the
// notice itself (a term "forward").
func compileGroups(groups [][]string) matcher {
	m := matcher{groups: make([][]string, 0, len(groups)), forward: true}
	for _, g := range groups {
		var terms []string
		for _, t := range g {
			if t = normalizeTerm(t); t != "" {
				terms = append(terms, t)
			}
			if strings.HasPrefix(t, "forward") {
				m.forward = false
			}
		}
		m.groups = append(m.groups, terms)
		m.why = m.why || slices.Equal(terms, driverTerms())
	}
	return m
}

// best returns the best sentence of text holding every group, and its
// score. A sentence scores the distinct terms it holds, at most two per
// group, so that a long list naming every driver does not outrank a
// sentence that states the point; between equal scores the shorter wins.
func (m matcher) best(text string) (sentence string, score int, ok bool) {
	bestScore := -1
	for _, s := range Sentences(text) {
		sc, all := m.score(s)
		if all && !m.otherYear(s) && (sc > bestScore || sc == bestScore && len(s) < len(sentence)) {
			sentence, bestScore = s, sc
		}
	}
	if bestScore < 0 {
		return m.bestPair(text)
	}
	return sentence, bestScore, true
}

// bestPair returns, for a condition that asks for a figure, the best run
// of sentences of one paragraph whose last states the figure and takes its
// subject from one at most pairReach sentences before it ("On March 3 we
// agreed to sell our storage business to a buyer. [...] The transaction
// will occur in two closings for total consideration of $9.0 billion"):
// together they hold every group, the last alone holds the figure and
// opens by pointing back (PointsBack), and every other group is one word
// or phrase of the question's. The run is a verbatim part of text, as
// short as holds every group; it scores one less than its terms, so that
// one sentence stating it all is preferred.
func (m matcher) bestPair(text string) (sentence string, score int, ok bool) {
	figure := slices.IndexFunc(m.groups, func(g []string) bool {
		return slices.ContainsFunc(g, func(t string) bool { return IsNumberTerm(t) && t != ExpectedTerm })
	})
	if figure < 0 || len(m.groups) < 2 {
		return "", 0, false
	}
	// A topic of alternatives (a lexicon's words: "interest rate",
	// "inflation", ...) is met by chance somewhere in a paragraph; only the
	// question's own words, one to a group, name the subject a sentence
	// points back to. A group of alternatives may still be met by the
	// figure's own sentence ("the effect of this change in estimate ... was
	// an increase in operating income of $2.7 billion").
	own := [][]string{m.groups[figure]}
	single := 0
	for i, g := range m.groups {
		switch {
		case i == figure:
		case len(g) == 1:
			single++
		default:
			own = append(own, g)
		}
	}
	// With no word of the question's own, only a sentence that opens by
	// taking a part of what the one before it counted ("Of these,
	// approximately 9,000 (70%) were located in the United States and
	// Canada") takes its subject from there; its number counts what that
	// one named.
	partitiveOnly := single == 0
	one := matcher{groups: own, forward: m.forward}
	// Such a sentence states the number and narrows it by one group at
	// least ("located in the United States and Canada"); the sentence
	// before names the rest ("12,800 full-time employees").
	number := slices.Clone(own[0])
	for i, t := range number {
		if t == CountTerm {
			number[i] = FigureTerm
		}
	}
	partOf := func(second string) bool {
		if _, ok := (matcher{groups: [][]string{number}, forward: m.forward}).score(second); !ok {
			return false
		}
		for i, g := range m.groups {
			if i == figure {
				continue
			}
			if _, ok := (matcher{groups: [][]string{g}, forward: m.forward}).score(second); ok {
				return true
			}
		}
		return false
	}
	bestScore := -1
	for _, b := range blocks(text) {
		spans := sentenceSpans(text[b[0]:b[1]])
		for i := 1; i < len(spans); i++ {
			second := text[b[0]+spans[i][0] : b[0]+spans[i][1]]
			partitive := partitiveBack.MatchString(second)
			if partitiveOnly && !partitive {
				continue
			}
			if partitive {
				if !partOf(second) {
					continue
				}
			} else if _, has := one.score(second); !has || !PointsBack(second) && !refersBack(second) {
				continue
			}
			for j := i - 1; j >= max(0, i-pairReach); j-- {
				pair := text[b[0]+spans[j][0] : b[0]+spans[i][1]]
				if sc, all := m.score(pair); all {
					if sc-1 > bestScore {
						sentence, bestScore = pair, sc-1
					}
					break
				}
			}
		}
	}
	if bestScore < 0 {
		return "", 0, false
	}
	return sentence, bestScore, true
}

// PointsBack reports whether a sentence opens by pointing back to the one
// before it ("The transaction", "This agreement", "Such payments"), so
// that its subject is named there.
func PointsBack(sentence string) bool {
	first, _, _ := strings.Cut(strings.TrimSpace(sentence), " ")
	return pointingBack[strings.ToLower(first)] || partitiveBack.MatchString(sentence)
}

// partitiveBack matches a sentence opening with a part of what the one
// before it named: "Of these,", "Of this amount", "Of which", "Of the
// total".
var partitiveBack = regexp.MustCompile(`(?i)^\W*of\s+(?:these|those|this|that|which|them|the\s+total)\b`)

// refersBack reports whether a sentence holds a determiner pointing back
// to what a sentence before named ("the effect of this change in
// estimate"); a period of its own ("this year") does not.
func refersBack(s string) bool {
	for _, m := range pointerNoun.FindAllStringSubmatch(s, -1) {
		if !periodNouns[strings.ToLower(m[1])] {
			return true
		}
	}
	return false
}

// pointerNoun matches a pointing determiner and the word after it.
var pointerNoun = regexp.MustCompile(`(?i)\b(?:this|these|such)\s+([a-z]{3,})`)

// periodNouns are the words after "this" that name a period, not a thing
// named before.
var periodNouns = map[string]bool{"year": true, "years": true, "quarter": true, "period": true, "time": true, "fiscal": true,
	"month": true, "week": true}

// pairReach is how many sentences before a figure's sentence its subject
// is looked for.
const pairReach = 2

var pointingBack = map[string]bool{"the": true, "this": true, "these": true, "those": true, "such": true, "it": true, "its": true,
	"they": true, "their": true, "that": true}

// mayMatch reports whether every group has a term somewhere in text: a
// sentence (or a run of them) of text can meet the condition only then,
// and the check is far cheaper than reading text sentence by sentence.
func (m matcher) mayMatch(text string) bool {
	lower := normalizeText(text)
	for _, g := range m.groups {
		// A term read against its sentence's other words (a subject
		// before any reason, a number's context) is not checked here.
		if !slices.ContainsFunc(g, func(t string) bool {
			return IsNumberTerm(t) || strings.HasPrefix(t, SubjectTerm) || termIn(lower, t)
		}) {
			return false
		}
	}
	return true
}

// score counts the distinct terms of s, at most two per group, and reports
// whether every group has one.
func (m matcher) score(s string) (int, bool) {
	lower := normalizeText(s)
	n, all := 0, true
	blank := hasDigit(s) && RowOmitsOwnPeriod(s)
	owners := "" // lower without "attributable to" after a figure, read once
	for _, g := range m.groups {
		hits := 0
		for _, t := range g {
			if blank && IsNumberTerm(t) {
				continue // the row prints no figure for the filing's period
			}
			in := lower
			if strings.HasPrefix(t, "attributabl") {
				// "net income attributable to Costco" says whose income
				// it is, not what it is due to.
				if owners == "" {
					owners = ownersShareOf.ReplaceAllString(lower, "$1")
				}
				in = owners
			}
			if hits < 2 && termIn(in, t) {
				hits++
			}
		}
		if hits == 0 {
			return 0, false
		}
		n += hits
	}
	if m.forward && SafeHarbour(lower) {
		// Read only of a sentence that meets every group: the pattern
		// costs more than the groups' words.
		return 0, false
	}
	if m.why && !movedIn.MatchString(lower) && (mayMove.MatchString(lower) || !yearWords.MatchString(lower) && !changeNamed.MatchString(lower)) {
		// "modest changes ... can have substantial impacts on net income",
		// "our operating expenses benefit from a stronger dollar": what may
		// move the figure, or moves it in general, not what moved it.
		return 0, false
	}
	return n, all
}

// mayMove and movedIn tell a sentence on what may move a figure (a modal)
// from one reporting a move (a verb of change in the past tense).
var (
	mayMove = regexp.MustCompile(`\b(may|might|could|can)\b`)
	movedIn = regexp.MustCompile(`\b(increased|decreased|rose|fell|grew|declined|improved|dropped|expanded|contracted|narrowed|widened|was|were|reflected|resulted|drove|offset)\b`)
)

// changeNamed matches a change named as a thing ("the decrease in
// operating margin is primarily due to").
var changeNamed = regexp.MustCompile(`\b(increases?|decreases?|declines?|growth|improvement|reduction|rise|drop)\s+(in|of)\b`)

// normalizeText lower-cases text and turns hyphens, newlines and other
// white space into spaces, so that "Gross-margin\npressure" reads as
// "gross margin pressure".
func normalizeText(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '-' || r == '‐' || r == '‑' || r == '–' || r == '—':
			return ' '
		case r == '’':
			return '\''
		case unicode.IsSpace(r):
			return ' '
		}
		return unicode.ToLower(r)
	}, s)
}

func normalizeTerm(t string) string {
	if IsNumberTerm(t) {
		return t
	}
	if w, ok := strings.CutPrefix(t, SubjectTerm); ok {
		return SubjectTerm + normalizeTerm(w)
	}
	return strings.Join(strings.Fields(normalizeText(t)), " ")
}

// figurePattern matches a reported amount in normalised text.
var figurePattern = regexp.MustCompile(`\$ ?\d|\d ?%|\b\d{1,3}(?:,\d{3})+\b|\b\d+(?:\.\d+)? ?(?:million|billion|thousand|percent|basis points)\b`)

// hasDigit reports whether s holds an ASCII digit, as every match of
// figurePattern and amountPattern does: most sentences hold none, and the
// check is far cheaper than the patterns.
func hasDigit(s string) bool { return strings.ContainsAny(s, "0123456789") }

// amountPattern matches a reported amount, not a percentage, in
// normalised text.
var amountPattern = regexp.MustCompile(`\$ ?\d|\b\d{1,3}(?:,\d{3})+\b|\b\d+(?:\.\d+)? ?(?:million|billion|thousand)\b`)

// wholeAmount matches an amount in normalised text whole, its dollar sign,
// decimals and scale with it ("$3.5 billion"), as amountPattern's
// alternatives do not.
var wholeAmount = regexp.MustCompile(`\$ ?\d[\d,]*(?:\.\d+)?(?: ?(?:million|billion|thousand))?|\b\d{1,3}(?:,\d{3})+(?:\.\d+)?\b|\b\d+(?:\.\d+)? ?(?:million|billion|thousand)\b`)

// changeBefore matches, at the end of normalised text, the words that make
// the amount after them a change: "increased", "grew by", "an increase of",
// "up".
var changeBefore = regexp.MustCompile(`\b(increas(e|ed|es|ing)|decreas(e|ed|es|ing)|gr(ew|ow|own|owth)|r(ose|ise|isen)|fell|declin(e|ed|es|ing)|dropp?(ed)?|jump(ed)?|up|down|higher|lower|chang(e|ed))( (by|of))?( (approximately|about|nearly|roughly|some|an|a))? ?$`)

// expectedFigure matches, in normalised text, a verb of expecting and then,
// in its clause, a figure (ExpectedTerm).
var expectedFigure = regexp.MustCompile(`\b(expect|anticipat|project|forecast|plan|estimat|guid|target|intend|intention|will be)\w*\b[^.;:]*?(\$ ?\d|\d ?%|\b\d+(?:\.\d+)? ?(?:million|billion|percent|basis points)\b)`)

// StatesAmount reports whether a sentence states an amount (not only a
// percentage): "$151.0 billion", "2,300".
func StatesAmount(s string) bool { return amountPattern.MatchString(normalizeText(s)) }

// countPattern matches a number with thousands separators in normalised
// text; its group catches a dollar sign before it.
var countPattern = regexp.MustCompile(`(\$ ?)?\b\d{1,3}(?:,\d{3})+\b`)

// scaledCountPattern matches a count written with a scale and followed by
// what it counts ("2.3 million associates"); its first group catches a
// dollar sign before it, its last what is counted.
var scaledCountPattern = regexp.MustCompile(`(\$ ?)?\b\d+(?:\.\d+)? ?(?:million|thousand) ([a-z]+)`)

// notCounted are the words after a scaled number that make it money or a
// rate, not a count of things.
var notCounted = map[string]bool{"dollars": true, "usd": true, "euros": true, "in": true, "of": true, "and": true,
	"or": true, "to": true, "for": true, "from": true, "at": true, "as": true, "was": true, "were": true, "is": true}

// numberOf matches a number of things in normalised text: a number of
// billions, millions or thousands ("1.7 billion live listings"), or digits with thousands separators or none, and
// up to three words after it; its first group catches a dollar sign before
// it.
var numberOf = regexp.MustCompile(`(\$ ?)?\b(\d+(?:\.\d+)? (?:billion|million|thousand)|\d{1,3}(?:,\d{3})*)((?: [a-z]+){0,3})`)

// monthBefore matches a month's name at the end of normalised text: the
// number after it is a day.
var monthBefore = regexp.MustCompile(`\b(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)\.? ?$`)

// measureAfter matches a unit after a number that makes it a measure,
// not a count of things ("a 70-hour week", "a 52-week year").
var measureAfter = regexp.MustCompile(`^ ?(hours?|days?|weeks?|months?|years?|minutes?|seconds?|feet|foot|square|sq|miles?|acres?|points?|basis|times|percent|billion)\b`)

// statesNumberOf reports whether normalised text states a number of the
// things noun names (NumberTerm): a number followed within three words by
// a word beginning as noun does, or right after such a word (a table row).
func statesNumberOf(s, noun string) bool {
	stem := stem5(noun)
	for _, m := range numberOf.FindAllStringSubmatchIndex(s, -1) {
		n := s[m[4]:m[5]]
		if m[2] >= 0 || measureAfter.MatchString(s[m[5]:]) || monthBefore.MatchString(s[:m[0]]) ||
			len(n) == 4 && (strings.HasPrefix(n, "19") || strings.HasPrefix(n, "20")) ||
			m[0] > 0 && (s[m[0]-1] == '.' || s[m[0]-1] == '/') || m[5] < len(s) && (s[m[5]] == '%' || s[m[5]] == '(' || s[m[5]] == '/' || s[m[5]] == '.') {
			continue
		}
		for _, w := range strings.Fields(s[m[6]:m[7]]) {
			if strings.HasPrefix(w, stem) {
				return true
			}
		}
		// A table's row: the label, then its numbers ("total paid
		// members 65,800 61,700").
		before := strings.Fields(s[:m[0]])
		if len(before) > 0 && strings.HasPrefix(before[len(before)-1], stem) {
			return true
		}
		// A number of actions, counted after the verb ("openings": "plan
		// to open approximately up to 29 additional new warehouses").
		if verb := actionVerb(noun); verb != "" {
			for _, w := range before[max(0, len(before)-4):] {
				if w == verb || w == verb+"s" || w == verb+"ed" || w == verb+"ing" {
					return true
				}
			}
		}
	}
	return false
}

// peopleWords begin the words that make a number near them a count of
// people: "a global workforce of 110,600 people", "we employed
// approximately 2.3 million associates", "74,067 employees".
var peopleWords = []string{"employ", "people", "person", "associate", "individual", "worker", "workforce", "staff", "headcount", "team member", "full time", "part time"}

// countsPeople reports whether the number at s[from:to] counts people: a
// word of peopleWords among the four words before it or the five after it.
// "866 million shares of common stock ... to employees" counts shares.
func countsPeople(s string, from, to int) bool {
	before := strings.Fields(s[:from])
	before = before[max(0, len(before)-4):]
	after := strings.Fields(s[to:])
	after = after[:min(len(after), 5)]
	near := strings.Join(before, " ") + " | " + strings.Join(after, " ")
	for _, w := range peopleWords {
		if termIn(near, w) {
			return true
		}
	}
	return false
}

// countNotFollowed matches what after a number makes it no count: a
// decimal part, a percent sign or a scale of money.
var countNotFollowed = regexp.MustCompile(`^(\.\d|,\d| ?%| ?(million|billion|percent))`)

// termIn reports whether the normalised term t occurs in the normalised
// text s on a word boundary: a short alphabetic term (four characters or
// fewer, ending in a letter) as a whole word or its plural, any other term
// as a prefix of a word.
func termIn(s, t string) bool {
	if t == FigureTerm {
		return hasDigit(s) && figurePattern.MatchString(s)
	}
	if t == AmountTerm {
		return hasDigit(s) && amountPattern.MatchString(s)
	}
	if t == LevelTerm {
		if !hasDigit(s) {
			return false
		}
		for _, m := range wholeAmount.FindAllStringIndex(s, -1) {
			if !changeBefore.MatchString(s[:m[0]]) {
				return true
			}
		}
		return false
	}
	if t == ExpectedTerm {
		return expectedFigure.MatchString(s)
	}
	if noun, ok := strings.CutPrefix(t, NumberTerm); ok {
		return statesNumberOf(s, noun)
	}
	if w, ok := strings.CutPrefix(t, SubjectTerm); ok {
		return namesSubject(s, w)
	}
	if t == CountTerm {
		for _, m := range countPattern.FindAllStringSubmatchIndex(s, -1) {
			if m[2] < 0 { // not preceded by a dollar sign
				if rest := s[m[1]:]; !countNotFollowed.MatchString(rest) && countsPeople(s, m[0], m[1]) {
					return true
				}
			}
		}
		for _, m := range scaledCountPattern.FindAllStringSubmatchIndex(s, -1) {
			if m[2] < 0 && !notCounted[s[m[4]:m[5]]] && countsPeople(s, m[0], m[4]) {
				return true
			}
		}
		return false
	}
	if t == "" {
		return false
	}
	if pl, ok := iesPlural(t); ok && wordIn(s, pl) {
		return true
	}
	if expectingVerbs[t] {
		return expectsIn(s, t)
	}
	if t == "believe" {
		return believes(s)
	}
	if past, ok := pastNotAhead[t]; ok {
		return wordStartWhere(s, t, func(i int) bool { return !strings.HasPrefix(s[i:], past) })
	}
	return wordIn(s, t)
}

// pastNotAhead are terms of looking ahead whose past tense tells what
// happened, not what is expected: "authorization ... remained" and "we
// continued to invest" look back, "expected to remain" ahead.
var pastNotAhead = map[string]string{"remain": "remained", "continue": "continued"}

// expectingVerbs are the terms of expecting that a comparison with what
// was expected uses without expecting anything: "it may take longer than
// expected", "lower than we anticipated".
var expectingVerbs = map[string]bool{"expect": true, "anticipate": true, "anticipat": true}

// thanBefore matches, at the end of normalised text, a comparison's "than"
// and at most one word after it ("than previously", "than we").
var thanBefore = regexp.MustCompile(`\bthan(?: [a-z]+)? $`)

// expectsIn reports whether s holds the term of expecting t other than in
// a comparison with what was expected.
func expectsIn(s, t string) bool {
	return wordStartWhere(s, t, func(i int) bool { return !thanBefore.MatchString(s[:i]) && !othersExpectation(s, i) })
}

// wordStartWhere reports whether t occurs in s at the start of a word, at
// a place i for which ok(i) holds.
func wordStartWhere(s, t string, ok func(i int) bool) bool {
	for from := 0; from < len(s); {
		i := strings.Index(s[from:], t)
		if i < 0 {
			return false
		}
		i += from
		from = i + len(t)
		if prev, _ := utf8.DecodeLastRuneInString(s[:i]); (i == 0 || !isWord(prev)) && ok(i) {
			return true
		}
	}
	return false
}

// othersExpectation reports whether the term of expecting at s[i:] is the
// noun "expectation" that is not management's own ("meeting these
// expectations", "analysts' expectations"): only "our expectation", "its
// expectation" or management's is an outlook.
func othersExpectation(s string, i int) bool {
	if !strings.HasPrefix(s[i:], "expectation") {
		return false
	}
	before := s[:i]
	for _, own := range []string{"our ", "its ", "management's ", "management’s ", "mgmt's ", "mgmt’s ", "company's ", "company’s "} {
		if strings.HasSuffix(before, own) {
			return false
		}
	}
	return true
}

// believes reports whether s holds a belief about what is to come
// ("we believe ... will continue"), not one about how things are ("we
// believe that take rate provides a useful measure").
func believes(s string) bool {
	return wordStartWhere(s, "believ", func(i int) bool { return beliefAhead.MatchString(s[i:]) })
}

// beliefAhead matches a belief and, in its clause, a word of what is to
// come.
var beliefAhead = regexp.MustCompile(`^believ\w*\b[^.;:]*?\b(will|would|continue|continues|continued|future|going forward|next|remain|remains|likely|should|expect|anticipate|over time|ahead|long term)\b`)

// iesPlural returns the plural in "-ies" of a term ending in a consonant
// and "y" ("currency", "currencies"), which a prefix match of the term does
// not find.
func iesPlural(t string) (string, bool) {
	n := len(t)
	if n <= 4 || t[n-1] != 'y' || strings.ContainsRune("aeiou ", rune(t[n-2])) {
		return "", false
	}
	return t[:n-1] + "ies", true
}

// wordIn is termIn for a term of words.
func wordIn(s, t string) bool {
	first, _ := utf8.DecodeRuneInString(t)
	last, _ := utf8.DecodeLastRuneInString(t)
	whole := utf8.RuneCountInString(t) <= 4 && unicode.IsLetter(last)
	for from := 0; from <= len(s)-len(t); {
		i := strings.Index(s[from:], t)
		if i < 0 {
			return false
		}
		i += from
		from = i + 1
		if isWord(first) && i > 0 {
			if prev, _ := utf8.DecodeLastRuneInString(s[:i]); isWord(prev) {
				continue
			}
		}
		if !whole {
			return true
		}
		rest := s[i+len(t):]
		for _, suffix := range []string{"", "s", "es"} {
			r, ok := strings.CutPrefix(rest, suffix)
			if !ok {
				continue
			}
			if next, _ := utf8.DecodeRuneInString(r); r == "" || !isWord(next) {
				return true
			}
		}
	}
	return false
}

func isWord(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// abbreviations end in a period that does not end a sentence.
var abbreviations = map[string]bool{
	"inc": true, "corp": true, "co": true, "ltd": true, "llc": true, "plc": true, "no": true, "nos": true,
	"vs": true, "etc": true, "mr": true, "mrs": true, "ms": true, "dr": true, "st": true, "jr": true, "sr": true,
	"approx": true, "fig": true, "jan": true, "feb": true, "mar": true, "apr": true, "jun": true, "jul": true,
	"aug": true, "sep": true, "sept": true, "oct": true, "nov": true, "dec": true, "dept": true, "est": true,
	"mfg": true, "intl": true, "div": true, "ref": true, "sec": true, "vol": true, "pp": true, "p": true,
}

// Sentences splits text into sentences, each a verbatim, trimmed part of
// text, in order. It splits at ". ", "? " and "! " (also before a closing
// quote or parenthesis), before a list bullet ("•"), at blank lines and
// form feeds, and between lines
// that do not continue one another. A line continues the one before when
// it starts with a lower-case letter, or when the one before is long and
// ends mid-sentence (a line wrapped by the layout of a converted PDF), so
// a wrapped sentence stays whole while headings and table rows stand
// alone. It does not split decimals ("46.2%"), abbreviations ("Inc.",
// "U.S.", "e.g.") or initials.
func Sentences(text string) []string {
	spans := sentenceSpans(text)
	out := make([]string, len(spans))
	for i, sp := range spans {
		out[i] = text[sp[0]:sp[1]]
	}
	return out
}

// sentenceSpans returns the [start, end) of each sentence of text.
func sentenceSpans(text string) [][2]int {
	var spans [][2]int
	add := func(start, end int) {
		s := text[start:end]
		trimmed := strings.TrimLeftFunc(s, unicode.IsSpace)
		start += len(s) - len(trimmed)
		end = start + len(strings.TrimRightFunc(trimmed, unicode.IsSpace))
		if start < end {
			spans = append(spans, [2]int{start, end})
		}
	}
	for _, b := range blocks(text) {
		start := b[0]
		for i := b[0]; i < b[1]; i++ {
			c := text[i]
			if c >= utf8.RuneSelf { // a list item starts a sentence
				if r, _ := utf8.DecodeRuneInString(text[i:]); isBullet(r) && i > start && isSpaceByte(text[i-1]) {
					add(start, i)
					start = i
				}
				continue
			}
			if c != '.' && c != '?' && c != '!' {
				continue
			}
			j := i + 1
			// A closing quote or parenthesis stays with its sentence.
			for j < b[1] {
				r, size := utf8.DecodeRuneInString(text[j:])
				if r != '"' && r != '\'' && r != ')' && r != '”' && r != '’' && r != ']' {
					break
				}
				j += size
			}
			if j >= b[1] || (text[j] != ' ' && text[j] != '\n') {
				continue
			}
			if c == '.' && !sentenceEnds(text, b[0], i, j, b[1]) {
				continue
			}
			add(start, j)
			start = j
		}
		add(start, b[1])
	}
	return spans
}

// sentenceEnds decides whether the period at i (followed by white space at
// j) ends a sentence of the block [blockStart, blockEnd).
func sentenceEnds(text string, blockStart, i, j, blockEnd int) bool {
	w := i
	for w > blockStart && !isSpaceByte(text[w-1]) {
		w--
	}
	word := strings.TrimLeft(text[w:i], "(\"'“‘[")
	if word == "" {
		return true
	}
	if strings.Contains(word, ".") { // "U.S", "e.g", "i.e"
		// "outside the U.S. We believe": an abbreviation in capitals ends
		// a sentence where a word that opens sentences follows it.
		return initialism(word) && opensSentence(text[j:blockEnd])
	}
	if abbreviations[strings.ToLower(word)] {
		return false
	}
	if r, size := utf8.DecodeRuneInString(word); size == len(word) && unicode.IsUpper(r) { // an initial
		return false
	}
	k := j
	for k < blockEnd && isSpaceByte(text[k]) {
		k++
	}
	return k >= blockEnd || !lowerWord(text[k:])
}

// initialism reports whether word is capitals between dots: "U.S", "U.K".
func initialism(word string) bool {
	for _, r := range word {
		if r != '.' && !unicode.IsUpper(r) {
			return false
		}
	}
	return true
}

// opensSentence reports whether s (after white space) opens with a
// pronoun, article or preposition in capitals, which starts a sentence
// rather than continuing a name ("U.S. Steel", "U.S. GAAP").
func opensSentence(s string) bool {
	f := strings.Fields(s)
	if len(f) == 0 {
		return true
	}
	return sentenceOpeners[strings.TrimRight(f[0], ",")]
}

var sentenceOpeners = map[string]bool{}

func init() {
	for _, w := range strings.Fields("We Our Us It Its They Their These This Those The A An In On At As For During While When If Although However Additionally Also") {
		sentenceOpeners[w] = true
	}
}

// lowerWord reports whether s opens with a word in lower case, which does
// not start a sentence; "iPhone" and "eBay" are names, which may.
func lowerWord(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	if !unicode.IsLower(r) {
		return false
	}
	for _, r := range s {
		if !unicode.IsLetter(r) {
			break
		}
		if unicode.IsUpper(r) {
			return false
		}
	}
	return true
}

// isBullet reports whether r marks an item of a list.
func isBullet(r rune) bool {
	switch r {
	case '•', '●', '▪', '◦', '■', '‣', '⁃', '∙':
		return true
	}
	return false
}

// blocks splits text into runs of lines that belong together: split at
// blank lines, form feeds and between lines that do not continue one
// another.
func blocks(text string) [][2]int {
	var out [][2]int
	start := -1   // start of the current block; -1 when none is open
	prevEnd := -1 // end of the previous line of the block
	prev := ""    // the previous line, trimmed
	for off := 0; off <= len(text); {
		end := strings.IndexAny(text[off:], "\n\f")
		lineEnd := len(text)
		if end >= 0 {
			lineEnd = off + end
		}
		line := strings.TrimSpace(text[off:lineEnd])
		switch {
		case line == "":
			if start >= 0 {
				out = append(out, [2]int{start, prevEnd})
				start = -1
			}
		case start >= 0 && continues(prev, line):
			prevEnd = lineEnd
		default:
			if start >= 0 {
				out = append(out, [2]int{start, prevEnd})
			}
			start, prevEnd = off, lineEnd
		}
		if line != "" {
			prev = line
		}
		if end < 0 {
			break
		}
		if text[lineEnd] == '\f' && start >= 0 { // a page break ends the block
			out = append(out, [2]int{start, prevEnd})
			start = -1
		}
		off = lineEnd + 1
	}
	if start >= 0 {
		out = append(out, [2]int{start, prevEnd})
	}
	return out
}

// continues reports whether line carries on the sentence of prev.
func continues(prev, line string) bool {
	if lowerWord(line) {
		return true
	}
	if r, _ := utf8.DecodeRuneInString(line); isBullet(r) {
		return false
	}
	last, _ := utf8.DecodeLastRuneInString(prev)
	if strings.Contains(prev, " | ") || strings.Contains(line, " | ") { // table rows
		return false
	}
	return utf8.RuneCountInString(prev) >= 60 && (unicode.IsLetter(last) || last == ',' || last == ';')
}

func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\n' || c == '\t' || c == '\f' || c == '\r' || c == '\v'
}

// CalculationMeets reports whether a calculation's result meets req's
// condition: any result does, unless the condition asks for its sign (a
// rise or a fall the question asserts) or its rate (a change the question
// states in numbers).
func CalculationMeets(req Requirement, result decimal.Decimal) bool {
	switch s := req.Completion.Sign; {
	case s > 0 && !result.IsPositive(), s < 0 && !result.IsNegative():
		return false
	}
	if req.Completion.Rate != "" {
		rate, err := decimal.NewFromString(req.Completion.Rate)
		return err == nil && RateAgrees(rate, result)
	}
	return true
}

// RateAgrees reports whether a computed rate of change agrees with the
// rate a question asserts: within two percentage points, or a tenth of
// the asserted rate where that is more ("about 41%" is 36.9% to 45.1%),
// which covers the rounding of "grew 8%" for 7.6% and no more.
func RateAgrees(asserted, computed decimal.Decimal) bool {
	tol := decimal.Max(decimal.RequireFromString("0.02"), asserted.Abs().Div(decimal.NewFromInt(10)))
	return asserted.Sub(computed).Abs().Cmp(tol) <= 0
}

// safeHarbourNotice finds the legal notice on forward-looking statements.
var safeHarbourNotice = regexp.MustCompile(`(?i)forward[\s\-‐‑–—]*looking\s+(statement|information)|\b(may|could|might|will)\s+differ\s+(materially|significantly)\b|\bactual\s+results\s+(may|could|might)\s+differ\b`)

// SafeHarbour reports whether a sentence speaks of forward-looking
// statements as such: the notice that words such as "expects" and
// "anticipates" identify them, or that they are not guarantees, or that
// forecasts may differ materially from actual results. It names
// what management might expect without expecting anything, so it states
// no outlook, however many forward-looking words it lists.
func SafeHarbour(s string) bool {
	// Every notice holds "forward" or "differ", in some case: most
	// sentences hold neither, and are not run through the pattern.
	if !strings.Contains(s, "orward") && !strings.Contains(s, "ORWARD") && !strings.Contains(s, "iffer") && !strings.Contains(s, "IFFER") {
		return false
	}
	return safeHarbourNotice.MatchString(s)
}

// RowOmitsOwnPeriod reports whether s is a table row whose first value
// cell is a dash: "DVD revenues (1) | — | 82,839 | 145,698 | (100)%".
// Filings print the period they report first, so such a row states the
// figure for earlier periods only; for the filing's own period it says
// there is none, and it meets no condition that asks for a figure. An
// HTML filing's row has cells joined by " | "; a converted filing's row
// is a label and then only values, separated by spaces.
func RowOmitsOwnPeriod(s string) bool {
	s = strings.TrimSpace(s)
	if strings.Contains(s, " | ") {
		cells := strings.Split(s, " | ")
		for _, c := range cells[1:] {
			c = strings.TrimSpace(c)
			if c == "" || c == "$" {
				continue
			}
			return corpus.TableDash(c)
		}
		return false
	}
	fields := strings.Fields(s)
	first := -1
	for i, f := range fields {
		if len(f) == 3 && f[0] == '(' && f[2] == ')' {
			continue // a footnote mark ends the label: "DVD revenues (1)"
		}
		if corpus.TableDash(f) || rowValue(f) {
			first = i
			break
		}
	}
	if first < 1 || !corpus.TableDash(fields[first]) {
		return false
	}
	values := 0
	for _, f := range fields[first+1:] {
		switch {
		case rowValue(f):
			values++
		case corpus.TableDash(f) || f == "$" || f == "%":
		default:
			return false // prose after the dash: not a row
		}
	}
	return values > 0
}

// rowValue reports whether a cell prints a number: "82,839", "$5",
// "(100)%", "21%", "1.5".
func rowValue(c string) bool {
	c = strings.Trim(c, "$()%")
	if c == "" {
		return false
	}
	for _, r := range c {
		if !unicode.IsDigit(r) && r != ',' && r != '.' {
			return false
		}
	}
	return unicode.IsDigit(rune(c[0]))
}
