package planner

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/ledgerline/research/tools"
)

// A question may name a figure the catalogue does not hold by the very
// words an issuer's filing prints beside it: "Oracle's interest expense
// climbed in FY2023. How much was it, and what does the 10-K attribute the
// increase to?" names the row "Interest expense" of Oracle's statements.
// The question's other words (climbed, attribute, increase) are no part of
// its name, so the words that name the figure are found as the longest run
// of the question's words that is, word for word, a label the filing
// prints or a concept it tags.

// whatReported matches a question that asks which amount of something an
// issuer reported, with the thing between "what" and the verb: "What gross
// merchandise volume did eBay report for 2022?". What it names is a figure
// only where a filing labels one so (planLabelledFigure).
var whatReported = regexp.MustCompile(`(?i)\bwhat\s+[\pL\s'&-]{3,60}?\s+(did|does|do|has|have|had)\s+.{1,40}?\b(report|reported|record|recorded|post|posted|generate|generated|book|booked|earn|earned|spend|spent|pay|paid|deliver|delivered|ship|shipped|sell|sold|carry|carried|hold|held)\b`)

// labelledFigure returns the longest run of the question's words, within
// one clause and of two words or more, that is exactly the label of a
// figure one of the issuers' filings reports; nil when none is.
func (b *builder) labelledFigure() []string {
	var best []string
	bestLen := 0 // the question's words best stands for
	for _, l := range b.labelledRuns(false) {
		if l.span > max(len(best), bestLen) {
			best, bestLen = l.words, l.span
		}
	}
	return best
}

// labelledFigures returns every figure the question names by a label of
// the issuers' filings, in the question's order: in each run of its words,
// the longest label from each word on, then the next after it, a label's
// words at the end of the period aside (atPeriodEnd), where the label is
// the whole run (labelledRun). "NFLX paid
// memberships at YE2022 and ARM (average monthly revenue per paying
// membership)" names two.
func (b *builder) labelledFigures() [][]string {
	var out [][]string
	for _, l := range b.labelledRuns(true) {
		if l.whole {
			out = append(out, l.words)
		}
	}
	return out
}

// labelAside matches a word in parentheses that a label prints within
// its name: "Other income (expense), net", "Net income (loss)".
var labelAside = regexp.MustCompile(`(?i)^\((?:loss|losses|expense|expenses|income|benefit|gain|gains|deficit)\)[,.;:?!]?$`)

// labelledRun is a run of the question's words naming a figure a filing
// labels: the label's words (an acronym for a spelled-out name), how many
// of the question's words it stands for, and whether those are the whole
// run, not an aside in parentheses (whole: the run names the figure and
// nothing else: "paid memberships" in "paid memberships at YE2022", not
// "license support" in "excluding license support").
type labelledRun struct {
	words []string
	span  int
	whole bool
}

// wordRun is a run of a question's words that may name a figure; aside
// marks one in parentheses that qualifies what precedes it, acronym a run
// of one word the question writes in capitals.
type wordRun struct {
	words   []string
	aside   bool
	acronym bool
	acr     []bool // each word's being written as an acronym of three letters or more
}

// acronymWord reports whether w is written as an acronym: two letters or
// more, all capitals ("ARM", "RPO").
func acronymWord(w string) bool {
	n := 0
	for i, r := range w {
		if r == '&' && i > 0 && i < len(w)-1 {
			continue // "S&M"
		}
		if !unicode.IsUpper(r) {
			return false
		}
		n++
	}
	return n >= 2
}

// innerHyphens matches a hyphen joining two letters: "long-term" is two
// words of a label, as the filings' labels are read (normLabel).
var innerHyphens = regexp.MustCompile(`(\pL)-(\pL)`)

// labelledRuns scans the question's runs of words (between punctuation,
// issuer names, numbers and the words that ask; "and", "of" and "gross"
// stay, as labels hold them: "research and development", "gross margin")
// for the figures the issuers' filings label; atEnd also lets a label's
// words at the end of the period go unsaid.
func (b *builder) labelledRuns(atEnd bool) []labelledRun {
	return b.labelledRunsIn(b.question, atEnd)
}

