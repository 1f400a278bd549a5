package planner

import (
	"cmp"
	"encoding/json"
	"fmt"
	"github.com/shopspring/decimal"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ledgerline/research/tools"
)

// A question often asks for a part of a catalogue figure in its own words:
// "membership fee revenue", "eCommerce sales", "cloud services and license
// support revenues", "revenue from cloud services", "employee turnover".
// The company-wide figure is then a neighbour, not the answer. Where the
// issuer's filing names the part as a segment or a product (SegmentsIn),
// the part's figure is looked up under its member; otherwise the part is a
// figure of its own, read from a row or a sentence of the filing that
// names it, or reported as a gap.

// wholeWords restate a figure as a whole rather than narrow it: "total
// revenue", "net sales", "consolidated revenue".
var wholeWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`total net gross consolidated overall reported gaap non-gaap adjusted company
	company-wide companywide group-wide entire whole aggregate combined annual quarterly yearly full full-year
	fiscal its their his her our the a an of for in on at by to from and or vs versus as so up down out off into
	onto upon than then via per each both either neither all any some no not yes is are was were be been has have
	had do does did will would can could should may might must shall this that these those such me my we us you
	your he she it they them i get got go take took see saw say said number amount figure value here there now
	then today currently going forward ahead onward onwards henceforth`) {
		wholeWords[w] = true
	}
}

// qualifiedFigure is a part of a catalogue figure a question names.
type qualifiedFigure struct {
	Metric string   // the catalogue metric it narrows
	Words  []string // the part's words in the question's order, the metric's name among them
	Part   []string // the words that narrow it
	Name   string   // the metric's name as the question writes it
	Whole  bool     // the question asks for the whole too ("how much of capex went to remodels, and what was total capex")
	// Contributor marks a part named by what it did to the figure ("how
	// much revenue did those price cuts cost", "how much did Cerner
	// contribute").
	Contributor bool
}

// What is the figure as a reader writes it: "membership fee revenue".
func (q qualifiedFigure) What() string { return strings.Join(q.Words, " ") }

// qualifierToken is one word of a question for the qualifier scan.
type qualifierToken struct {
	text  string // as written, hyphens kept, without a possessive
	lower string // text in lower case
	stop  bool   // a word that cannot narrow a figure
	after bool   // punctuation stands between it and the word before ("Target: total revenue")
	slash bool   // that punctuation is a slash alone, which joins two names ("server/network equipment")
	named bool   // a word of an issuer's name, or an owner (a possessive, "its")
	used  bool   // a word some filing of the corpus uses
}

// qualifierTokens splits a question into words, marking those that cannot
// narrow a figure: the issuers' names, stop words, periods and words with
// digits ("FY2024", "Q3"), verbs in -ed and adverbs in -ly, and the words
// that restate a whole. others are issuers named that the corpus does not
// hold, whose names narrow nothing either.
func qualifierTokens(question string, cat *Catalog, issuers, others []string) []qualifierToken {
	skip := issuerWordSet(cat, issuers)
	// A part the question names by the short form its issuer's filings
	// define ("Intel's DCG revenue") is found as that part (SegmentsIn);
	// the short form narrows nothing further.
	words := strings.FieldsFunc(strings.ToLower(question), func(r rune) bool { return r < 'a' || r > 'z' })
	for _, t := range issuers {
		forms := cat.TextStats().ShortForms(t)
		for _, seg := range cat.SegmentsIn(question, t) {
			if short, ok := forms[normalizeText(seg.Name)]; ok {
				skip[strings.ToLower(short)] = true
			}
			// So is a word clipped from the part's name ("intl").
			for _, w := range words {
				if cat.TextStats().DocumentFrequency(w) == 0 && slices.ContainsFunc(strings.Fields(strings.ToLower(seg.Name)), func(nw string) bool { return clips(w, nw) }) {
					skip[w] = true
				}
			}
		}
	}
	for _, n := range others {
		// "TGT (TARGET CORP)" or a name as written.
		for _, w := range strings.FieldsFunc(strings.ToLower(n), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
			skip[w] = true
		}
	}
	var out []qualifierToken
	question = strings.ReplaceAll(question, "’", "'")
	inWord := func(r rune) bool {
		return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '&' || r == '\''
	}
	punct, slash := false, false
	for i := 0; i < len(question); {
		r, size := utf8.DecodeRuneInString(question[i:])
		if !inWord(r) {
			slash = r == '/' && !punct || slash && unicode.IsSpace(r)
			punct = punct || !unicode.IsSpace(r)
			i += size
			continue
		}
		j := i
		for j < len(question) {
			r, size := utf8.DecodeRuneInString(question[j:])
			if !inWord(r) {
				break
			}
			j += size
		}
		w := question[i:j]
		i = j
		if strings.Trim(w, "-'") == "" {
			// A dash standing alone ("FY21 - how much") parts clauses as
			// punctuation does.
			punct, slash = true, false
			continue
		}
		after, joined := punct, punct && slash
		punct, slash = false, false
		text := strings.Trim(w, "-'")
		w = strings.ToLower(text)
		possessive := strings.HasSuffix(w, "'s") || strings.HasSuffix(w, "s'")
		if possessive {
			text = strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(text, "'s"), "'S"), "'")
		}
		w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "'")
		// A possessive names an owner ("Microsoft's", "the company's"),
		// unless it is a name the filings use that no issuer of the
		// corpus goes by ("Azure's revenue"): that names the figure's
		// part.
		owner := possessive && !cat.partOf(issuers, text) && (skip[w] || !properName(text) || cat.TextStats().DocumentFrequency(w) == 0 || cat.namesIssuer(w))
		stop := owner || len(w) < 2 || skip[w] || questionStopwords[w] || phraseStopwords[w] || wholeWords[w] ||
			strings.ContainsAny(w, "0123456789&'") || strings.HasSuffix(w, "ed") || adverb(w) ||
			askingWords[w] || causingWords[w] || affecting[w] || viewWords[w] || fallWords.MatchString(w) || riseWords.MatchString(w) ||
			operatorWords[w] || rankingWords[w]
		if periodOverPeriod.MatchString(w) {
			// "cloud services year-over-year revenue" is the cloud
			// services revenue, compared with the year before.
			punct, slash = after, joined
			continue
		}
		if w == "&" {
			w, text, stop = "and", "and", true
		}
		out = append(out, qualifierToken{text: text, lower: w, stop: stop, after: after, slash: joined, named: skip[w] || owner || w == "its" || w == "their",
			used: cat.TextStats().DocumentFrequency(w) > 0})
	}
	return out
}

// namesIssuer reports whether the lower-case word names an issuer of the
// corpus (a ticker or a word of its names). It is asked only of a
// capitalised possessive the filings use, so the corpus's issuers are
// read only then.
func (c *Catalog) namesIssuer(w string) bool {
	return issuerWordSet(c, c.Tickers())[w]
}

// properName reports whether a word of a question is written as a name:
// an upper-case letter in it ("Azure", "iPhone", "YouTube").
func properName(w string) bool { return strings.IndexFunc(w, unicode.IsUpper) >= 0 }

// causingWords are the verbs a question asks for a cause with; like the
// verbs of change (fallWords, riseWords) they narrow no figure.
var causingWords = map[string]bool{"drive": true, "drives": true, "drove": true, "driving": true, "driven": true,
	"cause": true, "causes": true, "causing": true, "explain": true, "explains": true,
	// Comparatives rank a figure; they do not narrow it ("the richer margin").
	"higher": true, "lower": true, "bigger": true, "smaller": true, "larger": true, "richer": true,
	"better": true, "worse": true, "stronger": true, "weaker": true, "wider": true, "narrower": true,
	"greater": true, "fatter": true, "thinner": true,
	// A sign, or the measure as reported, is the figure itself: "positive
	// free cash flow", "GAAP operating margin", "absolute R&D spend",
	// "reported revenue", "nominal dollars of capex".
	"positive": true, "negative": true, "gaap": true,
	"absolute": true, "nominal": true, "reported": true, "actual": true, "overall": true, "headline": true,
	"aggregate": true, "outright": true}

// rankingWords rank the issuers by the figure asked ("who holds the least
// cash and who holds the most"): no part of the figure. ("Largest" and
// "biggest" may name a part: "its largest customer".)
var rankingWords = map[string]bool{"least": true, "most": true, "fewest": true, "highest": true, "lowest": true}

// viewWords are who holds a view and the verbs of holding one ("does
// management think revenue will ..."): they narrow no figure.
var viewWords = map[string]bool{"management": true, "mgmt": true, "think": true, "thinks": true, "believe": true,
	"believes": true, "expect": true, "expects": true, "say": true, "says": true, "see": true, "sees": true,
	"feel": true, "feels": true, "view": true, "views": true, "consider": true, "considers": true,
	"anticipate": true, "anticipates": true, "signal": true, "signals": true, "signalling": true, "signaling": true}

// issuerWordSet is every word naming one of the issuers, in lower case:
// tickers, the words of company names, and the names the catalogue knows
// them by.
func issuerWordSet(cat *Catalog, issuers []string) map[string]bool {
	skip := map[string]bool{}
	for _, t := range issuers {
		skip[strings.ToLower(t)] = true
		for _, w := range strings.Fields(strings.ToLower(shortName(cat.Company(t)) + " " + cat.Company(t))) {
			skip[strings.Trim(w, ",.")] = true
		}
		for _, a := range cat.issuerNames(t) {
			skip[strings.ToLower(a)] = true
		}
	}
	return skip
}

// qualifiedFigures returns the parts of the catalogue metrics a question
// names with words of its own around a metric's name: before it ("membership
// fee revenue", "server products and cloud services revenue", with "and"
// between words that narrow) or after it with "from" ("revenue from cloud
// services"). names maps a metric to the names it is written with (its
// aliases and the triggers of its aspect). A metric named only as a whole
// is left out.
func qualifiedFigures(question string, cat *Catalog, issuers, others []string, names map[string][]string) []qualifiedFigure {
	var out []qualifiedFigure
	for _, q := range qualifiedMentions(withoutStatementNames(withoutAmountSaid(withoutTitle(question, names))), cat, issuers, others, names) {
		if !slices.ContainsFunc(out, func(o qualifiedFigure) bool { return o.Metric == q.Metric }) {
			out = append(out, q)
		}
	}
	return out
}

// statementName matches a financial statement's name.
var statementName = regexp.MustCompile(`(?i)\b(?:cash[\s-]flows?[\s-]statements?|income[\s-]statements?|balance[\s-]sheets?|statements?\s+of\s+(?:cash\s+flows?|operations|income|earnings|financial\s+position))\b`)

// withoutStatementNames blanks the names of financial statements: "the
// cash flow statement 'purchases of property and equipment'" says where
// the figure is printed, not which part of it is asked. The question's
// length and offsets are kept.
func withoutStatementNames(question string) string {
	return statementName.ReplaceAllStringFunc(question, func(m string) string { return strings.Repeat(" ", len(m)) })
}

// amountSaid matches what a question says a named part did, between the
// name and the figure's name: "LinkedIn did ~$13.8B in FY22 revenue",
// "AWS posted $107.6 billion of sales".
var amountSaid = regexp.MustCompile(`\b[A-Z][\w&.'’-]*((?i:\s+(?:did|posted|generated|brought\s+in|made|delivered|booked|reported|had|pulled\s+in|raked\s+in|earned)\s+(?:about|roughly|around|approximately|nearly|over|almost|~)?\s*~?\$\s?\d[\d.,]*\s*(?:billion|million|bn|mm|b|m)?\s+(?:in|of)(?:\s+(?:fy|fiscal|calendar)\s*'?\d{2,4})?))\s+[a-z]`)

// withoutAmountSaid blanks what a question says a named part did between
// the name and its figure's name (amountSaid), so that the name narrows
// the figure as it would written before it ("LinkedIn revenue"). The
// question's length and offsets are kept.
func withoutAmountSaid(question string) string {
	ms := amountSaid.FindAllStringSubmatchIndex(question, -1)
	if ms == nil {
		return question
	}
	b := []byte(question)
	for _, m := range ms {
		for i := m[2]; i < m[3]; i++ {
			b[i] = ' '
		}
	}
	return string(b)
}

// questionTitle matches a title before a question's first colon: at most
// six words, none a question word or an auxiliary ("AI capex arms race
// check:", "Warehouse club showdown:").
var questionTitle = regexp.MustCompile(`^\s*([^:?.!;]{1,80}):\s+\S`)

// titleVerbs are the words that make text before a colon a clause, not a
// title.
var titleVerbs = map[string]bool{"what": true, "which": true, "how": true, "why": true, "did": true, "does": true, "do": true,
	"is": true, "are": true, "was": true, "were": true, "has": true, "have": true, "will": true, "can": true, "should": true}

// withoutTitle blanks a question's title ("AI capex arms race check: 2024
// capital expenditures for Amazon ...") when the question names again,
// after it, a figure the title names: the title labels the question, and
// what narrows the figure asked is said after it.
func withoutTitle(question string, names map[string][]string) string {
	m := questionTitle.FindStringSubmatchIndex(question)
	if m == nil {
		return question
	}
	words := strings.Fields(question[m[2]:m[3]])
	if len(words) > 6 || slices.ContainsFunc(words, func(w string) bool { return titleVerbs[strings.ToLower(w)] }) {
		return question
	}
	title, body := normLabel(question[m[2]:m[3]]), " "+normLabel(question[m[3]:])+" "
	for _, ns := range names {
		inTitle, inBody := false, false
		for _, n := range ns {
			n = normLabel(n)
			if n == "" {
				continue
			}
			inTitle = inTitle || strings.Contains(" "+title+" ", " "+n+" ")
			inBody = inBody || strings.Contains(body, " "+n+" ")
		}
		if inTitle && inBody {
			return strings.Repeat(" ", m[3]) + question[m[3]:]
		}
	}
	return question
}

// qualifiedMentions is qualifiedFigures with every narrowed mention of a
// metric, in the question's order of names: "Google Cloud revenue and
// YouTube ads revenue" narrows revenue twice.
func qualifiedMentions(question string, cat *Catalog, issuers, others []string, names map[string][]string) []qualifiedFigure {
	toks := qualifierTokens(question, cat, issuers, others)
	effect := asksHowMuch.MatchString(question)
	share := asksHowMuchOf.MatchString(question)
	type name struct {
		metric string
		words  []string
	}
	var all []name
	for metric, ns := range names {
		for _, n := range ns {
			if ws := strings.Fields(strings.ToLower(n)); len(ws) > 0 {
				all = append(all, name{metric, ws})
			}
		}
	}
	// The longest name first, so that "cost of revenue" is read as itself
	// and not as a revenue narrowed by "cost of".
	slices.SortStableFunc(all, func(a, b name) int {
		if len(a.words) != len(b.words) {
			return len(b.words) - len(a.words)
		}
		return strings.Compare(a.metric+strings.Join(a.words, " "), b.metric+strings.Join(b.words, " "))
	})
	// A word of another figure's name narrows nothing: "net sales and
	// operating income" asks for two figures, not operating income of
	// sales.
	otherName := make([]bool, len(toks))
	aliases := make([][]string, 0, len(tools.Metrics)+len(tools.DerivedMetrics))
	for _, mt := range tools.Metrics {
		aliases = append(aliases, mt.Aliases)
	}
	for _, d := range tools.DerivedMetrics {
		// "free cash flow" is a figure of its own, no cash narrowed.
		aliases = append(aliases, d.Aliases)
	}
	var spans [][2]int // where every figure's name stands
	for _, as := range aliases {
		for _, a := range as {
			ws := strings.Fields(a)
			for i := 0; i+len(ws) <= len(toks); i++ {
				if tokensAre(toks[i:i+len(ws)], ws) {
					spans = append(spans, [2]int{i, i + len(ws)})
					for k := i; k < i+len(ws); k++ {
						otherName[k] = otherName[k] || !toks[k].stop
						toks[k].stop = true
					}
				}
			}
		}
	}
	// Unless the issuer's filings print that word before the figure's
	// name: Amazon's "cash capital expenditures" are a figure of their
	// own, so "AMZN cash capex" asks them, not the cash balance. A name
	// the question writes as a row of the filings labels it ("cash
	// purchases of property and equipment") is read so: only that name
	// with the word before it is the figure of their own.
	for _, n := range all {
		for i := 1; i+len(n.words) <= len(toks); i++ {
			if !otherName[i-1] || toks[i-1].named || !tokensAre(toks[i:i+len(n.words)], n.words) {
				continue
			}
			printed := printedBefore(cat, issuers, toks[i-1].lower, n.metric, names[n.metric])
			if labelsRow(cat, issuers, n.words) {
				printed = slices.ContainsFunc(issuers, func(t string) bool {
					return cat.TextStats().PrintsBefore(t, toks[i-1].lower, []string{strings.Join(n.words, " ")})
				})
			}
			if printed {
				toks[i-1].stop = false
			}
		}
	}
	// A figure the question also names as its total ("Retail capex,
	// FY2022: Walmart vs Costco total capital expenditures") is asked as a
	// whole; the words before its other mention title the question.
	total := map[string]bool{}
	for _, n := range all {
		for i := 1; i+len(n.words) <= len(toks); i++ {
			if toks[i-1].lower == "total" && tokensAre(toks[i:i+len(n.words)], n.words) {
				total[n.metric] = true
			}
		}
	}
	// "Cloud revenue as a % of total revenue": the total is the share's
	// whole, not a figure asked as a whole.
	if shareOfTotal.MatchString(question) {
		clear(total)
	}
	sharePart := asksShare(question)
	// A figure's name the question shortens ("op margin" is the operating
	// margin) names that figure, not a part of another.
	shortened := map[string]bool{}
	// So does a figure's own name ("revenue and operating margin" asks
	// the operating margin, not a revenue narrowed by "operating", though
	// "margin" is a word of revenue's aspect).
	ownName := map[string]string{}
	for _, f := range FindFigures(question) {
		ownName[strings.ToLower(f.Phrase)] = f.Metric + f.Derived
		label := ""
		if m, ok := tools.MetricByName(f.Metric); ok && f.Metric != "" {
			label = m.Label
		} else if d, ok := tools.DerivedByName(f.Derived); ok && f.Derived != "" {
			label = d.Label
		}
		if shortens(strings.Fields(strings.ToLower(f.Phrase)), strings.Fields(strings.ToLower(label))) {
			shortened[strings.ToLower(f.Phrase)] = true
		}
	}
	taken := make([]bool, len(toks))
	var out []qualifiedFigure
	// Where each figure's name stands, and the figure it was read as
	// (-1 for none): a part named once qualifies every figure of its list.
	type occurrence struct {
		start, end int
		metric     string
		words      []string
		figure     int
	}
	var occs []occurrence
	for _, n := range all {
		for i := 0; i+len(n.words) <= len(toks); i++ {
			if slices.Contains(taken[i:i+len(n.words)], true) || !tokensAre(toks[i:i+len(n.words)], n.words) {
				continue
			}
			for k := i; k < i+len(n.words); k++ {
				taken[k] = true
			}
			occs = append(occs, occurrence{i, i + len(n.words), n.metric, n.words, -1})
			part := qualifiersBefore(toks, i)
			after := qualifiersAfter(toks, i+len(n.words))
			fromShare := false
			if k := i + len(n.words); sharePart && len(after) == 0 && k+1 < len(toks) && comingFrom[toks[k].lower] {
				// "What share of Oracle's revenue came from cloud
				// services": the part the share is of; "what share of
				// revenue were membership fees": the same, without "from".
				after = qualifiersAfter(toks, k+1)
				if len(after) == 0 && beWords[toks[k].lower] {
					// A verb after "is" ("is expected to be realized")
					// says what happens to the figure, not its part.
					if part := qualifiersFrom(toks, k+1); len(part) > 0 && !verbForm(part[0]) {
						after = part
					}
				}
				fromShare = len(after) > 0
			}
			var dest []string
			if share && len(after) == 0 {
				dest = destinationAfter(toks, i+len(n.words))
			}
			if len(part) > 0 {
				// "How much did Activision add to Microsoft's gaming
				// revenue": the part of the part that contributes.
				if c := contributorBefore(toks, i-len(part), effect); len(c) > 0 {
					if n := len(c); changeNouns[strings.ToLower(c[n-1])] && slices.EqualFunc(c[:n-1], part, strings.EqualFold) {
						// "the membership fee hike add to membership fee
						// revenue": the part's change, named once.
						part = c
					} else {
						part = append(c, part...)
					}
				}
			}
			whole := total[n.metric] && len(dest) > 0
			if total[n.metric] && !fromShare {
				// The total asked elsewhere ("total revenues and
				// membership fees") leaves a share's part: "what share
				// of revenue were membership fees".
				part, after = nil, nil
			}
			if len(dest) > 0 {
				// "How much of Walmart's capex went to remodels, and
				// what was total capex": the part the figure went to,
				// whatever narrows it before; the total is asked too.
				part, after = dest, nil
			}
			contributor := false
			if len(part) == 0 && len(after) == 0 {
				// "How much did Cerner contribute to Oracle's total
				// revenues": the part is what contributes to the figure;
				// "how much revenue did Activision contribute": the same,
				// named after the figure.
				part = contributorBefore(toks, i, effect)
				if len(part) == 0 {
					part = contributorAfter(toks, i+len(n.words))
				}
				contributor = len(part) > 0
				if len(part) == 0 {
					// "how much revenue did Oracle get from TikTok": the
					// part is where the figure came from.
					part = sourceAfter(toks, i+len(n.words))
				}
				if len(part) == 0 {
					// "Meta's 2024 revenue in China": a place the figure
					// is of, named after it.
					after = placeAfter(toks, i+len(n.words))
				}
			}
			if len(part) == 0 && len(after) == 0 {
				continue
			}
			var written []string
			for _, t := range toks[i : i+len(n.words)] {
				written = append(written, t.lower)
			}
			q := qualifiedFigure{Metric: n.metric, Name: strings.Join(written, " "), Whole: whole, Contributor: contributor}
			if len(part) > 0 {
				q.Part = part
				q.Words = append(slices.Clone(part), written...)
			} else {
				q.Part = after
				q.Words = append(slices.Clone(written), append([]string{"from"}, after...)...)
			}
			if len(part) > 0 && shortened[strings.ToLower(q.What())] {
				continue
			}
			if own, ok := ownName[strings.ToLower(q.What())]; ok && own != n.metric {
				continue
			}
			occs[len(occs)-1].figure = len(out)
			out = append(out, q)
		}
	}
	// "Mobileye revenue and operating income", "what revenue and what
	// operating income did Mobileye report": a part named once is of
	// each figure the list joins.
	for _, o := range occs {
		if o.figure >= 0 || o.words[0] == "total" {
			// A total is the whole's ("Mobileye revenue and total
			// operating income").
			continue
		}
		if part := listPart(toks, spans, o.start, o.end); len(part) > 0 {
			out = append(out, qualifiedFigure{Metric: o.metric, Name: strings.Join(o.words, " "), Part: part,
				Words: append(slices.Clone(part), o.words...)})
		}
	}
	return out
}

// listPart returns the part that qualifies the figure named next to the
// one at toks[start:end] in a list ("Mobileye revenue and operating
// income"; "what revenue and what operating income did Mobileye report"),
// named before that figure or as what reports it after; nil when the
// figure stands in no list or its neighbour names no part.
func listPart(toks []qualifierToken, spans [][2]int, start, end int) []string {
	for _, sp := range spans {
		switch {
		case sp[1] <= start && listJoined(toks[sp[1]:start]):
			// The figure before: its part is named before it.
			if part := qualifiersBefore(toks, sp[0]); len(part) > 0 {
				return part
			}
		case sp[0] >= end && listJoined(toks[end:sp[0]]):
			// The figure after: what reports it, after it.
			if reportedBy(toks[sp[1]:]) {
				if part := contributorAfter(toks, sp[1]); len(part) > 0 {
					return part
				}
			}
		}
	}
	return nil
}

// listJoined reports whether the words between two figures' names join
// them in one list: "and", "&", "plus", a comma, and the asking words a
// list repeats ("what revenue and what operating income").
func listJoined(between []qualifierToken) bool {
	if len(between) == 0 || len(between) > 3 {
		return false
	}
	joined := false
	for k, t := range between {
		switch {
		case t.lower == "and" || t.lower == "&" || t.lower == "plus":
			joined = true
		case t.lower == "what" || t.lower == "the" || t.lower == "its" || t.lower == "their":
		default:
			return false
		}
		if t.after && k > 0 {
			return false
		}
	}
	return joined
}

// reportedBy reports whether the words after a list of figures name
// what reports them, as "did Mobileye report" does: an auxiliary, then
// a verb of reporting within four words.
func reportedBy(toks []qualifierToken) bool {
	if len(toks) == 0 || !auxiliary[toks[0].lower] {
		return false
	}
	for k := 1; k < len(toks) && k <= 4; k++ {
		if reporting[toks[k].lower] || contributing[toks[k].lower] {
			return true
		}
		if toks[k].after {
			return false
		}
	}
	return false
}