// labelledRunsIn is labelledRuns of text, a part of the question.
func (b *builder) labelledRunsIn(text string, atEnd bool) []labelledRun {
	skip := issuerWordSet(b.cat, b.rt.Issuers)
	var runs []wordRun
	var run wordRun
	flush := func() {
		// A run the asking ends after a joining word ("what was interest
		// expense and does mgmt expect ...") names what is before it.
		for n := len(run.words); n > 0 && listJoins[run.words[n-1]]; n-- {
			run.words, run.acr = run.words[:n-1], run.acr[:n-1]
		}
		// One word names a figure where the question writes it as an
		// acronym a filing labels a row by ("compare their 2022 GMV").
		if len(run.words) >= 2 || len(run.words) == 1 && run.acronym {
			runs = append(runs, run)
		}
		run = wordRun{}
	}
	prev := "" // the token before, as the question writes it
	for _, f := range strings.FieldsFunc(innerHyphens.ReplaceAllString(strings.ReplaceAll(text, "’", "'"), "$1 $2"), unicode.IsSpace) {
		w := strings.ToLower(strings.TrimRight(strings.TrimLeft(f, "(\"'“‘["), ".,;:?!)\"'”’]"))
		possessive := strings.HasSuffix(w, "'s") || strings.HasSuffix(w, "s'")
		w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "'")
		if f == "+" || f == "&" {
			w = "and" // "cloud services + license support", "property & equipment"
		}
		if w == "" || skip[w] || askingWords[w] || labelBreaks[w] || strings.ContainsAny(w, "0123456789") ||
			strings.IndexFunc(w, unicode.IsLetter) < 0 {
			flush()
			prev = f
			continue
		}
		if strings.ContainsAny(f, "(\"“[") && run.words != nil && !labelAside.MatchString(f) {
			flush()
		}
		if run.words == nil && strings.HasPrefix(f, "(") {
			// "(total company, fiscal 2022)" qualifies what precedes it;
			// after an acronym ("ARM (average monthly revenue per paying
			// membership)") it spells the acronym out.
			run.aside = !acronymWord(strings.TrimRight(prev, ".,;:?!\"'”’"))
		}
		run.words = append(run.words, w)
		run.acr = append(run.acr, len(w) >= 3 && acronymWord(strings.Trim(f, "(\"'“‘[.,;:?!)”’]")))
		run.acronym = len(run.words) == 1 && run.acr[0]
		if possessive || strings.ContainsAny(f, ".,;:?!)\"”]") {
			flush()
		}
		prev = f
	}
	flush()
	var docs []string
	issuerOf := map[string]string{}
	for _, t := range b.rt.Issuers {
		for _, p := range b.periodsOf(t) {
			if p.found && b.cat.KnowsFigures(p.doc.ID) {
				docs = append(docs, p.doc.ID)
				issuerOf[p.doc.ID] = t
			}
		}
	}
	var out []labelledRun
	for _, wr := range runs {
		r := wr.words
		if len(r) == 1 {
			if slices.ContainsFunc(docs, func(d string) bool {
				_, ok := b.cat.labelKey(d, r, atEnd)
				return ok
			}) {
				out = append(out, labelledRun{r, 1, !wr.aside})
			}
			continue
		}
		first := len(out)
		covered := 0 // words of r in a label found, or joining two
		for i := 0; i < len(r); {
			found := false
			for n := len(r) - i; n >= 2; n-- {
				words := r[i : i+n]
				// "R&D as % of revenue": a label that starts with a
				// joining word ("% of revenue") is the tail of another
				// figure's name.
				if joiningWords[words[0]] {
					break
				}
				// Nor ends with one: "sales & marketing and G&A" names
				// "sales and marketing", then "G&A".
				if joiningWords[words[n-1]] {
					continue
				}
				if b.namesSegment(words, issuerOf) {
					// A segment's name alone ("Intelligent Cloud growth")
					// is a part of the business, not a figure: the rows
					// it labels are its revenue, its operating income, its
					// goodwill.
					continue
				}
				if slices.ContainsFunc(docs, func(d string) bool {
					_, ok := b.cat.labelKey(d, words, atEnd)
					if !ok {
						_, ok = b.aliasKey(issuerOf[d], d, words)
					}
					return ok
				}) {
					out = append(out, labelledRun{words, n, n == len(r) && !wr.aside})
					found = true
				} else if total := b.statedTotal(words); total != nil {
					// A total an issuer's sentence states and no row
					// labels ("total deferred revenue").
					out = append(out, labelledRun{total, n, n == len(r) && !wr.aside})
					found = true
				} else if ac := initialsOf(words); ac != "" && !slices.ContainsFunc(words, periodWord) && b.acronymInUse(ac, docs) &&
					slices.ContainsFunc(docs, func(d string) bool { _, ok := b.cat.labelKey(d, []string{ac}, atEnd); return ok }) {
					// Spelled out, a figure the filings asked label by its
					// initials: "gross merchandise volume" for the row
					// "GMV" (not "price per ad change" for another
					// issuer's "PAC").
					out = append(out, labelledRun{[]string{ac}, n, n == len(r) && !wr.aside})
					found = true
				}
				if found {
					covered += n
					i += n
					break
				}
			}
			if !found && atEnd && wr.acr[i] && slices.ContainsFunc(docs, func(d string) bool {
				_, ok := b.cat.labelKey(d, r[i:i+1], atEnd)
				return ok
			}) {
				// An acronym in a list ("GMV and take rate").
				out = append(out, labelledRun{r[i : i+1], 1, false})
				covered++
				i++
				continue
			}
			if !found {
				if listJoins[r[i]] {
					covered++
				}
				i++
			}
		}
		// A run that lists labels and nothing else ("GMV and take
		// rate") names each whole.
		if covered == len(r) && len(out)-first >= 2 && !wr.aside {
			for k := first; k < len(out); k++ {
				out[k].whole = true
			}
		}
	}
	return out
}

// labelBreaks end a run of words that may name a figure.
var labelBreaks = map[string]bool{}

func init() {
	for _, w := range strings.Fields("the a an its their our his her this that these those it they we you i me my in on at by to as during about over than vs versus was were be been being") {
		labelBreaks[w] = true
	}
	// A verb of moving in the past tense tells what a figure did, and
	// "both" or "each" counts the figures; no label holds one ("Meta's G&A
	// fell in 2024", "sales & marketing and G&A both went down").
	for _, w := range strings.Fields("fell rose grew went increased decreased declined dropped jumped shrank surged climbed slipped slid plunged soared improved worsened widened narrowed both each") {
		labelBreaks[w] = true
	}
}