// PartsAsked returns the parts of the catalogue's figures a question names
// with words of its own ("Walmart International's net sales" names
// "International"), each as the question writes it: the subject an
// explanation of the figure must be about.
func PartsAsked(question string, cat *Catalog, rt Route) []string {
	var all []string
	for _, m := range tools.Metrics {
		all = append(all, m.Name)
	}
	var out []string
	for _, q := range qualifiedFigures(question, cat, rt.Issuers, rt.NotCovered, metricNames(all)) {
		var words []string
		for _, w := range q.Part {
			if !strings.EqualFold(w, "and") || len(words) > 0 {
				words = append(words, w)
			}
		}
		if p := strings.Join(words, " "); p != "" && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// contributorBefore returns the narrowing words before a verb of
// contributing that stands, across words that narrow nothing ("to",
// "Oracle's", "total"), before toks[at]: Cerner in "Cerner contributed to
// Oracle's total revenues".
//
// A question asking how much (effect) may name the part by what it did
// to the figure: "by how much did stretching server/network equipment
// useful lives lift Microsoft's operating income" asks for the amount the
// change added, a part of operating income. A gerund leading the part
// ("stretching") is the action, not the name.
func contributorBefore(toks []qualifierToken, at int, effect bool) []string {
	for k := at - 1; k >= 0; k-- {
		if contributing[toks[k].lower] || effect && affecting[toks[k].lower] {
			// A change that contributed ("the membership fee hike add
			// to"): the change is the part, not the thing that changed.
			end, event := k, ""
			if k > 0 && changeNouns[toks[k-1].lower] {
				end, event = k-1, toks[k-1].text
			}
			part := qualifiersBefore(toks, end)
			if len(part) > 1 && strings.HasSuffix(strings.ToLower(part[0]), "ing") && affecting[toks[k].lower] {
				part = part[1:]
			}
			if len(part) == 0 && end > 0 && pointingBack[toks[end-1].lower] {
				// "Microsoft stretched server useful lives ... - how
				// much did that add to operating income": what the
				// clause before did.
				part = priorAction(toks, end-1)
			}
			if event != "" && len(part) > 0 {
				part = append(part, event)
			}
			return namedContributor(part)
		}
		if !toks[k].stop || toks[k+1].after {
			return nil
		}
	}
	return nil
}

// priorAction returns what the clause before the one holding toks[at]
// says was done, the object of its verb in -ed ("server useful lives" in
// "Microsoft stretched server useful lives from 3 to 4 years"); nil when
// there is no clause before or it names no such action.
func priorAction(toks []qualifierToken, at int) []string {
	start := at
	for start > 0 && !toks[start].after {
		start--
	}
	if start == 0 {
		return nil
	}
	// Words joined by a slash ("server/network equipment") are one
	// clause's.
	from := start - 1
	for from > 0 && (!toks[from].after || toks[from].slash) {
		from--
	}
	for k := from; k < start; k++ {
		if w := toks[k].lower; toks[k].stop && len(w) > 3 && strings.HasSuffix(w, "ed") {
			if part := actionObject(toks, k+1); len(part) > 0 {
				return part
			}
		}
	}
	return nil
}

// actionObject is qualifiersFrom across words joined by a slash
// ("server/network equipment useful lives").
func actionObject(toks []qualifierToken, at int) []string {
	var out []string
	for k := at; k < len(toks); {
		part := qualifiersFrom(toks, k)
		if len(part) == 0 {
			break
		}
		out = append(out, part...)
		k += len(part)
		if k >= len(toks) || !toks[k].slash || toks[k].stop {
			break
		}
		out = append(out, toks[k].text) // the word after the slash
		k++
	}
	return out
}

// changeNouns name a change as a thing: "the fee hike", "the price
// increase".
var changeNouns = map[string]bool{"hike": true, "hikes": true, "increase": true, "increases": true, "raise": true,
	"rise": true, "cut": true, "cuts": true, "reduction": true, "reductions": true, "decrease": true, "decline": true,
	"change": true, "changes": true}

// namedContributor returns the name of a contributor written as a name
// and what it is ("the Cerner deal", "the LinkedIn acquisition"): the
// capitalised words that lead it. The filing states what Cerner
// contributed, not what "the deal" did. A contributor written in lower
// case ("the tax law change") is returned whole.
func namedContributor(part []string) []string {
	if len(part) < 2 || !startsUpper(part[0]) {
		return part
	}
	n := 1
	for n < len(part) && startsUpper(part[n]) {
		n++
	}
	if n == len(part) {
		return part
	}
	for _, w := range part[n:] {
		if strings.IndexFunc(w, unicode.IsUpper) >= 0 {
			return part // "Xbox content and services": a name of its own
		}
	}
	return part[:n]
}

// contributorAfter returns the narrowing words that stand between a
// figure's name at toks[at-1] (and an auxiliary: "did", "does") and a verb
// of contributing: Activision Blizzard in "how much revenue did Activision
// Blizzard contribute to Microsoft's results".
func contributorAfter(toks []qualifierToken, at int) []string {
	k := at
	for k < len(toks) && toks[k].stop && !contributing[toks[k].lower] && auxiliary[toks[k].lower] {
		k++
	}
	var out []string
	owned := false // the part is named as the issuer's (a possessive before it)
	name := false  // the part opens with a name the filings use that is no issuer's
	for ; k < len(toks); k++ {
		switch {
		case contributing[toks[k].lower] || reporting[toks[k].lower] && (owned || name) && k > at && auxiliary[toks[at].lower] ||
			taking[toks[k].lower] && len(out) > 0 && k > at && auxiliary[toks[at].lower]:
			// "how much revenue did those price cuts cost them": what
			// took the part away is the part.
			// "how much revenue did Azure generate": a name that is no
			// issuer's generates a part of the issuer's figure.
			return namedContributor(out)
		case toks[k].after:
			return nil
		case !toks[k].stop:
			if len(out) == 0 {
				name = startsUpper(toks[k].text) && toks[k].used
			}
			out = append(out, toks[k].text)
		case changeNouns[toks[k].lower] && len(out) > 0 && !toks[k].after:
			// "those price cuts", "the fee hike": a change named as a
			// thing is what contributed.
			out = append(out, toks[k].text)
		case (toks[k].lower == "the" || pointingDeterminers[toks[k].lower] || toks[k].named) && len(out) == 0:
			// "did the Activision", "did Microsoft's gaming segment"
			owned = owned || toks[k].named
		default:
			return nil
		}
	}
	return nil
}

// pointingDeterminers point back to a thing named before: "how much
// revenue did those price cuts cost them".
var pointingDeterminers = map[string]bool{"those": true, "these": true, "that": true, "this": true}

// reporting are the verbs a question asks what a part of the business
// reported with, after an auxiliary ("what operating income did
// Microsoft's gaming segment report").
var reporting = map[string]bool{"report": true, "post": true, "generate": true, "earn": true, "record": true, "make": true, "book": true, "deliver": true,
	"bring": true, "pull": true, "rake": true}

// taking are the verbs a question asks what a thing took from a figure
// with ("how much revenue did the price cuts cost", "lose").
var taking = map[string]bool{"cost": true, "lose": true, "shave": true, "wipe": true}

// receiving are the verbs a question asks where a figure came from with
// ("get from", "earn from", "derive from").
var receiving = map[string]bool{"get": true, "got": true, "gets": true, "earn": true, "earned": true, "earns": true,
	"generate": true, "generated": true, "generates": true, "derive": true, "derived": true, "derives": true,
	"receive": true, "received": true, "receives": true, "make": true, "made": true, "makes": true, "come": true, "came": true, "comes": true}

// sourceAfter returns the words naming where a figure came from, after
// the figure's name at toks[at:]: an auxiliary, the issuer, a verb of
// receiving and "from", then the source ("revenue did Oracle get from
// TikTok": TikTok); nil when the words after the figure are not so.
func sourceAfter(toks []qualifierToken, at int) []string {
	k := at
	for k < len(toks) && (auxiliary[toks[k].lower] || toks[k].named || toks[k].lower == "the") {
		k++
	}
	if k+1 >= len(toks) || !receiving[toks[k].lower] || toks[k+1].lower != "from" {
		return nil
	}
	var out []string
	for k += 2; k < len(toks) && !toks[k].stop && !toks[k].after; k++ {
		out = append(out, toks[k].text)
	}
	return out
}

// placeAfter returns the name after "in" at toks[at] of a place a figure
// is of ("revenue in China", "sales in the U.S."): words written as
// names, none an issuer's, a period's or a unit's; nil when the figure is
// not followed so.
func placeAfter(toks []qualifierToken, at int) []string {
	if at >= len(toks) || toks[at].lower != "in" || toks[at].after {
		return nil
	}
	k := at + 1
	if k < len(toks) && toks[k].lower == "the" {
		k++
	}
	var out []string
	// A name's words may read as stop words elsewhere ("United" as a
	// verb in -ed): written as a name, each is one here.
	for ; k < len(toks) && !toks[k].named && (len(out) == 0 || !toks[k].after); k++ {
		w := toks[k].lower
		if !properName(toks[k].text) || periodAcronyms[w] || monthWord.MatchString(w) || questionStopwords[w] || askingWords[w] ||
			strings.ContainsAny(w, "0123456789") {
			break
		}
		out = append(out, toks[k].text)
	}
	return out
}

// monthWord matches a month's name or its short form, a word alone:
// "revenue in March" names a period, not a place.
var monthWord = regexp.MustCompile(`(?i)^(?:` + monthNames + `)$`)

// auxiliary are the verbs a question puts between what it asks and its
// subject ("how much revenue did Activision contribute").
var auxiliary = map[string]bool{"did": true, "does": true, "do": true, "has": true, "have": true, "had": true, "will": true, "would": true}

// contributing are the forms of the verb a part's share of a whole is
// asked with.
var contributing = map[string]bool{"contribute": true, "contributed": true, "contributes": true, "contributing": true, "add": true, "added": true, "adds": true}

// affecting are the verbs a question asking how much names a part's effect
// on a figure with, either way ("lift", "hurt"). They narrow no figure.
// ("benefit" is left out: "employee benefits" is a figure's name.)
var affecting = map[string]bool{"lift": true, "lifted": true, "lifts": true, "boost": true, "boosted": true, "boosts": true,
	"raise": true, "raised": true, "raises": true,
	"hurt": true, "hurts": true, "reduce": true, "reduced": true, "reduces": true, "lower": true, "lowered": true, "lowers": true,
	"cut": true, "cuts": true, "weigh": true, "weighed": true}

// asksHowMuchOf finds a question asking for a part of a figure: "how much
// of Walmart's capex went to remodels".
var asksHowMuchOf = regexp.MustCompile(`(?i)\bhow\s+much\s+of\b`)

// destinationAfter returns the narrowing words after a verb that sends a
// figure somewhere at toks[at] ("capex went to remodels", "was spent on
// new stores", "came from fuel"); nil when the name is not followed so.
func destinationAfter(toks []qualifierToken, at int) []string {
	k := at
	// The figure's period may stand between ("growth in fiscal 2021 came
	// from"), and an auxiliary ("was spent on").
	for k < len(toks) && !toks[k].after && toks[k].stop && (auxiliary[toks[k].lower] || periodWords[toks[k].lower] || strings.ContainsAny(toks[k].lower, "0123456789")) {
		k++
	}
	if k+1 >= len(toks) || toks[k].after || toks[k+1].after {
		return nil
	}
	prep, ok := sending[toks[k].lower]
	if !ok || !slices.Contains(prep, toks[k+1].lower) {
		return nil
	}
	return qualifiersAfter(append([]qualifierToken{{lower: "from", stop: true}}, toks[k+2:]...), 0)
}

// shareOfTotal matches a share of a total ("as a % of total revenue",
// "what percentage of Oracle's total revenues").
var shareOfTotal = regexp.MustCompile(`(?i)(?:%|\b(?:` + shareNouns + `))\s+of\s+(?:[\w.&'’-]+\s+){0,2}?total\b`)

// comingFrom are the verbs before "from" that say where a share of a
// figure comes from ("came from cloud services").
var comingFrom = map[string]bool{"came": true, "come": true, "comes": true, "coming": true, "was": true, "were": true, "is": true, "are": true, "derived": true}

// verbForm reports whether a word is a verb's form, not a part's name: a
// past participle ("expected", by its ending) or a word of how a figure
// moved ("growing"). An "-ing" word is often a part ("advertising",
// "licensing") and is not read by its ending.
func verbForm(w string) bool {
	w = strings.ToLower(w)
	return len(w) > 4 && strings.HasSuffix(w, "ed") || riseWords.MatchString(w) || fallWords.MatchString(w)
}

// beWords are the forms of "be" a share's part follows ("what share of
// revenue were membership fees").
var beWords = map[string]bool{"was": true, "were": true, "is": true, "are": true}

// operatorWords are the words of arithmetic between figures ("operating
// cash flow minus capex"): each side is a figure of its own, never a part
// of the other.
var operatorWords = map[string]bool{"minus": true, "plus": true, "less": true, "divided": true, "times": true, "multiplied": true}

// periodOverPeriod is a period compared with the one before, written as
// one word ("year-over-year", "quarter-on-quarter"): it says how a figure
// is compared, never which part of it is asked, so the qualifier scan
// reads past it.
var periodOverPeriod = regexp.MustCompile(`^(?:year|quarter|month|period|week)-(?:over|on|to)-(?:year|quarter|month|period|week)$`)

// periodWords are the words, besides years, of a period written after a
// figure's name, and the forms of "be".
var periodWords = map[string]bool{"in": true, "for": true, "during": true, "fiscal": true, "the": true, "year": true,
	"quarter": true, "was": true, "were": true, "is": true}

// sending are the verbs, each with its prepositions, that say where a part
// of a figure went or came from.
var sending = map[string][]string{
	"went": {"to", "toward", "towards", "into"}, "go": {"to", "toward", "towards", "into"}, "goes": {"to", "toward", "towards", "into"},
	"spent": {"on"}, "spend": {"on"}, "allocated": {"to"},
	"came": {"from"}, "come": {"from"}, "comes": {"from"},
}

// asksHowMuch finds a question asking for an amount: "how much", "by how much".
var asksHowMuch = regexp.MustCompile(`(?i)\bhow\s+much\b`)

func tokensAre(toks []qualifierToken, words []string) bool {
	for i, w := range words {
		if l := toks[i].lower; l != w && l != strings.TrimSuffix(w, "s") && l+"s" != w {
			return false
		}
	}
	return true
}

// qualifiersBefore returns the narrowing words right before toks[at]: the
// run of words that can narrow, "and" allowed between two of them.
func qualifiersBefore(toks []qualifierToken, at int) []string {
	start := at
	for k := at - 1; k >= 0; k-- {
		if toks[k+1].after && !toks[k+1].slash {
			break // punctuation ends the phrase
		}
		switch {
		case !toks[k].stop:
			start = k
			continue
		case toks[k].lower == "and" && k > 0 && !toks[k-1].stop && start == k+1 && start < at:
			// "cloud services and license support revenue" names one
			// part; "GMV and revenue", "and" right before the name, lists
			// two figures.
			continue
		}
		break
	}
	var out []string
	for _, t := range toks[start:at] {
		out = append(out, t.text)
	}
	return out
}

// qualifiersAfter returns the narrowing words after "from" at toks[at]
// ("revenue from cloud services"); nil when the name is not followed so.
func qualifiersAfter(toks []qualifierToken, at int) []string {
	if at >= len(toks) || toks[at].lower != "from" {
		return nil
	}
	return qualifiersFrom(toks, at+1)
}

// qualifiersFrom returns the words naming a part from toks[at] on, up to
// the next stop word ("and" between two words kept).
func qualifiersFrom(toks []qualifierToken, at int) []string {
	var out []string
	for k := at; k < len(toks); k++ {
		if toks[k].after {
			break
		}
		if toks[k].stop {
			if toks[k].lower == "and" && k+1 < len(toks) && !toks[k+1].stop && len(out) > 0 {
				out = append(out, "and")
				continue
			}
			if len(out) == 0 && (toks[k].lower == "the" || toks[k].lower == "its" || toks[k].lower == "their") {
				continue
			}
			break
		}
		out = append(out, toks[k].text)
	}
	return out
}

// metricNames is, for each metric the catalogue knows, the names a
// question writes it with: its aliases and the triggers of the aspects
// that plan it.
func metricNames(metrics []string) map[string][]string {
	out := map[string][]string{}
	for _, metric := range metrics {
		mt, ok := tools.MetricByName(metric)
		if !ok {
			// A derived figure by its names ("operating margin"), so
			// that "Costco's e-commerce operating margin" is a part's.
			if d, found := tools.DerivedByName(metric); found {
				out[metric] = append(out[metric], d.Aliases...)
			}
			continue
		}
		out[metric] = append(out[metric], mt.Aliases...)
		out[metric] = append(out[metric], tools.MetricPhrases(mt)...)
		for _, a := range Lexicon {
			if slices.Contains(a.Metrics, metric) && len(a.Metrics) > 0 && a.Metrics[0] == metric {
				out[metric] = append(out[metric], a.Triggers...)
			}
		}
	}
	return out
}

// qualifiedFor returns the part of metric the question names for issuer
// t, or false when it names the metric as a whole or names a part the
// catalogue knows as a segment of t (planned under its member).
func (b *builder) qualifiedFor(t, metric string) (qualifiedFigure, bool) {
	if !b.rt.AsksFigure && len(b.rt.Figures) == 0 {
		return qualifiedFigure{}, false
	}
	return b.qualifiedPart(t, metric)
}

// qualifiedPart is qualifiedFor whether or not the question asks for a
// number: "how does Oracle's cloud services and license support revenue
// stack up" is about that part, not the company's revenue.
func (b *builder) qualifiedPart(t, metric string) (qualifiedFigure, bool) {
	if len(b.cat.SegmentsIn(b.question, t)) > 0 {
		return qualifiedFigure{}, false
	}
	for _, q := range qualifiedFigures(b.question, b.cat, b.rt.Issuers, b.rt.NotCovered, metricNames([]string{metric})) {
		if q.Metric == metric {
			return q, true
		}
	}
	return b.ownNamePart(t, metric)
}

// ownNamePart reads, in a question that asks each issuer's part of a
// figure ("Azure in Microsoft's FY2021, AWS in Amazon's 2022 ... revenue
// growth for each"), issuer t's part where no segment of its filings
// names it: a capitalised word of the question that is a name of t's own
// among the corpus's issuers (TextStats.OwnIssuer).
// It asks so only where another issuer's part is named by a segment, so
// that a product named as a cause ("Microsoft's revenue, given Azure's
// strength") leaves the company's figure asked.
func (b *builder) ownNamePart(t, metric string) (qualifiedFigure, bool) {
	stats := b.cat.TextStats()
	if stats == nil || !slices.ContainsFunc(b.rt.Issuers, func(o string) bool { return o != t && len(b.cat.SegmentsIn(b.question, o)) > 0 }) {
		return qualifiedFigure{}, false
	}
	toks := qualifierTokens(b.question, b.cat, b.rt.Issuers, b.rt.NotCovered)
	// The first run of such words, one after another ("Reality Labs").
	var part []string
	for _, tok := range toks {
		own := !tok.stop && !tok.named && len(tok.lower) >= 3 && startsUpper(tok.text) && stats.OwnIssuer(tok.lower) == t
		if len(part) > 0 && (!own || tok.after) {
			break
		}
		if own {
			part = append(part, tok.text)
		}
	}
	if len(part) == 0 {
		return qualifiedFigure{}, false
	}
	names := metricNames([]string{metric})[metric]
	slices.SortStableFunc(names, func(a, b string) int { return len(strings.Fields(b)) - len(strings.Fields(a)) })
	for _, n := range names {
		ws := strings.Fields(strings.ToLower(n))
		for i := 0; i+len(ws) <= len(toks); i++ {
			if tokensAre(toks[i:i+len(ws)], ws) {
				return qualifiedFigure{Metric: metric, Name: strings.Join(ws, " "), Part: part, Words: append(slices.Clone(part), ws...)}, true
			}
		}
	}
	return qualifiedFigure{}, false
}

// partsBeside returns the parts of metrics the question names beside the
// segments segs, by a name no segment's name holds (namesOtherPart),
// where it names the metric again for them ("Google Cloud revenue and YouTube ads revenue":
// YouTube ads is tagged only within a segment, and no segment is named
// so). Each is a figure asked of its own.
func (b *builder) partsBeside(t string, metrics []string, segs []Segment) []qualifiedFigure {
	var segWords []string
	for _, s := range segs {
		segWords = append(segWords, wordsOf(s.Name)...)
	}
	var out []qualifiedFigure
	for _, metric := range metrics {
		mentions := slices.DeleteFunc(qualifiedMentions(b.question, b.cat, b.rt.Issuers, b.rt.NotCovered, metricNames([]string{metric})),
			func(q qualifiedFigure) bool { return q.Metric != metric })
		for _, q := range mentions {
			// What a thing did to the part's figure ("Netflix cut prices
			// in Latin America ... How much revenue did those price cuts
			// cost them?") is a figure of its own, not the part's.
			if q.Contributor && !slices.ContainsFunc(q.Part, func(w string) bool {
				return slices.ContainsFunc(segWords, func(o string) bool { return strings.EqualFold(o, w) })
			}) {
				out = append(out, q)
				continue
			}
			if len(mentions) >= 2 && namesOtherPart(q, segWords, b.cat.TextStats()) {
				out = append(out, q)
			}
		}
	}
	return out
}

// namesOtherPart reports whether a narrowed mention names a part by a name
// of its own: a word of its part written with a capital that at most half
// the filings counted use, and none of the words of the parts already
// named (segWords).
func namesOtherPart(q qualifiedFigure, segWords []string, stats *TextStats) bool {
	if slices.ContainsFunc(q.Part, func(w string) bool {
		return slices.ContainsFunc(segWords, func(o string) bool { return strings.EqualFold(o, w) })
	}) {
		return false
	}
	// A capital starting a sentence ("Segment operating margin = ...")
	// is no name: a name is a word most filings do not use.
	return slices.ContainsFunc(q.Part, func(w string) bool {
		return startsUpper(w) && (stats.Documents() == 0 || 2*stats.DocumentFrequency(w) <= stats.Documents())
	})
}

// planQualifiedFigure plans the part of a figure the question names, for
// an issuer and period: the fact whose concept or row label holds all its
// words, or else a sentence of the filing that holds them with a figure;
// either way a required figure requirement, so a filing that states no
// such figure leaves a gap naming it, never the company-wide figure. It
// returns the requirement's id ("" when the period has no filing).
func (b *builder) planQualifiedFigure(t string, p filingPeriod, q qualifiedFigure, m reqMeta) string {
	if !p.found {
		return ""
	}
	what := q.What()
	period := tools.PeriodLabel(p.fy)
	id := t + "-" + period + "-figure-" + slug(what)
	var content []string
	for _, w := range q.Words {
		if !strings.EqualFold(w, "and") && !strings.EqualFold(w, "from") {
			content = append(content, w)
		}
	}
	if b.cat.KnowsFigures(p.doc.ID) {
		if key, ok := b.partKey(t, p.doc.ID, q, content); ok {
			growth := asksGrowth(normalizeText(q.Name))
			level := what
			if growth {
				// "Oracle's cloud services revenue growth": the row is
				// the part's level; its growth is computed from the
				// level and the year before, which the filing prints
				// beside it.
				level = strings.TrimSpace(strings.Join(slices.DeleteFunc(slices.Clone(q.Words), func(w string) bool {
					return asksGrowth(normalizeText(w))
				}), " "))
				id = t + "-" + period + "-figure-" + slug(level)
			}
			b.addReq(Requirement{
				ID: id, Issuer: t, Period: period, Aspect: "figures", Kind: KindFigure, Required: true,
				Need:       fmt.Sprintf("%s's %s for %s, as its %s %s reports it", b.cat.ShortName(t), level, period, tools.PeriodLabel(p.doc.FiscalYear), p.doc.Form),
				Completion: Condition{Kind: CondFact, Issuer: t, Period: period, Topic: level, Concepts: []string{key}},
			}, m)
			mt, known := tools.MetricByName(q.Metric)
			flow := known && !mt.Instant && strings.HasPrefix(key, tools.TablePrefix)
			node := b.addNode(tools.LookupFact, tools.LookupFactArgs{Ticker: t, Concept: key, Period: period, Flow: flow}, []string{id})
			if growth {
				gid := t + "-" + period + "-figure-" + slug(what)
				name := slugName(level)
				if b.addReq(Requirement{
					ID: gid, Issuer: t, Period: period, Aspect: "figures", Kind: KindCalculation, Required: true,
					Need: fmt.Sprintf("%s's %s for %s: its %s against the year before, as its %s %s prints them", b.cat.ShortName(t), what, period,
						level, tools.PeriodLabel(p.doc.FiscalYear), p.doc.Form),
					Completion: Condition{Kind: CondCalculation, Issuer: t, Period: period, Topic: what, Of: []string{id}},
				}, m) {
					b.addRowRate(t, period, key, name, gid, node)
					// The growth as the filing prints it beside the level.
					b.planPrintedAs(t, p, what, []string{strings.ToLower(level)}, level+" percent change", gid, m)
				}
				return gid
			}
			if asksShare(b.question) {
				// "Cloud services as a % of total revenue": the part
				// over the whole.
				b.planShareOf(t, p, "figures", q.Metric, strings.Join(q.Part, " "), looked{id, node, key}, m)
			}
			return id
		}
	}
	var groups [][]string
	for _, w := range q.Part {
		if strings.EqualFold(w, "and") {
			continue
		}
		g := []string{w}
		if strings.Contains(w, "-") {
			g = append(g, strings.ReplaceAll(w, "-", ""))
		}
		groups = append(groups, g)
	}
	// A part named at length ("server and network equipment useful
	// lives") is named by one of its rarer and one of its commoner words:
	// the sentence that states its amount need not repeat every one ("the
	// effect of this change in estimate ... server and network equipment
	// ... an increase in operating income of $2.7 billion").
	// A change the part is ("the membership fee hike") is named by the
	// sentence whatever else it names of the part.
	var events [][]string
	groups = slices.DeleteFunc(groups, func(g []string) bool {
		if changeNouns[strings.ToLower(g[0])] {
			events = append(events, g)
			return true
		}
		return false
	})
	if stats := b.cat.TextStats(); len(groups) > maxPartGroups && stats.Documents() > 0 {
		slices.SortStableFunc(groups, func(x, y []string) int { return cmp.Compare(stats.IDF(y[0]), stats.IDF(x[0])) })
		half := (len(groups) + 1) / 2
		groups = [][]string{slices.Concat(groups[:half]...), slices.Concat(groups[half:]...)}
	}
	groups = append(groups, events...)
	// A part the filing writes by its initials ("DCG" for Data Center
	// Group) is named by either.
	var partWords []string
	for _, w := range q.Part {
		if !strings.EqualFold(w, "and") {
			partWords = append(partWords, w)
		}
	}
	if ac := initialsOf(partWords); ac != "" && b.acronymInUse(ac, []string{p.doc.ID}) {
		groups = [][]string{{strings.Join(partWords, " "), ac}}
	}
	// The part is what the sentence states the amount of, not the reason
	// another figure moved ("revenue increased $14.7 billion ... driven by
	// Azure").
	var subject []string
	for _, t := range groups[0] {
		subject = append(subject, SubjectTerm+t)
	}
	// The metric in the question's word for it ("sales", "revenues" for
	// "revenue" too), not its other names: "employee ... sales" is not
	// "employee turnover".
	name := q.Name
	if !strings.Contains(name, " ") && len(name) > 4 {
		name = strings.TrimSuffix(name, "s")
	}
	// A part of an amount is stated by an amount, not by a rate ("DCG
	// revenue was up 9%" does not state DCG revenue); a part's growth
	// ("comparable sales growth") by any figure, in words of change:
	// "Comparable sales increased 14% during 2022".
	figure := FigureTerm
	if _, derived := tools.DerivedByName(q.Metric); !derived && !strings.Contains(q.Metric, "shares") && !asksShare(b.question) {
		// A ratio is stated by a rate; an amount by its level, not by
		// the change ("LinkedIn revenue increased $3.5 billion"). A
		// part's share asked ("what share of net revenue came from its
		// three largest customers") is stated by a rate: "accounted for
		// 39% of our net revenue".
		figure = LevelTerm
	}
	query := strings.Join(content, " ")
	if base, ok := growthName(name); ok {
		groups = append(groups, b.filingNames(base, q.Metric), ChangeWords, []string{FigureTerm})
	} else {
		names := b.filingNames(name, q.Metric)
		groups = append(groups, names, []string{figure})
		if names[0] != name {
			// The filings' name for the figure, where they do not use the
			// question's ("cash capital expenditures" for "cash capex").
			query = strings.Join(partWords, " ") + " " + strings.ToLower(names[0])
		}
	}
	groups = append(groups, subject)
	groups = b.withExclusion(groups)
	// A year read from a later filing's comparatives is stated there by a
	// sentence that names it ("Cash capital expenditures were $48.1
	// billion, and $77.7 billion in 2023 and 2024").
	from := period
	if p.next {
		from = tools.PeriodLabel(p.doc.FiscalYear)
		groups = append(groups, []string{strconv.Itoa(p.fy)})
	}
	b.addReq(Requirement{
		ID: id, Issuer: t, Period: period, Aspect: "figures", Kind: KindFigure, Required: true,
		Need: fmt.Sprintf("%s's %s for %s, stated in its %s %s (it is a part of %s; no figure the filing tags or tabulates is labelled so)",
			b.cat.ShortName(t), what, period, tools.PeriodLabel(p.doc.FiscalYear), p.doc.Form, q.Name),
		Completion: Condition{Kind: CondPassage, Issuer: t, Period: from, Topic: what, AllOf: groups},
	}, m)
	b.addNode(tools.SearchFilings, b.searchArgs(t, p, query, "", 8), []string{id})
	return id
}

// maxPartGroups is how many words of a part a sentence stating its figure
// must name each of; a part of more words is named by a rarer and a
// commoner of them.
const maxPartGroups = 3

// growthName returns the figure a name of its change names ("sales" for
// "sales growth", "revenue" for "revenue increase").
func growthName(name string) (string, bool) {
	f := strings.Fields(name)
	if len(f) < 2 {
		return "", false
	}
	switch f[len(f)-1] {
	case "growth", "increase", "increases", "decline", "declines", "decrease", "change", "changes":
		return strings.Join(f[:len(f)-1], " "), true
	}
	return "", false
}

// A question may assert how a figure moved ("why did Netflix's revenue
// decline in 2024?", "Intel's revenue fell in 2020, right?"). The
// assertion is a premise the filings must bear out: the plan computes the
// change from the figure of the year and of the year before, and the
// requirement is met only when the change has the sign the question gives.
// A premise the figures contradict leaves the run short of supported, and
// the answer shows the change as it was.

var (
	fallWords = regexp.MustCompile(`(?i)\b(declin(e|ed|es|ing)|drop(ped|s|ping)?|fell|fall(en|s|ing)?|decreas(e|ed|es|ing)|shr(ank|ink|inks|inking|unk)|slump(ed|s|ing)?|went down|gone down|go down|` +
		`collaps(e|ed|es|ing)|cut(s|ting)?|slash(ed|es|ing)?|plung(e|ed|es|ing)|plummet(ed|ing|s)?|tumbl(e|ed|es|ing)|s(ank|ink|inks|inking|unk)|crater(ed|s)?|tank(ed|ing)|nosedived?|dip(ped|s|ping)?|slid(e|es|ing)?|deteriorat(e|ed|es|ing)|weaken(ed|s|ing)?|soften(ed|s|ing)?|contract(ed|s|ing)|compress(ed|es|ing)|narrow(ed|s|ing)|slip(ped|s|ping)?|eas(e|ed|es|ing)|erod(e|ed|es|ing)|(tick|edg|inch)(ed|es|ing)? down)\b`)
	riseWords = regexp.MustCompile(`(?i)\b(r(ise|ose|isen|ises|ising)|gr(ew|ow|own|ows|owing)|increas(e|ed|es|ing)|jump(ed|s|ing)?|surg(e|ed|es|ing)|climb(ed|s|ing)?|soar(ed|s|ing)?|went up|gone up|go up|` +
		`spik(e|ed|es|ing)|rebound(ed|s|ing)?|hik(e|ed|es|ing)|le(apt|aped)|skyrocket(ed|s|ing)?|balloon(ed|s|ing)?|swelled|strengthen(ed|s|ing)?|expand(ed|s|ing)?|widen(ed|s|ing)?|accelerat(e|ed|es|ing|ion)|(tick|edg|inch)(ed|es|ing)? up)\b`)
	// steadyWords are the verbs of a figure ceasing to move or of a move
	// going on: "flattening out", "plateaued", "levelling off", "lasts".
	steadyWords = regexp.MustCompile(`(?i)\b(flatten(ed|s|ing)?|plateau(ed|s|ing)?|stabili[sz](e|ed|es|ing)|level(l)?(ed|ing)\s+off|peak(ed|s|ing)?|lasts?|lasting)\b`)
	growthNoun  = regexp.MustCompile(`(?i)\bgrowth\b`)
	// lowerFigure and higherFigure find a figure described by comparison
	// after an owner: "Alphabet's lower effective tax rate", "its higher
	// costs".
	lowerFigure  = regexp.MustCompile(`(?i)(?:'s|’s|\bits|\btheir)\s+(?:lower|weaker|smaller|reduced|shrinking|falling|declining)\b`)
	higherFigure = regexp.MustCompile(`(?i)(?:'s|’s|\bits|\btheir)\s+(?:higher|stronger|larger|bigger|rising|increased|growing)\b`)
	// statedRate finds a change the question states in numbers: "41%
	// total revenue growth", "grew 8%", "a 27% decline", "down 3.5
	// percent".
	statedRate = regexp.MustCompile(`(?i)(\d+(?:\.\d+)?)\s*(?:%|percent\b)\s+(?:[a-z&-]+\s+){0,3}?(?:growth|increase|decrease|decline|drop|rise|jump|gain|fall|contraction|expansion)\b|\b(?:grew|grow|grown|growing|rose|rise|risen|rising|increased?|decreased?|declined?|fell|fall(?:en)?|dropped|drop|jumped|gained|up|down)\s+(?:by\s+)?(?:about\s+|roughly\s+|around\s+|nearly\s+|almost\s+|~\s*)?(\d+(?:\.\d+)?)\s*(?:%|percent\b)`)
	// upOrDown asks which way a figure moved.
	upOrDown = regexp.MustCompile(`(?i)\b(up\s+or\s+down|down\s+or\s+up)\b`)
	// conditional words make a change a supposition, not a premise.
	supposing = regexp.MustCompile(`(?i)\b(if|would|will|could|might|expect\w*|forecast\w*|guid\w*|outlook)\b`)
)

// assertedSign returns the direction a question asserts for its figure: 1
// a rise, -1 a fall, 0 none or both.
func assertedSign(question string) int {
	// A sentence supposing or expecting ("Does management expect that
	// growth to continue?") asserts nothing; one beside it may ("Oracle's
	// support expenses jumped in FY2023.").
	var said []string
	for _, sentence := range sentenceEnd.Split(question, -1) {
		if !supposing.MatchString(sentence) {
			said = append(said, sentence)
		}
	}
	if len(said) == 0 {
		return 0
	}
	question = strings.Join(said, ". ")
	fall, rise := fallWords.MatchString(question), riseWords.MatchString(question)
	if fall && rise {
		// "Costco's membership fee income fell in FY22 after the fee
		// hike": a move named as a thing ("the fee hike", "a price
		// increase") is no move asserted of the figure.
		verbs := moveAsThing.ReplaceAllString(question, " ")
		fall, rise = fallWords.MatchString(verbs), riseWords.MatchString(verbs)
	}
	// "gaming rev FY23 up how much?", "how much was revenue down in
	// 2022": the move said by "up" or "down".
	for _, m := range movedUpDown.FindAllStringSubmatch(normalizeText(question), -1) {
		dir := cmp.Or(m[2], m[3])
		fall, rise = fall || dir == "down", rise || dir == "up"
	}
	for _, m := range howFarUpDown.FindAllStringSubmatch(normalizeText(question), -1) {
		fall, rise = fall || m[1] == "down", rise || m[1] == "up"
	}
	for _, m := range beUpDown.FindAllStringSubmatch(normalizeText(question), -1) {
		fall, rise = fall || m[1] == "down", rise || m[1] == "up"
	}
	if upOrDown.MatchString(question) {
		fall, rise = true, true // "was revenue up or down": asked, not asserted
	}
	// "What drove X's sales growth" presupposes the growth it asks the
	// cause of; "what was revenue growth" asks a figure of either sign.
	rise = rise || asksWhy(question) && growthNoun.MatchString(question)
	// "What explains Alphabet's lower effective tax rate": a cause asked
	// of a figure described as lower presupposes it fell.
	if asksWhy(question) {
		fall = fall || lowerFigure.MatchString(question)
		rise = rise || higherFigure.MatchString(question)
	}
	return signOf(fall, rise)
}

// moveAsThing matches a move named as a thing: a determiner, at most two
// words, then a noun of change ("the fee hike", "a price increase", "its
// 2022 decline").
var moveAsThing = regexp.MustCompile(`(?i)\b(?:the|a|an|this|that|its|their|after|before)\s+(?:[\w&'’-]+\s+){0,2}(?:hikes?|increases?|rises?|raises?|cuts?|reductions?|decreases?|declines?|drops?|falls?|surges?|jumps?|spikes?)\b`)

// signOf is the direction named by words of a fall and of a rise: -1, 1,
// or 0 for neither or both.
func signOf(fall, rise bool) int {
	switch {
	case fall && !rise:
		return -1
	case rise && !fall:
		return 1
	}
	return 0
}

// assertingSentence returns the first sentence of question that asserts a
// move (fallWords, riseWords), the whole question where none does.
func assertingSentence(question string) string {
	sentences := sentenceEnd.Split(question, -1)
	var asserting []string
	for _, s := range sentences {
		if fallWords.MatchString(s) || riseWords.MatchString(s) {
			asserting = append(asserting, s)
		}
	}
	if len(asserting) == 0 || len(sentences) == 1 {
		return question
	}
	return asserting[0] // a later one refers back ("how much of the drop")
}

// afterTheMove reports whether the figure named by phrase is named in the
// sentence asserting a move only after the move's verb, where another
// figure is named before it: "Why did Nvidia's gross margin fall ..., and
// how large were the inventory provisions behind the decline?" asserts
// the fall of the gross margin, not of the inventories.
func afterTheMove(question, phrase string) bool {
	s := normalizeText(assertingSentence(question))
	at := strings.Index(s, normalizeText(phrase))
	if at < 0 {
		return false
	}
	move := len(s)
	for _, re := range []*regexp.Regexp{fallWords, riseWords} {
		if loc := re.FindStringIndex(s); loc != nil && loc[0] < move {
			move = loc[0]
		}
	}
	return at > move && figureBefore(s[:move])
}

// beforeTheMovesClause reports whether the figure named by phrase is named
// only in a clause before the one asserting a move, where that clause
// names a figure of its own before the move's verb: "GMV and take rate,
// and why did net revenue fall so much less than GMV?" asserts the fall of
// net revenue, not of the take rate asked beside it.
func beforeTheMovesClause(question, phrase string) bool {
	s := normalizeText(assertingSentence(question))
	move := len(s)
	for _, re := range []*regexp.Regexp{fallWords, riseWords} {
		if loc := re.FindStringIndex(s); loc != nil && loc[0] < move {
			move = loc[0]
		}
	}
	if move == len(s) {
		return false
	}
	start := 0
	for _, loc := range clauseOpen.FindAllStringIndex(s[:move], -1) {
		start = loc[1]
	}
	at := strings.Index(s, normalizeText(phrase))
	return start > 0 && at >= 0 && at < start && !strings.Contains(s[start:], normalizeText(phrase)) && figureBefore(s[start:move])
}

// clauseOpen matches, in normalised text, where a clause opens: after a
// comma, a semicolon, a colon or a dash, or at "and" before a question
// word.
var clauseOpen = regexp.MustCompile(`[,;:]\s+|\s+-\s+|\band\s+(?:why|how|what)\b`)

// figureBefore reports whether normalised text names a figure of the
// catalogue or an aspect's figure: something a move may be asserted of.
func figureBefore(s string) bool {
	if len(FindFigures(s)) > 0 {
		return true
	}
	for _, a := range Lexicon {
		if len(a.Metrics) > 0 && anyTerm(s, a.Triggers) {
			return true
		}
	}
	return false
}

// namesCatalogMetric reports whether normalised text names a catalogue metric by
// its label or one of its aliases.
func namesCatalogMetric(text, metric string) bool {
	mt, ok := tools.MetricByName(metric)
	return ok && (termIn(text, normalizeTerm(mt.Label)) || anyTerm(text, mt.Aliases))
}

// sentences counts the sentences of a question that hold a word.
func sentences(question string) int {
	n := 0
	for _, s := range sentenceEnd.Split(question, -1) {
		if strings.TrimSpace(s) != "" {
			n++
		}
	}
	return n
}

// sentenceEnd ends a sentence of a question.
var sentenceEnd = regexp.MustCompile(`[?!]\s*|\.\s+`)

// percentages matches a percentage a question names.
var percentages = regexp.MustCompile(`(?i)\d(?:\.\d+)?\s*(?:%|percent\b)`)

// assertedRate returns the one rate of change a question states ("41%
// revenue growth", "sales fell 3.5%") as a signed fraction, the sign being
// the change the question asserts; false when it states none, or names
// another percentage beside it.
func assertedRate(question string, sign int) (decimal.Decimal, bool) {
	ms := statedRate.FindAllStringSubmatch(question, -1)
	if len(ms) != 1 || sign == 0 || len(percentages.FindAllString(question, 2)) != 1 {
		return decimal.Decimal{}, false
	}
	v, err := decimal.NewFromString(ms[0][1] + ms[0][2]) // one group matches
	if err != nil || !v.IsPositive() {
		return decimal.Decimal{}, false
	}
	v = v.Shift(-2)
	if sign < 0 {
		v = v.Neg()
	}
	return v, true
}

// premiseRatio returns the ratio a premise is about: the one figure the
// question names, when that is a ratio of reported figures ("why did the
// gross margin fall", "ETR dropped").
func (b *builder) premiseRatio() (tools.Derived, bool) {
	name := ""
	asserting := normalizeText(assertingSentence(b.question))
	figures := slices.DeleteFunc(slices.Clone(b.rt.Figures), func(f FigureAsk) bool {
		// A figure named after the move, or as the denominator of the
		// ratio that moved ("gross margin as a share of net sales
		// slipped"), is not what moved.
		return f.Phrase != "" && (afterTheMove(b.question, f.Phrase) || denominatorOf(asserting, normalizeText(f.Phrase)))
	})
	switch len(figures) {
	case 0:
		// A ratio an aspect plans ("gross margin"), named by its label
		// or an alias.
		norm := normalizeText(b.question)
		for _, d := range tools.DerivedMetrics {
			if d.Ratio && anyTerm(norm, append([]string{d.Label}, d.Aliases...)) {
				if name != "" {
					return tools.Derived{}, false
				}
				name = d.Name
			}
		}
	case 1:
		name = figures[0].Derived
	}
	if name == "" || strings.HasSuffix(name, "_growth") {
		return tools.Derived{}, false
	}
	d, ok := tools.DerivedByName(name)
	if ok && b.partOfRatio(append([]string{d.Label}, d.Aliases...)) {
		return tools.Derived{}, false
	}
	if !ok || !d.Ratio || slices.ContainsFunc(d.Inputs(), func(n string) bool { return strings.HasSuffix(n, "_prior") }) {
		return tools.Derived{}, false
	}
	if _, qualified := b.qualifiedFor(b.rt.Issuers[0], d.Inputs()[0]); qualified || len(b.cat.SegmentsIn(b.question, b.rt.Issuers[0])) > 0 {
		return tools.Derived{}, false // a part's ratio: its inputs are the part's
	}
	return d, true
}

// partOfRatio reports whether the question names a part's ratio: a word
// of its own just before the ratio's name ("products gross margin %"),
// which is not the issuer's name, a period or a word that narrows
// nothing.
func (b *builder) partOfRatio(names []string) bool {
	skip := issuerWordSet(b.cat, b.rt.Issuers)
	words := strings.Fields(strings.ToLower(b.question))
	for i := range words {
		for _, n := range names {
			nw := strings.Fields(strings.ToLower(n))
			if i+len(nw) > len(words) || i == 0 {
				continue
			}
			match := true
			for j, w := range nw {
				if strings.Trim(words[i+j], ",.?!;:()%") != w {
					match = false
					break
				}
			}
			if !match {
				continue
			}
			before := strings.Trim(words[i-1], ",.?!;:()\"'")
			if before == "" || strings.HasSuffix(before, "'s") || strings.HasSuffix(before, "’s") || strings.HasSuffix(before, "s'") ||
				questionStopwords[before] || skip[before] || strings.ContainsAny(before, "0123456789") || periodAcronyms[before] ||
				strings.HasSuffix(words[i-1], ":") || strings.HasSuffix(words[i-1], ",") ||
				lowerFigure.MatchString("'s "+before) || higherFigure.MatchString("'s "+before) {
				// "the lower effective tax rate": how it moved, not a part.
				return false
			}
			return true
		}
	}
	return false
}

// planRatioPremise plans the premise check of a ratio the question says
// rose or fell: the ratio for the filing's period less the ratio a year
// before, each from the figures the filing prints side by side.
func (b *builder) planRatioPremise(d tools.Derived, sign int) {
	t := b.rt.Issuers[0]
	inputs := d.Inputs()
	aspect := "figures"
	for _, n := range b.rt.Aspects {
		if a, ok := AspectByName(n); ok && slices.Contains(a.Metrics, inputs[0]) {
			aspect = n
			break
		}
	}
	prior := exprNames.ReplaceAllString(d.Expression, "${0}_prior")
	for _, p := range b.periodsOf(t) {
		if !p.found || p.next || (p.doc.Form != "10-K" && p.doc.Form != "10-Q") || !b.cat.KnowsFigures(p.doc.ID) {
			// A year read from a later report's comparatives is the base
			// a change is measured from ("rose in 2020 vs 2019"), and that
			// report prints no year before it beside it.
			continue
		}
		label := tools.PeriodLabel(p.fy)
		m := reqMeta{aspect: 0, issuer: 0}
		facts := map[string]tools.FactRef{}
		var of, deps []string
		ok := true
		for _, metric := range inputs {
			now, found := b.lookupInput(t, p, aspect, d, metric, label, nil, true, m)
			if !found {
				ok = false
				break
			}
			facts[metric] = tools.FactRef{Ticker: t, Concept: now.key, Period: label}
			facts[metric+"_prior"] = tools.FactRef{Ticker: t, Concept: now.key, Period: label, Prior: true}
			of, deps = appendNew(of, now.req), appendNew(deps, now.node)
		}
		if !ok {
			continue
		}
		moved := "rose"
		if sign < 0 {
			moved = "fell"
		}
		id := t + "-" + label + "-premise-" + d.Name
		if b.addReq(Requirement{
			ID: id, Issuer: t, Period: label, Aspect: aspect, Kind: KindCalculation, Required: true,
			Need: fmt.Sprintf("whether %s's %s %s over the year to the period of its %s %s, as the question says, computed from its reported figures and those a year before",
				b.cat.ShortName(t), d.Label, moved, label, p.doc.Form),
			Completion: Condition{Kind: CondCalculation, Issuer: t, Period: label, Topic: d.Label + " change", Of: of, Sign: sign},
		}, m) {
			b.addNode(tools.Calculate, tools.CalculateArgs{Expression: "(" + d.Expression + ") - (" + prior + ")", Facts: facts}, []string{id}, deps...)
		}
	}
}

// namesDefinedPart reports whether text writes a short form issuer t's
// filings define ("IOTG" for "Internet of Things Group") that is no name
// of the issuer itself: a part of its business.
func (b *builder) namesDefinedPart(t, text string) bool {
	own := issuerWordSet(b.cat, []string{t})
	for _, w := range strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '&' }) {
		if len(w) >= 2 && (strings.ToUpper(w) == w || strings.ToLower(w) == w) && !own[strings.ToLower(w)] && b.cat.longForm(t, w) != "" {
			return true
		}
	}
	return false
}

// assertedLoss finds the loss a question names ("what caused X to post an
// operating loss", "why did the company report a net loss"); its group
// names the line, operating or net. Whether the question takes the loss
// for granted is planLossPremise's to judge (lossUnasserted, and a
// question of why or of cause).
var assertedLoss = regexp.MustCompile(`(?i)\b(operating|net)\s+loss(?:es)?\b`)

// lossUnasserted matches a question that names a loss without presupposing
// it: "net income (loss)", "income or loss", "profit or loss", "if any".
var lossUnasserted = regexp.MustCompile(`(?i)\b(?:income|profit|earnings)\s*(?:\(\s*loss\s*\)|or\s+(?:a\s+)?(?:net\s+|operating\s+)?loss)|\bor\s+(?:a\s+)?(?:net\s+|operating\s+)?(?:profit|income)\b|\bif\s+any\b|\bwhether\b|\bdid\b[^?]*\b(?:post|report|record|have)\s+an?\s+(?:net\s+|operating\s+)?loss\s*\?`)

// assertedProfit matches a profit said to have been made ("turned an
// operating profit", "swung to a net profit", "became profitable"); its
// groups name the line, operating or net, where the question does.
var assertedProfit = regexp.MustCompile(`(?i)\b(?:turn(?:ed|s)?|swung|swings?|flip(?:ped|s)?|post(?:ed|s)?|return(?:ed|s)?|deliver(?:ed|s)?|eked|booked)\s+(?:to\s+)?(?:an?\s+)?(?:(operating|net)\s+)?profit\b|\b(?:turned|became|went|returned\s+to\s+being)\s+(operating(?:ly)?\s+)?profitable\b`)