// labels reports whether a figure of the document is labelled, or its
// concept named, with exactly words (labelKey).
func (c *Catalog) labels(documentID string, words []string) bool {
	_, ok := c.labelKey(documentID, words, false)
	return ok
}

// labelKey returns the key of the figure of the document labelled, or
// whose concept is named, with exactly words (a word's first five letters
// standing for its forms; with atEnd, the label's core (labelCore):
// "paid memberships" is the row "Paid memberships at end of period"): a
// tagged fact's before a table row's, and a
// row printed with one value for a period before a row several tables
// print with different ones (each part's "Paid memberships at end of
// period (1)" under the company's "Paid memberships at end of period").
func (c *Catalog) labelKey(documentID string, words []string, atEnd bool) (string, bool) {
	idx := c.labelIndexOf(documentID)
	if idx == nil {
		return "", false
	}
	ch := idx.plain
	if atEnd {
		ch = idx.atEnd
	}
	key := ch[orderedKey(words)].key
	if key == "" {
		key = ch[strings.Join(stems(words), " ")].key
	}
	if key == "" && len(words) == 1 {
		// "S&M" for the row "Sales and marketing": initials joined by
		// "&" name the words they join.
		if l, r, ok := strings.Cut(strings.ToUpper(words[0]), "&"); ok && l != "" && r != "" && !strings.Contains(r, "&") {
			key = idx.initials[l+r].key
			if key == "" {
				// The two joined either way round: "S&M" is "Marketing
				// and sales".
				key = idx.initials[r+l].key
			}
		}
	}
	return key, key != ""
}

// labelIndex is what labelKey finds for a filing, by the stems (stems,
// joined by a space) of the words asked: the key chosen among the
// figures so labelled or named, and its rank. plain is without the
// label's core, atEnd with it.
type labelIndex struct {
	plain, atEnd map[string]labelChoice
	// initials are the labels of two to four words joined by "and" or
	// "&", by the initials of the words ("SM" for "Sales and
	// marketing", "GA" for "General and administrative").
	initials map[string]labelChoice
}

// labelChoice is a figure's key and the rank it was chosen by: 3 a tagged
// fact, 2 a table row, 1 a table row printed with different values for a
// period.
type labelChoice struct {
	key  string
	rank int
}

// catalogMemo keeps what a catalog derives from the figures it was given,
// built on first use: each filing's label index and each issuer's part
// names. SetFigures forgets what the new figures change.
type catalogMemo struct {
	mu       sync.Mutex
	labels   map[string]*labelIndex         // guarded by mu; by document id
	segments map[string]map[string][]string // guarded by mu; by ticker (segmentNames)
}

func newCatalogMemo() *catalogMemo {
	return &catalogMemo{labels: map[string]*labelIndex{}, segments: map[string]map[string][]string{}}
}

// forget drops what depends on a filing's figures.
func (m *catalogMemo) forget(documentID string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.labels, documentID)
	clear(m.segments)
}

// labelIndexOf returns the filing's label index (newLabelIndex), built on
// first use and kept; nil when the catalog knows none of its figures.
func (c *Catalog) labelIndexOf(documentID string) *labelIndex {
	entries := c.figures[documentID]
	if len(entries) == 0 {
		return nil
	}
	if c.memo == nil {
		return newLabelIndex(entries)
	}
	c.memo.mu.Lock()
	defer c.memo.mu.Unlock()
	idx, ok := c.memo.labels[documentID]
	if !ok {
		idx = newLabelIndex(entries)
		c.memo.labels[documentID] = idx
	}
	return idx
}

// joinedInitials returns the initials, in capitals, of a label of words
// joined by "and" or "&": "SM" for "sales and marketing", "RD" for
// "research & development", and of a list whose last word alone is joined
// so: "MGA" for "marketing, general and administrative", "PPE" for
// "property, plant and equipment"; "" for a label of another shape.
func joinedInitials(words []string) string {
	var ini []byte
	joins := 0
	for i, w := range words {
		if w == "and" || w == "&" {
			// Between words, after every word ("sales and marketing")
			// or before the last only ("general and administrative").
			if i == 0 || i == len(words)-1 || words[i-1] == "and" || words[i-1] == "&" {
				return ""
			}
			joins++
			continue
		}
		if w == "" || !unicode.IsLetter(rune(w[0])) || w[0] >= 0x80 {
			return ""
		}
		ini = append(ini, w[0])
	}
	alternating := 2*joins+1 == len(words)
	for i := 1; alternating && i < len(words); i += 2 {
		alternating = words[i] == "and" || words[i] == "&"
	}
	listed := joins == 1 && len(words) >= 4 && (words[len(words)-2] == "and" || words[len(words)-2] == "&")
	if joins == 0 || !alternating && !listed || len(ini) > 3 {
		return ""
	}
	return strings.ToUpper(string(ini))
}