// profitUnasserted matches a question that asks whether a profit was made
// rather than saying it was, its auxiliary opening the sentence or clause:
// "did Reality Labs turn a profit?", "whether" (not "why did Amazon swing
// to a net profit?", which takes the profit for granted).
var profitUnasserted = regexp.MustCompile(`(?i)\bwhether\b|\bif\s+any\b|(?:^|[.?!;:,—–]\s*|\s-\s)(?:did|does|has|have|had|is|was|will)\b[^?.!]*\b(?:turn|swing|flip|post|return|deliver|become|go)\b[^?.!]*\?`)

// planLossPremise plans the premise check of a question that takes a loss
// for granted ("what caused X to post an operating loss in 2022?"), or a
// profit ("Reality Labs finally turned an operating profit in 2024"): the
// figure of that line for each issuer and period, which must be negative
// (a profit: positive), as the question says. A figure of the other sign
// contradicts the question, and the answer says so instead of explaining a
// loss (a profit) that was not made.
func (b *builder) planLossPremise() {
	sign, line := -1, ""
	if m := assertedLoss.FindStringSubmatch(b.question); m != nil && !lossUnasserted.MatchString(b.question) {
		norm := normalizeText(b.question)
		if !asksWhy(b.question) && !causalVerbs.MatchString(norm) && !reverseCausal.MatchString(norm) {
			return // "what was the net loss" asks the figure, whatever its sign
		}
		line = m[1]
	} else if m := assertedProfit.FindStringSubmatch(b.question); m != nil && !profitUnasserted.MatchString(b.question) {
		// "Reality Labs finally turned an operating profit in 2024":
		// a profit said to have been made, whatever else is asked.
		sign, line = 1, m[1]+m[2]
		if line == "" && len(b.rt.Issuers) == 1 && len(b.cat.SegmentsIn(b.question, b.rt.Issuers[0])) > 0 {
			line = "operating" // a part's profit is its operating income
		}
	} else {
		return
	}
	if b.rt.Outlook {
		return
	}
	metric := "net_income"
	if strings.EqualFold(strings.TrimSpace(line), "operating") {
		metric = "operating_income"
	}
	mt, ok := tools.MetricByName(metric)
	if !ok {
		return
	}
	for ii, t := range b.rt.Issuers {
		for _, p := range b.periodsOf(t) {
			if !p.found || !b.cat.KnowsFigures(p.doc.ID) {
				continue
			}
			label := tools.PeriodLabel(p.fy)
			meta := reqMeta{aspect: 0, issuer: ii}
			// A part's loss ("why did the North America segment swing to an
			// operating loss") is the part's figure's, never the company's.
			segs := b.cat.SegmentsIn(b.question, t)
			if _, qualified := b.qualifiedPart(t, metric); qualified {
				continue
			}
			now, found := b.lookupFigure(t, p, "figures", metric, label, segs, true, meta)
			if !found || len(segs) > 0 && !strings.Contains(now.key, "[") {
				continue
			}
			what := mt.Label
			for _, sg := range segs {
				what = sg.Name + " " + what
			}
			kind := "loss"
			if sign > 0 {
				kind = "profit"
			}
			id := t + "-" + label + "-premise-" + kind + "-" + metric
			if len(segs) > 0 {
				id += "-" + slug(what)
			}
			if b.addReq(Requirement{
				ID: id, Issuer: t, Period: label, Aspect: "figures", Kind: KindCalculation, Required: true,
				Need: fmt.Sprintf("whether %s's %s for %s was a %s, as the question says, from its reported figure",
					b.cat.ShortName(t), what, label, kind),
				Completion: Condition{Kind: CondCalculation, Issuer: t, Period: label, Topic: what, Of: []string{now.req}, Sign: sign},
			}, meta) {
				b.addNode(tools.Calculate, tools.CalculateArgs{Expression: metric, Facts: map[string]tools.FactRef{metric: {Ticker: t, Concept: now.key, Period: label}}},
					[]string{id}, now.node)
			}
		}
	}
}

// ratioPremise returns the ratio whose move a one-issuer question asserts
// ("why did the gross margin percentage fall") and the move's sign.
func (b *builder) ratioPremise() (tools.Derived, int, bool) {
	sign := assertedSign(b.question)
	if sign == 0 || len(b.rt.Issuers) != 1 {
		return tools.Derived{}, 0, false
	}
	d, ok := b.premiseRatio()
	return d, sign, ok
}

// exprNames matches a name in a derived figure's expression.
var exprNames = regexp.MustCompile(`[a-z_][a-z0-9_]*`)

// ratioOfBefore matches, at the end of normalised text, the words that
// make the figure after them a ratio's denominator: "as a share of", "%
// of", "divided by", "relative to".
var ratioOfBefore = regexp.MustCompile(`(?:\b(?:` + shareNouns + `)\s+of|%\s*of|\bdivided\s+by|\brelative\s+to|\bover)\s*$`)

// denominatorOf reports whether, in the normalised sentence, the figure
// phrase is written only as a ratio's denominator (ratioOfBefore).
func denominatorOf(sentence, phrase string) bool {
	found := false
	for from := 0; ; {
		i := strings.Index(sentence[from:], phrase)
		if i < 0 {
			return found
		}
		if !ratioOfBefore.MatchString(sentence[:from+i]) {
			return false
		}
		found = true
		from += i + len(phrase)
	}
}