// newLabelIndex indexes a filing's figures without a member by the words
// of their label, of their label's core (labelCore, atEnd only) and, for a
// tagged fact, of its concept's name. Of the figures one set of words
// names, the first of the highest rank is kept.
func newLabelIndex(entries []FigureEntry) *labelIndex {
	idx := &labelIndex{plain: map[string]labelChoice{}, atEnd: map[string]labelChoice{}, initials: map[string]labelChoice{}}
	keep := func(m map[string]labelChoice, words []string, ch labelChoice) {
		k := strings.Join(stems(words), " ")
		if ch.rank > m[k].rank {
			m[k] = ch
		}
		// The words in their order too: "Other income (expense), net"
		// and the cash flow statement's "Other expense (income), net"
		// (its sign the other way) hold the same words.
		if o := orderedKey(words); ch.rank > m[o].rank {
			m[o] = ch
		}
	}
	for _, e := range entries {
		if e.Member != "" {
			continue
		}
		ch := labelChoice{key: e.Key, rank: 3} // a tagged fact
		switch {
		case e.Table && e.Varies:
			ch.rank = 1
		case e.Table:
			ch.rank = 2
		default:
			ch.key = tools.FigureKey(e.Concept, "")
		}
		label := normLabel(e.Label)
		// "General and administrative expenses" is "G&A" too: a generic
		// noun closing the label is no word the initials join.
		words := strings.Fields(label)
		if n := len(words); n > 3 && genericFigureNouns[words[n-1]] {
			words = words[:n-1]
		}
		if ini := joinedInitials(words); ini != "" && ch.rank > idx.initials[ini].rank {
			idx.initials[ini] = ch
		}
		keep(idx.plain, strings.Fields(label), ch)
		keep(idx.atEnd, strings.Fields(label), ch)
		if f := strings.Fields(label); len(f) > 2 && f[len(f)-1] == "net" && strings.HasSuffix(strings.TrimSpace(strings.ToLower(e.Label)), ", net") {
			// "Other income (expense), net" is asked as "other income
			// (expense)": the closing ", net" says how it is summed.
			keep(idx.plain, f[:len(f)-1], ch)
			keep(idx.atEnd, f[:len(f)-1], ch)
		}
		keep(idx.atEnd, strings.Fields(labelCore(label)), ch)
		if !e.Table {
			_, local, _ := strings.Cut(e.Concept, ":")
			keep(idx.plain, splitCamelWords(local), ch)
			keep(idx.atEnd, splitCamelWords(local), ch)
		}
	}
	return idx
}

// labelCore is a label without the words that add nothing to what its
// figure is: a leading "total" ("Total cloud services and license support
// revenues" is the sum asked as "cloud services + license support
// revenue") and closing words at the period's end (atPeriodEnd).
func labelCore(label string) string {
	return strings.TrimPrefix(atPeriodEnd.ReplaceAllString(label, ""), "total ")
}

// atPeriodEnd is a label's closing words that say its figure is the
// period's end ("at end of period", "as of the end of the year").
var atPeriodEnd = regexp.MustCompile(`\s+(?:at|as of)\s+(?:the\s+)?end\s+of\s+(?:the\s+)?(?:period|year|fiscal year|quarter)$`)

// periodWord reports whether w names a period or counts one ("three
// months ended"): such words spell no figure's initials.
func periodWord(w string) bool {
	w = strings.ToLower(w)
	return phraseStopwords[w] || numberWords[w]
}

// numberWords are the numbers a question spells out.
var numberWords = map[string]bool{"one": true, "two": true, "three": true, "four": true, "five": true, "six": true,
	"seven": true, "eight": true, "nine": true, "ten": true, "eleven": true, "twelve": true, "first": true,
	"second": true, "third": true, "fourth": true}

// initialsOf returns the initials of two to five words in capitals: "GMV"
// for gross merchandise volume; "" for fewer or more words.
func initialsOf(words []string) string {
	if len(words) < 2 || len(words) > 5 {
		return ""
	}
	var b strings.Builder
	for _, w := range words {
		r := []rune(w)
		b.WriteString(strings.ToUpper(string(r[0])))
	}
	return b.String()
}

// acronymInUse reports whether the filings write acronym, three letters or
// more and no English word, as a word of their own in a few documents only
// (a term an issuer defines, not a common word): by the corpus's statistics, with one of
// docs among the documents using it where the statistics cannot say which.
func (b *builder) acronymInUse(acronym string, docs []string) bool {
	stats := b.cat.TextStats()
	if len(acronym) < 3 || stats == nil || len(docs) == 0 {
		return false
	}
	// The statistics count words in lower case: an English word ("fit",
	// "net") says nothing of its initials in capitals.
	if b.cat.nameIndex().sense.level(strings.ToLower(acronym)) > 0 {
		return false
	}
	df := stats.DocumentFrequency(acronym)
	return df > 0 && df*4 <= stats.Documents()
}

// stem5 is a word's first five letters, lower case: the forms of a word
// compare by it ("repurchases", "repurchased").
func stem5(w string) string {
	w = strings.ToLower(w)
	if len(w) > 5 {
		return w[:5]
	}
	// A short word's plural is the word: "ads" is "ad", "costs" "cost"
	// (longer words' plurals share their first five letters already).
	if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") || len(w) == 3 && w[2] == 's' && w[1] != 's' {
		return w[:len(w)-1]
	}
	return w
}