// planPremises plans the premise check of a one-issuer question that names
// one reported figure, or a part of one ("iPhone sales"), and asserts its
// change over the period of a filing: an annual report's year against the
// year before, a quarterly report's quarter against the same quarter a year
// before, as the filing shows them side by side.
func (b *builder) planPremises() {
	sign := assertedSign(b.question)
	if sign == 0 || len(b.rt.Issuers) != 1 {
		return
	}
	var metrics []string
	if d, _, ok := b.ratioPremise(); ok {
		b.planRatioPremise(d, sign)
		return
	}
	asserting := normalizeText(assertingSentence(b.question))
	for _, f := range b.rt.Figures {
		if f.Phrase != "" && (!strings.Contains(asserting, normalizeText(f.Phrase)) || afterTheMove(b.question, f.Phrase) || beforeTheMovesClause(b.question, f.Phrase)) {
			// A figure named in another sentence ("... Does management
			// expect that expense growth to continue?"), or after the
			// move asserted of another, is not the one the move is
			// asserted of.
			continue
		}
		if f.Phrase != "" && denominatorOf(asserting, normalizeText(f.Phrase)) {
			// "Gross margin as a share of net sales slipped": the move is
			// the ratio's, whose denominator net sales is.
			return
		}
		if base, ok := strings.CutSuffix(f.Derived, "_growth"); ok {
			// A growth rate's sign is its figure's change: "what drove
			// Greater China sales growth" presupposes the sales rose.
			if _, known := tools.MetricByName(base); known {
				metrics = appendNew(metrics, base)
				continue
			}
		}
		if f.Derived != "" {
			// "Why did the gross margin percentage fall": a ratio's
			// direction is not its inputs'; no premise on revenue.
			return
		}
		if f.Metric != "" {
			metrics = appendNew(metrics, f.Metric)
		}
	}
	if len(metrics) == 0 {
		// "Why did revenue decline": the figure of the aspect asked, where
		// the aspect is one figure (not margins, made of two).
		for _, n := range b.rt.Aspects {
			if a, ok := AspectByName(n); ok && len(a.Metrics) == 1 && (sentences(b.question) == 1 || anyTerm(asserting, a.Triggers) || namesCatalogMetric(asserting, a.Metrics[0])) {
				metrics = appendNew(metrics, a.Metrics[0])
			}
		}
	}
	if len(metrics) == 0 {
		b.planNamedPremise(sign)
		return
	}
	if len(metrics) != 1 {
		return
	}
	metric := metrics[0]
	mt, ok := tools.MetricByName(metric)
	if !ok {
		return
	}
	t := b.rt.Issuers[0]
	part, qualified := b.qualifiedFor(t, metric)
	aspect := "figures"
	for _, n := range b.rt.Aspects {
		if a, ok := AspectByName(n); ok && slices.Contains(a.Metrics, metric) {
			aspect = n
			break
		}
	}
	// The part whose move the question asserts is named in the sentence
	// asserting it ("Why did revenue collapse? How much came from
	// Gaming?" asserts the company's revenue fell, not Gaming's).
	segs := b.cat.SegmentsIn(assertingSentence(b.question), t)
	if all := b.cat.SegmentsIn(b.question, t); len(segs) == 0 && len(all) == 1 && ownerPronoun.MatchString(assertingSentence(b.question)) {
		// "So, the cloud segment. How much did its operating profit
		// grow?": the one part named before, which the pronoun points
		// back to.
		segs = all
	}
	what := mt.Label
	for _, s := range segs {
		what = s.Name + " " + what
	}
	if qualified {
		what = part.What()
	}
	if len(segs) == 0 && !qualified && b.namesDefinedPart(t, assertingSentence(b.question)) {
		// "Intel IOTG revenue fell 21%": the move is the part's, which
		// the filing defines by the short form; the company's figure does
		// not bear it out or refute it.
		return
	}
	spanEnd := movedOverSpan(b.question)
	for _, p := range b.periodsOf(t) {
		quarterly := p.doc.Form == "10-Q"
		if !p.found || (p.doc.Form != "10-K" && !quarterly) || !b.cat.KnowsFigures(p.doc.ID) {
			continue
		}
		if spanEnd > 0 && p.fy != spanEnd {
			// "grow between the end of fiscal 2021 and the end of fiscal
			// 2022": the move asserted is the span's, the later year's
			// over the one before, not the earlier year's own.
			continue
		}
		label, priorLabel := tools.PeriodLabel(p.fy), tools.PeriodLabel(p.fy-1)
		m := reqMeta{aspect: 0, issuer: 0}
		var now looked
		if len(segs) > 0 && !qualified && !b.cat.resolvesPart(p.doc, mt, segs, b.question) {
			// The filing prints no such figure for the part: its premise
			// is not the figures' to bear out.
			continue
		}
		if qualified {
			if now, ok = b.partFigure(t, p, part, m); !ok {
				continue
			}
		} else if now, ok = b.lookupFigure(t, p, aspect, metric, label, segs, true, m); !ok {
			continue
		}
		facts := map[string]tools.FactRef{metric: {Ticker: t, Concept: now.key, Period: label}}
		of, deps := []string{now.req}, []string{now.node}
		span := fmt.Sprintf("from %s to %s", priorLabel, label)
		if b.cat.isChangeRate(p.doc.ID, now.key) {
			// A row of rates ("comparable sales increase 6.4%") is the
			// change itself: its sign is the move, not its own change.
			id := t + "-" + label + "-premise-" + metric + "-rate"
			moved := "a rise"
			if sign < 0 {
				moved = "a fall"
			}
			if b.addReq(Requirement{
				ID: id, Issuer: t, Period: label, Aspect: aspect, Kind: KindCalculation, Required: true,
				Need: fmt.Sprintf("whether %s's %s for %s shows %s, as the question says, from the rate its %s %s prints",
					b.cat.ShortName(t), what, label, moved, tools.PeriodLabel(p.doc.FiscalYear), p.doc.Form),
				Completion: Condition{Kind: CondCalculation, Issuer: t, Period: label, Topic: what, Of: of, Sign: sign},
			}, m) {
				b.addNode(tools.Calculate, tools.CalculateArgs{Expression: metric, Facts: facts}, []string{id}, deps...)
			}
			continue
		}
		if quarterly || qualified {
			// The same filing prints the period a year before beside
			// the period's own: a 10-Q's quarter has no fiscal-year
			// label of its own to look it up by, and a part's row is
			// the same row's other column.
			facts[metric+"_prior"] = tools.FactRef{Ticker: t, Concept: now.key, Period: label, Prior: true}
			span = fmt.Sprintf("over the year to the period of its %s %s", label, p.doc.Form)
		} else {
			prior, ok := b.lookupFigure(t, p, aspect, metric, priorLabel, segs, false, m)
			if !ok {
				continue
			}
			facts[metric+"_prior"] = tools.FactRef{Ticker: t, Concept: prior.key, Period: priorLabel}
			of, deps = append(of, prior.req), append(deps, prior.node)
		}
		moved := "rose"
		if sign < 0 {
			moved = "fell"
		}
		id := t + "-" + label + "-premise-" + metric
		if qualified {
			id += "-" + slug(what)
		}
		cond := Condition{Kind: CondCalculation, Issuer: t, Period: label, Topic: what + " change", Of: of, Sign: sign}
		expr := metric + " - " + metric + "_prior"
		if rate, ok := assertedRate(b.question, sign); ok {
			// "What explains NVIDIA's 41% revenue growth": the rate is
			// part of the premise, and the figures must bear it out too.
			cond.Rate, expr = rate.String(), "("+expr+") / "+metric+"_prior"
			moved += " " + rate.Abs().Shift(2).String() + "%"
		}
		b.addReq(Requirement{
			ID: id, Issuer: t, Period: label, Aspect: aspect, Kind: KindCalculation, Required: true,
			Need: fmt.Sprintf("whether %s's %s %s %s, as the question says, computed as the change in its reported figures",
				b.cat.ShortName(t), what, moved, span),
			Completion: cond,
		}, m)
		b.addNode(tools.Calculate, tools.CalculateArgs{Expression: expr, Facts: facts}, []string{id}, deps...)
		partAndWhole := len(segs) > 0 && !qualified && wholeCompared.MatchString(b.question)
		if partAndWhole {
			// "Did the cloud segment grow faster than the company as a
			// whole?": the whole's growth over the year too, computed
			// the same way, to set beside the part's.
			if whole, ok := b.lookupFigure(t, p, aspect, metric, label, nil, true, m); ok {
				if i, ok := b.reqIdx[whole.req]; ok {
					b.planGrowthOverPrior(b.g.Requirements[i])
				}
			}
		}
		if cond.Rate == "" && (moveSizeAsked.MatchString(b.question) || partAndWhole && growthRateAsked.MatchString(b.question)) {
			// "sales dropped — by how much?", "did the segment grow
			// faster than the company? both growth rates": the move as a
			// rate too, beside the amount.
			rid := id + "-rate"
			if b.addReq(Requirement{
				ID: rid, Issuer: t, Period: label, Aspect: aspect, Kind: KindCalculation, Required: false,
				Need:       fmt.Sprintf("how much %s's %s %s %s, as a rate of the figure before", b.cat.ShortName(t), what, moved, span),
				Completion: Condition{Kind: CondCalculation, Issuer: t, Period: label, Topic: what + " growth", Of: of},
			}, m) {
				b.addNode(tools.Calculate, tools.CalculateArgs{Expression: "(" + expr + ") / " + metric + "_prior", Facts: facts}, []string{rid}, deps...)
			}
		}
		// Where the figures contradict the question, the filing's own
		// sentence on how the figure moved says so in its words ("In
		// 2020, revenue was $77.9 billion, up $5.9 billion").
		words := appendNew([]string{what}, mt.Aliases...)
		if qualified {
			words = []string{strings.Join(part.Part, " ")}
		}
		sid := id + "-statement"
		if b.addReq(Requirement{
			ID: sid, Issuer: t, Period: label, Aspect: aspect, Kind: KindFigure, Required: false,
			Need:       fmt.Sprintf("the %s %s's own words on how %s's %s changed", label, p.doc.Form, b.cat.ShortName(t), what),
			Completion: Condition{Kind: CondPassage, Issuer: t, Period: label, Topic: what, AllOf: [][]string{words, ChangeWords, {FigureTerm}}},
		}, m) {
			query := fmt.Sprintf("in %d %s was up down from %d", p.fy, what, p.fy-1)
			if quarterly {
				query = what + " increased decreased compared to the same quarter"
			}
			b.addNode(tools.SearchFilings, b.searchArgs(t, p, query, "", 10), []string{sid})
		}
	}
}

// moveSizeAsked matches a question asking the size of a move it asserts:
// "by how much", "how much did it drop", "how big was the decline".
// wholeCompared matches a part compared with its whole: "than the company
// as a whole", "than the overall business", "than total revenue".
var wholeCompared = regexp.MustCompile(`(?i)\bthan\s+(?:the\s+)?(?:(?:company|business|firm)\s+(?:as\s+a\s+whole|overall)|(?:overall|whole|entire|total)\s+(?:company|business|firm|revenues?|sales)|(?:company|business)-wide|the\s+rest\s+of\s+the\s+(?:company|business))\b`)

// growthRateAsked matches a question asking a move as a rate: "growth
// rates", "in percent", "what % did it grow".
var growthRateAsked = regexp.MustCompile(`(?i)\bgrowth\s+rates?\b|\brates?\s+of\s+(?:growth|increase|decline|decrease)\b|\bin\s+(?:percent(?:age)?(?:\s+terms)?|%)|\bpercent(?:age)?\s+(?:growth|increase|decline|decrease|change)\b|\bwhat\s+(?:%|percent(?:age)?)\b`)

var moveSizeAsked = regexp.MustCompile(`(?i)\bby\s+how\s+much\b|\bhow\s+much\s+(?:did|has|have|had)\b[^?.;]*\b(?:drop|fall|fell|decline|shrink|rise|grow|increase|decrease|slip|jump|climb)|\bhow\s+(?:big|large|steep|sharp|much)\s+(?:was|were|is)\s+(?:the|that|this|its)\s+(?:drop|fall|decline|decrease|increase|rise|jump|slide|growth)\b`)

// planNamedPremise plans, for a move a question asserts of a figure no
// catalogue metric is ("Why did Netflix's global paid memberships decline
// in 2022?"), the check of that move on the row the filing prints under
// the figure's name ("Paid memberships at end of period"): the row against
// its own column of the year before, with the sign asserted. The name is
// the words before the verb of the move in the asserting sentence, the
// longest run of them ending there that labels one of the filing's rows.
func (b *builder) planNamedPremise(sign int) {
	if len(b.rt.Issuers) != 1 {
		return
	}
	words := premiseWords(assertingSentence(b.question), issuerWordSet(b.cat, b.rt.Issuers))
	if len(words) == 0 {
		return
	}
	t := b.rt.Issuers[0]
	for _, p := range b.periodsOf(t) {
		if !p.found || p.doc.Form != "10-K" || !b.cat.KnowsFigures(p.doc.ID) {
			continue
		}
		var key string
		var named []string
		for i := range words {
			// Two words at least, or one the filings seldom use: a lone
			// common word ("sales") labels rows of many tables.
			if len(words)-i < 2 && b.cat.TextStats().IDF(words[i]) < rareWordIDF {
				break
			}
			if k, ok := b.cat.ResolvePhrase(p.doc.ID, words[i:], ""); ok {
				key, named = k, words[i:]
				break
			}
		}
		if key == "" {
			continue
		}
		what := strings.Join(named, " ")
		label := tools.PeriodLabel(p.fy)
		m := reqMeta{aspect: 0, issuer: 0}
		id := t + "-" + label + "-figure-" + slug(what)
		b.addReq(Requirement{
			ID: id, Issuer: t, Period: label, Aspect: "figures", Kind: KindFigure, Required: true,
			Need:       fmt.Sprintf("%s's %s for %s, as its %s %s reports it", b.cat.ShortName(t), what, label, label, p.doc.Form),
			Completion: Condition{Kind: CondFact, Issuer: t, Period: label, Topic: what, Concepts: []string{key}},
		}, m)
		node := b.addNode(tools.LookupFact, tools.LookupFactArgs{Ticker: t, Concept: key, Period: label}, []string{id})
		b.planRowPremise(t, label, p.doc.Form, m, what, key, id, node, sign)
	}
}

// planRowPremise plans the premise that issuer t's figure what, the row
// key of its period's report (form), rose (sign 1) or fell (-1) over the
// year, as the question says: required, and checked by the row's rate of
// change against the year before's, which the report prints beside it.
// The rate, as a row printed in parentheses ("Interest expense (3,505)
// (2,755)") grows as it grows more negative, which the difference does
// not say. levelID and levelNode are the row's own requirement and lookup.
func (b *builder) planRowPremise(t, period, form string, m reqMeta, what, key, levelID, levelNode string, sign int) {
	moved := "rose"
	if sign < 0 {
		moved = "fell"
	}
	name := slugName(what)
	pid := t + "-" + period + "-premise-" + slug(what)
	if b.addReq(Requirement{
		ID: pid, Issuer: t, Period: period, Aspect: "figures", Kind: KindCalculation, Required: true,
		Need: fmt.Sprintf("whether %s's %s %s over the year to %s, as the question says, computed from the row its %s %s prints",
			b.cat.ShortName(t), what, moved, period, period, form),
		Completion: Condition{Kind: CondCalculation, Issuer: t, Period: period, Topic: what + " growth", Of: []string{levelID}, Sign: sign},
	}, m) {
		b.addRowRate(t, period, key, name, pid, levelNode)
	}
}

// addRowRate adds the calculation serving requirement reqID of the rate
// of change of issuer t's figure key for period against the year before
// (named name in the expression), after node after, which looks it up.
func (b *builder) addRowRate(t, period, key, name, reqID, after string) {
	b.addNode(tools.Calculate, tools.CalculateArgs{
		Expression: fmt.Sprintf("(%s - %s_prior) / %s_prior", name, name, name),
		Facts: map[string]tools.FactRef{
			name:            {Ticker: t, Concept: key, Period: period},
			name + "_prior": {Ticker: t, Concept: key, Period: period, Prior: true},
		},
	}, []string{reqID}, after)
}

// rareWordIDF is the inverse document frequency above which one word
// alone may name a filing's row.
const rareWordIDF = 2.0

// premiseWords returns the words of an asserting sentence just before its
// verb of a move ("global paid memberships" of "Why did Netflix's global
// paid memberships decline in 2022"), lower case, up to the question's
// asking words, an issuer's name or other punctuation; nil when no verb of
// a move is found.
func premiseWords(sentence string, issuer map[string]bool) []string {
	loc := fallWords.FindStringIndex(sentence)
	if r := riseWords.FindStringIndex(sentence); r != nil && (loc == nil || r[0] < loc[0]) {
		loc = r
	}
	if loc == nil {
		return nil
	}
	fields := strings.Fields(sentence[:loc[0]])
	var out []string
	for i := len(fields) - 1; i >= 0 && len(out) < 7; i-- {
		w := strings.ToLower(fields[i])
		trimmed := strings.Trim(w, ",;:()\"'")
		if trimmed != w && len(out) > 0 {
			break // punctuation ends the name
		}
		w = strings.TrimSuffix(strings.TrimSuffix(trimmed, "'s"), "’s")
		if (w == "and" || w == "&") && len(out) > 0 {
			// "cloud services and license support expenses": one name.
			out = append([]string{"and"}, out...)
			continue
		}
		if w == "" || issuer[w] || questionStopwords[w] || askingWords[w] || strings.ContainsAny(w, "0123456789") {
			break
		}
		out = append([]string{w}, out...)
	}
	for len(out) > 0 && out[0] == "and" {
		out = out[1:]
	}
	return out
}

// partFigure returns the fact requirement and lookup node of the part q
// of a figure for period p, planning them when the plan holds none: the
// requirement of the plan's lookup of the row or member the part names.
// It is false when the filing tags or tabulates no figure of the part.
func (b *builder) partFigure(t string, p filingPeriod, q qualifiedFigure, m reqMeta) (looked, bool) {
	var content []string
	for _, w := range q.Words {
		if !strings.EqualFold(w, "and") && !strings.EqualFold(w, "from") {
			content = append(content, w)
		}
	}
	key, ok := b.partKey(t, p.doc.ID, q, content)
	if !ok {
		return looked{}, false
	}
	label := tools.PeriodLabel(p.fy)
	find := func() (looked, bool) {
		for _, n := range b.g.Nodes {
			var a tools.LookupFactArgs
			if n.Tool != tools.LookupFact || json.Unmarshal(n.Args, &a) != nil || a.Concept != key || a.Period != label {
				continue
			}
			for _, id := range n.Serves {
				if i, ok := b.reqIdx[id]; ok && b.g.Requirements[i].Completion.Kind == CondFact {
					return looked{req: id, node: n.ID, key: key}, true
				}
			}
		}
		return looked{}, false
	}
	if l, ok := find(); ok {
		return l, true
	}
	b.planQualifiedFigure(t, p, q, m)
	return find()
}

// partKey returns the key of the figure of part q a filing reports: the
// fact whose concept or row label holds all of content (the part's words
// and the figure's), or else the row printed under the part's own name
// (Catalog.ResolvePartRow).
func (b *builder) partKey(t, documentID string, q qualifiedFigure, content []string) (string, bool) {
	if key, ok := b.cat.ResolvePhrase(documentID, content, ""); ok {
		return key, true
	}
	if key, ok := b.cat.ResolvePartRow(documentID, q.Part, strings.Fields(q.Name)); ok {
		return key, true
	}
	mt, ok := tools.MetricByName(q.Metric)
	if !ok {
		return "", false
	}
	// "What percentage of Apple's revenue came from services": the part
	// is a part of the business, named as the question would name its
	// figure ("services revenue").
	if segs := b.cat.SegmentsIn(strings.Join(q.Part, " ")+" "+q.Name, t); len(segs) == 1 && strings.EqualFold(segs[0].Name, strings.Join(q.Part, " ")) {
		for _, mem := range segs[0].Members {
			if key, ok := b.cat.ResolveMetric(documentID, mt, mem, ""); ok {
				return key, true
			}
		}
	}
	if whole, ok := b.cat.ResolveMetric(documentID, mt, "", ""); ok {
		if key, ok := b.cat.rowAbove(documentID, whole, q.Part); ok {
			return key, true
		}
		return b.cat.partRow(documentID, whole, q.Part)
	}
	return "", false
}

// rowsAbove is how many rows above a table's total row its parts are looked
// for.
const rowsAbove = 8

// rowAbove returns the key of a table row labelled part, word for word
// (forms aside), among the rows just above the row whole in a converted
// filing's table: "Remodels 3,278" above "Total capital expenditures
// 13,106" is the part of capital expenditures that went to remodels. A
// one-word part is found so only where it stands in the whole's own table,
// not anywhere in the filing ("International" is a row of many tables).
func (c *Catalog) rowAbove(documentID, whole string, part []string) (string, bool) {
	want := stems(slices.DeleteFunc(slices.Clone(part), isAnd))
	if len(want) == 0 {
		return "", false
	}
	entries := c.figures[documentID]
	at := slices.IndexFunc(entries, func(e FigureEntry) bool { return e.Key == whole && e.Table })
	if at < 0 {
		return "", false
	}
	for k := at - 1; k >= max(0, at-rowsAbove); k-- {
		e := entries[k]
		if !e.Table || e.Member != "" {
			return "", false // a tagged figure or a part's row: no row of this table
		}
		if slices.Equal(stems(slices.DeleteFunc(strings.Fields(normLabel(e.Label)), isAnd)), want) {
			return e.Key, true
		}
	}
	return "", false
}

// partRow returns the key of a table row labelled part, word for word
// (forms aside), that is a part of the figure whole (FigureEntry.PartOf):
// "LinkedIn 13,816" of a table whose rows add up to the revenue.
func (c *Catalog) partRow(documentID, whole string, part []string) (string, bool) {
	want := stems(slices.DeleteFunc(slices.Clone(part), isAnd))
	if len(want) == 0 {
		return "", false
	}
	for _, e := range c.figures[documentID] {
		if e.Table && e.Member == "" && slices.Contains(e.PartOf, whole) &&
			slices.Equal(stems(slices.DeleteFunc(strings.Fields(normLabel(e.Label)), isAnd)), want) {
			return e.Key, true
		}
	}
	return "", false
}

// filingNames returns the words a sentence names a figure by: the
// question's own name for it, unless no filing of the corpus writes that
// name ("top-line", analysts' word for revenue), in which case the names
// the catalogue gives the metric ("revenue", "net sales").
func (b *builder) filingNames(name, metric string) []string {
	if b.cat.stats.Documents() == 0 {
		return []string{name}
	}
	mt, ok := tools.MetricByName(metric)
	for _, w := range strings.Fields(name) {
		if b.cat.stats.DocumentFrequency(w) > 0 {
			same := func(a string) bool { return strings.EqualFold(a, name) }
			if ok && (slices.ContainsFunc(append([]string{mt.Label}, mt.Aliases...), same) ||
				strings.Contains(name, " ") && slices.ContainsFunc(metricNames([]string{metric})[metric], same)) {
				// One of the figure's own names ("sales" for revenue,
				// which Microsoft states as "Azure and other cloud
				// services revenue grew 45%"), or an analyst's name of
				// several words the filings use each of ("top line"):
				// the figure's other names too, the question's first. A
				// word a figure's aspect is only triggered by
				// ("turnover") keeps its own sense.
				return append([]string{name}, slices.DeleteFunc(append([]string{mt.Label}, mt.Aliases...), same)...)
			}
			return []string{name}
		}
	}
	if !ok {
		if d, found := tools.DerivedByName(metric); found && len(d.Inputs()) > 0 {
			mt, ok = tools.MetricByName(d.Inputs()[0])
		}
	}
	if !ok {
		return []string{name}
	}
	return append([]string{mt.Label}, mt.Aliases...)
}

// Direction returns the way s says something moves: 1 up (riseWords,
// "growth"), -1 down (fallWords), 0 neither or both. "we continue to
// expect our RL operating losses to increase in 2025" says up.
func Direction(s string) int {
	return signOf(fallWords.MatchString(s), riseWords.MatchString(s) || growthNoun.MatchString(s))
}

// ExpectedDirection returns the way a question asks whether something is
// expected to move (Direction of its sentences that ask what is expected:
// "Does Meta expect Reality Labs losses to keep growing?" asks up); 0 when
// they name no one way ("will margin pressure persist?").
func ExpectedDirection(question string) int {
	var asking []string
	for _, s := range sentenceEnd.Split(question, -1) {
		if expecting.MatchString(s) {
			asking = append(asking, s)
		}
	}
	if len(asking) == 0 {
		return 0
	}
	return Direction(strings.Join(asking, " "))
}

// expecting matches a question's words for what is expected ahead.
var expecting = regexp.MustCompile(`(?i)\b(expect\w*|anticipat\w*|forecast\w*|outlook|guid\w*|persist\w*|continu\w*|keep|sustain\w*|going forward|next year|into (?:fy|fiscal\s*)?\d{2,4})\b`)

// shortens reports whether words write name word for word, each word the
// name's or its start, and one of them shortened: "op margin" shortens
// "operating margin", "free cash flow" does not shorten itself.
func shortens(words, name []string) bool {
	if len(words) != len(name) {
		return false
	}
	short := false
	for i, w := range words {
		if !strings.HasPrefix(name[i], w) || len(w) < 2 {
			return false
		}
		short = short || len(w) < len(name[i])
	}
	return short
}

// labelsRow reports whether one of issuers' filings labels a figure by
// words, word for word.
func labelsRow(cat *Catalog, issuers []string, words []string) bool {
	for _, t := range issuers {
		for _, d := range cat.filings[t] {
			if _, ok := cat.labelKey(d.ID, words, false); ok {
				return true
			}
		}
	}
	return false
}

// printedBefore reports whether one of issuers' filings prints word right
// before one of metric's names (its catalogue names, and the names the
// question's reading gives it).
func printedBefore(cat *Catalog, issuers []string, word, metric string, names []string) bool {
	stats := cat.TextStats()
	if m, ok := tools.MetricByName(metric); ok {
		names = append(slices.Clone(names), m.Aliases...)
	}
	return slices.ContainsFunc(issuers, func(t string) bool { return stats.PrintsBefore(t, word, names) })
}

// ownerPronoun matches a pronoun naming whose figure a sentence asks.
var ownerPronoun = regexp.MustCompile(`(?i)\b(?:its|their)\b`)

// spanYears matches a move named by the two years it spans: "between the
// end of fiscal 2021 and the end of fiscal 2022", "from FY21 to FY22".
var spanYears = regexp.MustCompile(`(?i)\b(?:between|from)\s+(?:the\s+)?(?:(?:end|close)\s+of\s+)?(?:fiscal\s+(?:year\s+)?|fy\s*|calendar\s+)?'?(\d{4}|\d{2})\b.{0,30}?\b(?:and|to|through|until|till)\s+(?:the\s+)?(?:(?:end|close)\s+of\s+)?(?:fiscal\s+(?:year\s+)?|fy\s*|calendar\s+)?'?(\d{4}|\d{2})\b`)

// movedOverSpan returns the later year of the two consecutive years a
// question names a move between ("grew between fiscal 2021 and fiscal
// 2022"); 0 when it names no such span.
func movedOverSpan(question string) int {
	m := spanYears.FindStringSubmatch(question)
	if m == nil {
		return 0
	}
	from, to := fullYear(m[1]), fullYear(m[2])
	if to != from+1 {
		return 0
	}
	return to
}