// stems returns the sorted, distinct five-letter stems of words.
func stems(words []string) []string {
	out := make([]string, 0, len(words))
	for _, w := range words {
		out = append(out, stem5(w))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// orderedKey is a label index's key of words in their order: their
// stems, after a mark no sorted key holds.
func orderedKey(words []string) string {
	out := make([]string, 0, len(words))
	for _, w := range words {
		out = append(out, stem5(w))
	}
	return "=" + strings.Join(out, " ")
}

// plannedLonger reports whether the plan holds a figure of issuer t under
// a longer name that opens with what: the words "cloud services and
// license support" of a question asking "cloud services and license
// support revenue" are that figure, not another row (a balance so
// labelled).
func (b *builder) plannedLonger(t, what string) bool {
	short := normalizeText(what) + " "
	return slices.ContainsFunc(b.g.Requirements, func(r Requirement) bool {
		return r.Issuer == t && r.Completion.Kind == CondFact && strings.HasPrefix(normalizeText(r.Completion.Topic), short)
	})
}

// planLabelledFigure plans the figure a question names by a label of the
// filings (labelledFigure) for each issuer and period: the fact so
// labelled, or a sentence stating it, or its gap; and where the question
// asks why, management's explanation of that figure. It reports false,
// planning nothing, when no run of the question's words is such a label.
func (b *builder) planLabelledFigure(explain bool) bool {
	words := b.labelledFigure()
	if len(words) == 0 {
		return false
	}
	if len(words) == 1 && wordIn(normalizeText(b.question), normalizeTerm(words[0])) && (reverseCausal.MatchString(normalizeText(b.question)) || !figureClause(b.question, words)) {
		// Initials the question writes alone ("G&A", not "gross
		// merchandise volume" for "GMV") name the figure planned here
		// where a clause asks its amount ("Meta's G&A fell in 2024 — what was
		// the amount"). "G&A jumped because of the Nuance integration":
		// a cause the question claims is read from the question's
		// words, which the figure's plan does not test.
		return false
	}
	what := asWritten(b.question, words)
	b.eachAskedPeriod(func(t string, p filingPeriod, m reqMeta) {
		key, ok := "", false
		if b.cat.KnowsFigures(p.doc.ID) {
			// The row so labelled; in a filing that labels none so, the
			// row whose label holds the words.
			if key, ok = b.cat.labelKey(p.doc.ID, words, false); !ok {
				key, ok = b.cat.ResolvePhrase(p.doc.ID, words, "")
			}
			if !ok {
				key, ok = b.aliasKey(t, p.doc.ID, words)
			}
		}
		if b.plannedLonger(t, what) {
			return
		}
		if total := "total " + what; wordIn(normalizeText(b.question), total) && b.cat.TextStats().StatesTotal(t, words) &&
			!b.cat.labels(p.doc.ID, append([]string{"total"}, words...)) {
			// "Total deferred revenue", which a sentence states, where
			// the row so labelled is a part of it (the balance sheet's
			// current portion): the sentence's figure is asked.
			b.planNamedFigure(t, p, m, total, "", false, [][]string{{total}, {FigureTerm}})
			return
		}
		b.planNamedFigure(t, p, m, what, key, ok, [][]string{{what}, {FigureTerm}})
		if explain {
			b.explained = words
			b.planLabelExplanation(t, p, m, what, words, key, ok)
		}
	})
	return true
}

// statedTotal returns, where b.stated allows it, the words of a figure one
// of the asked issuers' sentences state a total of ("Total deferred
// revenue was $772 million"), words being that figure's name, "total"
// before it or not; nil where none states it.
func (b *builder) statedTotal(words []string) []string {
	if !b.stated {
		return nil
	}
	if len(words) > 0 && words[0] == "total" {
		words = words[1:]
	}
	if len(words) < 2 || !slices.ContainsFunc(b.rt.Issuers, func(t string) bool { return b.cat.TextStats().StatesTotal(t, words) }) {
		return nil
	}
	return words
}

// planLabelExplanation plans management's explanation of the figure words
// name (what, as the question writes it), whose row in p's filing is key
// where found is set.
func (b *builder) planLabelExplanation(t string, p filingPeriod, m reqMeta, what string, words []string, key string, found bool) {
	period := tools.PeriodLabel(p.fy)
	eid := t + "-" + period + "-explanation-" + slug(what)
	names, query := []string{what}, what
	if l := normLabel(b.cat.FigureLabel(p.doc.ID, key)); found && l != "" && l != normLabel(what) {
		switch {
		case len(words) == 1:
			// Initials ("G&A") name the row the filing explains in
			// words: "General and administrative expenses in 2024
			// decreased ...".
			names, query = append(names, l), l
		case !slices.ContainsFunc(strings.Fields(l), func(w string) bool { return !slices.Contains(strings.Fields(normLabel(what)), w) }):
			// The row's own label, of the question's words ("Fulfillment"
			// for "fulfillment expense"), names it as the filing explains
			// it: "The increase in fulfillment costs in 2024 ...".
			names = append(names, l)
		}
	}
	b.addReq(Requirement{
		ID: eid, Issuer: t, Period: period, Aspect: "figures", Kind: KindExplanation, Required: true,
		Need:       fmt.Sprintf("%s's explanation of what drove its %s in its %s %s", b.cat.ShortName(t), what, tools.PeriodLabel(p.doc.FiscalYear), p.doc.Form),
		Completion: Condition{Kind: CondPassage, Issuer: t, Period: period, Topic: what, AllOf: [][]string{names, DriverWords}},
	}, m)
	b.addNode(tools.SearchFilings, b.searchArgs(t, p, query+" primarily due to", "", 8), []string{eid})
}

// planLabelledFigures plans, beside the figures the plan gathers, every
// other figure the question names by a label a filing asked prints
// (labelledFigures) and no requirement looks up: "NFLX paid memberships at
// YE2022 and ARM (average monthly revenue per paying membership)" asks
// both rows, not the revenue whose word one of them holds. Where the
// question asks why or what is expected, only a label in a clause of its
// own shaped as a figure's counts ("... What was the 2022 take rate?"):
// otherwise the label names what is explained. A label no filing asked
// resolves is not planned here; a figure of the catalogue's is planned as
// its metric.
func (b *builder) planLabelledFigures() {
	all := b.labelledFigures()
	for _, words := range all {
		if namesCatalogueFigure(words) {
			continue
		}
		if (asksWhy(b.question) || b.rt.Outlook) && !figureClause(b.question, words) && !b.bareClause(words, all...) {
			continue
		}
		what := asWritten(b.question, words)
		b.eachAskedPeriod(func(t string, p filingPeriod, m reqMeta) {
			// A part named ("APAC paid memberships") is asked of the
			// part, whose row the part's plan reads.
			// A year after the latest report is expected, not reported.
			if !b.cat.KnowsFigures(p.doc.ID) || len(b.cat.SegmentsIn(b.question, t)) > 0 || p.ahead > 0 {
				return
			}
			key, ok := b.cat.labelKey(p.doc.ID, words, true)
			if !ok {
				key, ok = b.aliasKey(t, p.doc.ID, words)
			}
			// A row another requirement of the issuer and period looks up
			// already is planned; another issuer's of the same concept is
			// not.
			period := tools.PeriodLabel(p.fy)
			if !ok || slices.ContainsFunc(b.g.Requirements, func(r Requirement) bool {
				return r.Issuer == t && r.Period == period && slices.Contains(r.Completion.Concepts, key)
			}) {
				return
			}
			if b.plannedLonger(t, what) {
				return
			}
			named := what
			if len(words) == 1 && strings.Contains(words[0], "&") {
				// Initials ("S&M") are named as the filing labels the row.
				if l := b.cat.FigureLabel(p.doc.ID, key); l != "" {
					named = l + " (" + what + ")"
				}
			}
			b.planNamedFigure(t, p, m, named, key, true, nil)
			b.removeWithin(t, tools.PeriodLabel(p.fy), words, key)
			if listedWith(all, b.explained) {
				// "sales & marketing and G&A both went down ... why did
				// they fall?": each figure listed with the one explained
				// is explained too.
				b.planLabelExplanation(t, p, m, what, words, key, true)
			}
		})
	}
}

// listedWith reports whether words, the figure explained (nil for none),
// is one of the figures a question lists whole (all), with others.
func listedWith(all [][]string, words []string) bool {
	return len(words) > 0 && len(all) >= 2 && slices.ContainsFunc(all, func(w []string) bool { return slices.Equal(w, words) })
}

// planNamedFact plans a required figure named what for issuer t and
// period p, looked up with args: its fact requirement and the lookup
// serving it. A figure planned already is found, not planned twice;
// planned reports whether this call planned it.
func (b *builder) planNamedFact(t string, p filingPeriod, m reqMeta, what string, args tools.LookupFactArgs) (l looked, planned bool) {
	period := tools.PeriodLabel(p.fy)
	id := t + "-" + period + "-figure-" + slug(what)
	l = looked{req: id, key: args.Concept}
	if !b.addReq(Requirement{
		ID: id, Issuer: t, Period: period, Aspect: "figures", Kind: KindFigure, Required: true,
		Need:       fmt.Sprintf("%s's %s for %s, as its %s %s reports it", b.cat.ShortName(t), what, period, tools.PeriodLabel(p.doc.FiscalYear), p.doc.Form),
		Completion: Condition{Kind: CondFact, Issuer: t, Period: period, Topic: what, Concepts: []string{args.Concept}},
	}, m) {
		for _, n := range b.g.Nodes {
			if slices.Contains(n.Serves, id) {
				l.node = n.ID
				break
			}
		}
		return l, false
	}
	l.node = b.addNode(tools.LookupFact, args, []string{id})
	return l, true
}

// namesSegment reports whether words are the name of a segment one of the
// issuers' filings call so ("our Intelligent Cloud segment").
func (b *builder) namesSegment(words []string, issuerOf map[string]string) bool {
	stats := b.cat.TextStats()
	name := strings.Join(words, " ")
	for _, t := range issuerOf {
		if stats.CallsSegment(t, name) {
			return true
		}
	}
	return false
}

// aliasKey returns the key of the figure of the document labelled by a
// term issuer t's filings give words as another name of ("paid
// subscriptions" for the row "Paid memberships at end of period"), or
// false when none is.
func (b *builder) aliasKey(t, documentID string, words []string) (string, bool) {
	for _, term := range b.cat.TextStats().AliasTerms(t, words) {
		if key, ok := b.cat.labelKey(documentID, term, true); ok {
			return key, true
		}
	}
	return "", false
}

// removeWithin removes the figures of issuer t and period that the plan
// read from words within a label's (a row other than key): "average
// monthly revenue per paying membership" asks that row, not the revenue
// its words hold; "cloud services + license support revenue" the total,
// not license support revenue.
func (b *builder) removeWithin(t, period string, words []string, key string) {
	label := stems(words)
	skip := issuerWordSet(b.cat, b.rt.Issuers)
	var ids []string
	for _, r := range b.g.Requirements {
		// A figure looked up, or the optional sentence stating it.
		if r.Issuer != t || r.Period != period || r.Kind != KindFigure || r.Completion.Kind != CondFact && r.Required || slices.Contains(r.Completion.Concepts, key) {
			continue
		}
		topic := stems(slices.DeleteFunc(strings.Fields(normLabel(r.Completion.Topic)), func(w string) bool { return skip[w] }))
		if len(topic) > 0 && len(topic) < len(label) && allIn(topic, label) {
			ids = append(ids, r.ID)
		}
	}
	if len(ids) > 0 {
		b.remove(ids)
	}
}

// listJoins join the items of a list of figures ("GMV and take rate").
var listJoins = map[string]bool{"and": true, "or": true, "&": true, "vs": true, "versus": true}

// joiningWords join the words of a figure's name; no name starts with one.
var joiningWords = map[string]bool{"of": true, "and": true, "or": true, "per": true, "for": true, "&": true}

// eachAskedPeriod calls plan for every issuer and period the question asks
// about that the corpus holds, leaving out a year named only as a
// comparison's base where another is asked: its figure is stated with the
// change of the year asked ("increased $3,862 million, from $13,140
// million to $17,003 million").
func (b *builder) eachAskedPeriod(plan func(t string, p filingPeriod, m reqMeta)) {
	for ii, t := range b.rt.Issuers {
		for _, p := range b.periodsOf(t) {
			if !p.found || slices.Contains(b.rt.BaseYears, p.fy) && len(b.periodsOf(t)) > 1 {
				continue
			}
			plan(t, p, reqMeta{aspect: 0, issuer: ii})
		}
	}
}

// planNamedFigure plans a required figure named what for issuer t and
// period p: the fact under key where found is set, else a sentence of the
// filing meeting groups, whose absence is the figure's gap.
func (b *builder) planNamedFigure(t string, p filingPeriod, m reqMeta, what, key string, found bool, groups [][]string) {
	period := tools.PeriodLabel(p.fy)
	id := t + "-" + period + "-figure-" + slug(what)
	if found {
		if l, planned := b.planNamedFact(t, p, m, what, tools.LookupFactArgs{Ticker: t, Concept: key, Period: period}); planned {
			b.planNamedChange(t, p, m, what, key, l.req, l.node)
		}
		return
	}
	b.addReq(Requirement{
		ID: id, Issuer: t, Period: period, Aspect: "figures", Kind: KindFigure, Required: true,
		Need: fmt.Sprintf("%s's %s for %s, stated in its %s %s (no figure it tags or tabulates is labelled so)",
			b.cat.ShortName(t), what, period, tools.PeriodLabel(p.doc.FiscalYear), p.doc.Form),
		Completion: Condition{Kind: CondPassage, Issuer: t, Period: period, Topic: what, AllOf: b.withExclusion(groups)},
	}, m)
	b.addNode(tools.SearchFilings, b.searchArgs(t, p, what, "", 8), []string{id})
}

// asWritten returns words as the question writes them ("Greater China",
// "GMV"), or joined as they are where the question does not hold them in
// a run.
func asWritten(question string, words []string) string {
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = regexp.QuoteMeta(w)
	}
	re, err := regexp.Compile(`(?i)\b` + strings.Join(quoted, `[\s\-]+`) + `\b`)
	if err == nil {
		if m := re.FindString(question); m != "" {
			return strings.Join(strings.Fields(m), " ")
		}
	}
	return strings.Join(words, " ")
}

// clauseOf returns the clause of question that names what (clauseBreak
// ends a clause), the whole question where none does.
func clauseOf(question, what string) string {
	for _, c := range clauseBreak.Split(question, -1) {
		if termIn(normalizeText(c), normalizeTerm(what)) {
			return c
		}
	}
	return question
}

// planNamedChange plans, for a question asking in the clause naming a
// figure how it changed ("what was the take rate change in 2022", "how
// much did the backlog fall"), the change itself: the figure less the same
// row's figure a year before, which the filing prints beside it, as a
// required calculation; or, when the question asks a rate of change ("%
// change", "growth"), that rate. The level alone does not answer a
// question on its change.
func (b *builder) planNamedChange(t string, p filingPeriod, m reqMeta, what, key, levelID, levelNode string) {
	norm := normalizeText(clauseOf(b.question, what))
	if !asksGrowth(norm) || p.next || (p.doc.Form != "10-K" && p.doc.Form != "10-Q") {
		return
	}
	period := tools.PeriodLabel(p.fy)
	name := slugName(what)
	facts := map[string]tools.FactRef{
		name:            {Ticker: t, Concept: key, Period: period},
		name + "_prior": {Ticker: t, Concept: key, Period: period, Prior: true},
	}
	expr, topic := name+" - "+name+"_prior", what+" change"
	if anyTerm(norm, []string{"%", "percent", "percentage", "growth", "grew", "grow", "rate of"}) && !anyTerm(norm, []string{"points", "basis points", "bps"}) {
		expr, topic = fmt.Sprintf("(%s - %s_prior) / %s_prior", name, name, name), what+" growth"
	}
	id := levelID + "-change"
	if b.addReq(Requirement{
		ID: id, Issuer: t, Period: period, Aspect: "figures", Kind: KindCalculation, Required: true,
		Need: fmt.Sprintf("how %s's %s changed over the year to the period of its %s %s, from the figure it prints and the one a year before",
			b.cat.ShortName(t), what, tools.PeriodLabel(p.doc.FiscalYear), p.doc.Form),
		Completion: Condition{Kind: CondCalculation, Issuer: t, Period: period, Topic: topic, Of: []string{levelID}},
	}, m) {
		b.addNode(tools.Calculate, tools.CalculateArgs{Expression: expr, Facts: facts}, []string{id}, levelNode)
	}
	if topic == what+" change" && !b.cat.isChangeRate(p.doc.ID, key) && !anyTerm(norm, []string{"points", "basis points", "bps", "$", "dollar", "dollars", "amount"}) {
		// "What was the change", no unit asked: the rate of the change
		// too, as the filing's tables print it beside the amounts ("GMV
		// ... (15)%"), optional.
		rid := levelID + "-growth"
		if b.addReq(Requirement{
			ID: rid, Issuer: t, Period: period, Aspect: "figures", Kind: KindCalculation, Required: false,
			Need: fmt.Sprintf("the rate at which %s's %s changed over the year to the period of its %s %s, from the figure it prints and the one a year before",
				b.cat.ShortName(t), what, tools.PeriodLabel(p.doc.FiscalYear), p.doc.Form),
			Completion: Condition{Kind: CondCalculation, Issuer: t, Period: period, Topic: what + " growth", Of: []string{levelID}},
		}, m) {
			b.addNode(tools.Calculate, tools.CalculateArgs{Expression: fmt.Sprintf("(%s - %s_prior) / %s_prior", name, name, name), Facts: facts}, []string{rid}, levelNode)
			if p.doc.FiscalYear == p.fy {
				b.planPrintedAs(t, p, what+" growth", []string{strings.ToLower(what)}, what+" change", rid, m)
			}
		}
	}
	// A move the question asserts of the figure ("Costco's membership fee
	// income fell in FY22 ... why?") is a premise its rate of change bears
	// out or refutes.
	if sign := assertedSign(b.question); sign != 0 && p.doc.FiscalYear == p.fy && termIn(normalizeText(assertingSentence(b.question)), normalizeTerm(what)) &&
		!afterTheMove(b.question, what) && !beforeTheMovesClause(b.question, what) {
		b.planRowPremise(t, period, p.doc.Form, m, what, key, levelID, levelNode, sign)
	}
}

// planReportedRatio plans, beside a ratio computed from the catalogue's
// figures, the ratio as the filing itself reports it where a row or concept
// is labelled with words ("Gross margin percentage"): an issuer's own
// definition (Costco's margin on net sales, not on total revenue) may
// differ from the computed one, and the reader is owed both. In a filing
// with tagged facts the ratio is computed from them, as tagged; a ratio row
// of its tables is not tagged and is not added.
func (b *builder) planReportedRatio(t string, p filingPeriod, aspect string, words []string, m reqMeta) {
	if !b.cat.KnowsFigures(p.doc.ID) {
		return
	}
	key, ok := b.cat.ResolvePhrase(p.doc.ID, words, "")
	if !ok {
		return
	}
	what := strings.Join(words, " ")
	period := tools.PeriodLabel(p.fy)
	id := t + "-" + period + "-" + aspect + "-reported-" + slug(what)
	if b.addReq(Requirement{
		ID: id, Issuer: t, Period: period, Aspect: aspect, Kind: KindFigure, Required: false,
		Need:       fmt.Sprintf("%s's %s for %s, as its %s %s reports it", b.cat.ShortName(t), what, period, tools.PeriodLabel(p.doc.FiscalYear), p.doc.Form),
		Completion: Condition{Kind: CondFact, Issuer: t, Period: period, Topic: what, Concepts: []string{key}},
	}, m) {
		b.addNode(tools.LookupFact, tools.LookupFactArgs{Ticker: t, Concept: key, Period: period}, []string{id})
	}
}

// partOf reports whether one of the issuers' filings prints name as the
// label of a row of its own (Intel's "Mobileye 967 879 698"): a part of
// that issuer's business.
func (c *Catalog) partOf(issuers []string, name string) bool {
	name = normLabel(name)
	if name == "" {
		return false
	}
	for _, t := range issuers {
		for _, d := range c.filings[t] {
			for _, e := range c.figures[d.ID] {
				if e.Member == "" && normLabel(e.Label) == name {
					return true
				}
			}
		}
	}
	return false
}

// defines reports whether one of the issuers' filings defines name as an
// abbreviation of its own ("traffic acquisition costs (TAC)"): the
// issuer's term, not another issuer's ticker.
func (c *Catalog) defines(issuers []string, name string) bool {
	for _, t := range issuers {
		if c.stats.Defines(t, name) {
			return true
		}
	}
	return false
}

// planPaid plans what a question asks an issuer paid for or spent on
// (Route.Paid), for each issuer and period: the figure a filing labels as
// the payments for it ("Payments for content assets") where one is, else a
// sentence stating the payments or spending on it with an amount, else its
// gap. It reports false when the route asks for no such figure.
func (b *builder) planPaid() bool {
	object := b.rt.Paid
	if object == "" {
		return false
	}
	what := "payments for " + object
	names := []string{what, "paid for " + object, "spending on " + object, "spent on " + object, object + " spending"}
	b.eachAskedPeriod(func(t string, p filingPeriod, m reqMeta) {
		// A row labelled with the payments themselves; a row of another
		// name ("Additions to content assets") is another measure, and the
		// filing's own words are read instead.
		key, ok := "", false
		if b.cat.KnowsFigures(p.doc.ID) && b.cat.labels(p.doc.ID, strings.Fields(what)) {
			key, ok = b.cat.ResolvePhrase(p.doc.ID, strings.Fields(what), "")
		}
		b.planNamedFigure(t, p, m, what, key, ok, [][]string{names, {AmountTerm}})
	})
	return true
}
