package planner

import (
	"cmp"
	"fmt"
	"regexp"
	"strings"

	"github.com/ledgerline/research/tools"
)

// A question may define the figure it asks by arithmetic on two figures
// the filings print: "Alphabet net cash at end of 2024 - cash, equivalents
// & marketable securities minus long-term debt?". Each operand is read as
// the filing names it (a catalogue figure, or a row whose label holds the
// operand's words) and the result is computed from the two, so the answer
// shows the figure asked, its formula and both inputs, cited.

// formulaAsked matches a definition by arithmetic after a dash, a colon,
// an opening parenthesis or words that define: group 1 is the first
// operand, group 2 the operator, group 3 the second operand.
var formulaAsked = regexp.MustCompile(`(?i)(?:\s[-–—]\s|:\s|\(|\b(?:i\.e\.,?|defined\s+as|calculated\s+as|computed\s+as|meaning)\s)\s*([a-z][^?();:]{1,80}?)\s+(minus|less|divided\s+by|over|/|plus|\+)\s+([a-z][^?();:,]{1,60})`)

// issuerTail matches a preposition that may open an operand's closing
// words saying whose figure it is ("for Costco", "at Walmart and eBay");
// group 1 is the word after it.
var issuerTail = regexp.MustCompile(`(?i)\s+(?:for|at|of)\s+([\w.&'’-]+)`)

// withoutIssuerTail returns operand without closing words naming one of
// the issuers asked (issuerTail): "total revenue for Costco" is "total
// revenue"; "provision for income taxes" keeps its words.
func (b *builder) withoutIssuerTail(operand string) string {
	skip := issuerWordSet(b.cat, b.rt.Issuers)
	for _, m := range issuerTail.FindAllStringSubmatchIndex(operand, -1) {
		// "cost of revenue for Costco": the first "of" names no issuer;
		// the words from the one that does are cut.
		w := strings.ToLower(strings.TrimSuffix(strings.TrimSuffix(operand[m[2]:m[3]], "'s"), "’s"))
		if skip[w] {
			return operand[:m[0]]
		}
	}
	return operand
}

// formulaOps are the calculate operators of formulaAsked's words.
var formulaOps = map[string]string{"minus": "-", "less": "-", "divided by": "/", "over": "/", "/": "/", "plus": "+", "+": "+"}

// planFormula plans, for a question that defines its figure by arithmetic
// on two figures, each figure's lookup and the calculation, for each
// issuer and period whose filing prints both. It reports whether it
// planned one.
func (b *builder) planFormula() bool {
	if b.planSumShare() {
		return true
	}
	var a, opWord, c, name string
	if m := formulaAsked.FindStringSubmatchIndex(b.question); m != nil {
		a, opWord, c = b.question[m[2]:m[3]], strings.ToLower(strings.Join(strings.Fields(b.question[m[4]:m[5]]), " ")), b.question[m[6]:m[7]]
		// The figure defined: the words before the definition ("net
		// cash").
		name = strings.TrimSpace(strings.Join(strings.Fields(normLabel(formulaName(b.question[:m[0]], b.cat, b.rt.Issuers))), " "))
	} else if x, y, ok := figureOverFigure(b.question); ok {
		// "Apple's fiscal 2024 operating income over revenue": a ratio
		// of two figures the catalogue names, asked by "over".
		a, opWord, c = x, "over", y
	} else {
		return false
	}
	op, ok := formulaOps[opWord]
	if !ok {
		return false
	}
	// The period an operand ends with ("dividends paid in the quarter")
	// says when, not what.
	a, c = periodTail.ReplaceAllString(a, ""), periodTail.ReplaceAllString(c, "")
	// Nor does the issuer an operand is asked of ("total revenue for
	// Costco (fiscal 2022 ...) and Walmart").
	a, c = b.withoutIssuerTail(a), b.withoutIssuerTail(c)
	planned := false
	for ii, t := range b.rt.Issuers {
		for _, p := range b.periodsOf(t) {
			if !p.found || p.ahead > 0 || !b.cat.KnowsFigures(p.doc.ID) {
				continue
			}
			if !b.operandsResolve(p, a, c) {
				continue
			}
			meta := reqMeta{aspect: 0, issuer: ii}
			la, okA := b.formulaOperand(t, p, a, meta)
			lc, okC := b.formulaOperand(t, p, c, meta)
			if !okA || !okC || la.key == lc.key {
				continue
			}
			label := tools.PeriodLabel(p.fy)
			what := name
			if what == "" {
				what = strings.TrimSpace(a) + " " + opWord + " " + strings.TrimSpace(c)
			}
			id := t + "-" + label + "-formula-" + slug(what)
			if !b.addReq(Requirement{
				ID: id, Issuer: t, Period: label, Aspect: "figures", Kind: KindCalculation, Required: true,
				Need: fmt.Sprintf("%s's %s for %s, computed as the question defines it (%s %s %s) from its reported figures",
					b.cat.ShortName(t), what, label, strings.TrimSpace(a), opWord, strings.TrimSpace(c)),
				Completion: Condition{Kind: CondCalculation, Issuer: t, Period: label, Topic: what, Of: []string{la.req, lc.req}},
			}, meta) {
				continue
			}
			// Each operand named in the question's words, so that the
			// answer's formula reads as asked.
			va, vc := slugName(a), slugName(c)
			if va == vc {
				va, vc = va+"_a", vc+"_b"
			}
			b.addNode(tools.Calculate, tools.CalculateArgs{Expression: va + " " + op + " " + vc, Facts: map[string]tools.FactRef{
				va: {Ticker: t, Concept: la.key, Period: label}, vc: {Ticker: t, Concept: lc.key, Period: label},
			}}, []string{id}, la.node, lc.node)
			planned = true
		}
	}
	return planned
}

// sumShare matches two figures added and set as a share of a third: "R&D
// + MG&A as a % of revenue", "SBC plus D&A as a percentage of sales".
// Groups 1 and 2 are the figures added (up to four words each, within one
// clause), group 3 the whole they are a share of.
var sumShare = regexp.MustCompile(`(?i)((?:[a-z][a-z&'’-]*\s+){0,3}[a-z][a-z&'’-]*)\s*(?:\+|\bplus\b)\s*((?:[a-z][a-z&'’-]*\s+){0,3}?[a-z][a-z&'’-]*)\s+(?:(?:combined|together|in\s+total)\s+)?as\s+a\s+(?:%|percent(?:age)?\b|share\b|proportion\b)\s+of\s+((?:[a-z][a-z&'’-]*\s+){0,2}?[a-z][a-z&'’-]*)\b`)

// planSumShare plans, for a question that asks two figures added as a
// share of a third ("R&D + MG&A as a % of revenue"), each figure's lookup
// and the calculation (a + b) / c, for each issuer and period whose filing
// prints all three. It reports whether it planned one.
func (b *builder) planSumShare() bool {
	m := sumShare.FindStringSubmatch(b.question)
	if m == nil {
		return false
	}
	a, c, whole := operandWords(m[1]), operandWords(m[2]), operandWords(m[3])
	if a == "" || c == "" || whole == "" {
		return false
	}
	what := a + " plus " + c + " as a percentage of " + whole
	planned := false
	for ii, t := range b.rt.Issuers {
		for _, p := range b.periodsOf(t) {
			if !p.found || p.ahead > 0 || !b.cat.KnowsFigures(p.doc.ID) {
				continue
			}
			if !b.operandsResolve(p, a, c, whole) {
				continue
			}
			meta := reqMeta{aspect: 0, issuer: ii}
			la, okA := b.formulaOperand(t, p, a, meta)
			lc, okC := b.formulaOperand(t, p, c, meta)
			lw, okW := b.formulaOperand(t, p, whole, meta)
			if !okA || !okC || !okW || la.key == lc.key || la.key == lw.key || lc.key == lw.key {
				continue
			}
			label := tools.PeriodLabel(p.fy)
			id := t + "-" + label + "-formula-" + slug(what)
			if !b.addReq(Requirement{
				ID: id, Issuer: t, Period: label, Aspect: "figures", Kind: KindCalculation, Required: true,
				Need:       fmt.Sprintf("%s's %s for %s, computed as the question asks from its reported figures", b.cat.ShortName(t), what, label),
				Completion: Condition{Kind: CondCalculation, Issuer: t, Period: label, Topic: what, Of: []string{la.req, lc.req, lw.req}},
			}, meta) {
				continue
			}
			va, vc, vw := slugName(a), slugName(c), slugName(whole)
			b.addNode(tools.Calculate, tools.CalculateArgs{Expression: "(" + va + " + " + vc + ") / " + vw, Facts: map[string]tools.FactRef{
				va: {Ticker: t, Concept: la.key, Period: label}, vc: {Ticker: t, Concept: lc.key, Period: label}, vw: {Ticker: t, Concept: lw.key, Period: label},
			}}, []string{id}, la.node, lc.node, lw.node)
			// The share as the filing prints it ("Total R&D and MG&A
			// expenses ... represented 25.3% of revenue"), beside the one
			// computed.
			joined := strings.ToLower(a + " and " + c)
			b.planPrintedAs(t, p, what, []string{joined, strings.ToLower(a + " & " + c)}, a+" "+c+" percentage of "+whole, id, meta)
			planned = true
		}
	}
	return planned
}

// operandWords returns an operand as the question writes it, less the
// joining and asking words before it ("and R&D" is "R&D").
func operandWords(text string) string {
	f := strings.Fields(text)
	for len(f) > 0 {
		lw := strings.ToLower(f[0])
		if !questionStopwords[lw] && !joiningWords[lw] && !looseFiller[lw] {
			break
		}
		f = f[1:]
	}
	return strings.Join(f, " ")
}

// overWord matches "over" between words, a ratio's sign in analysts'
// shorthand ("operating income over revenue").
var overWord = regexp.MustCompile(`(?i)\sover\s`)

// figureOverFigure returns the names of the catalogue's figures the
// question sets one over the other by "over": the figure named right
// before the word and the one right after it; false when either side is
// no figure's name ("revenue growth over 2023", "over the year").
func figureOverFigure(question string) (num, den string, ok bool) {
	for _, loc := range overWord.FindAllStringIndex(question, -1) {
		before := " " + strings.Join(strings.Fields(normLabel(question[:loc[0]])), " ")
		after := strings.Join(strings.Fields(normLabel(question[loc[1]:])), " ") + " "
		for _, m := range tools.Metrics {
			for _, n := range append([]string{m.Label}, m.Aliases...) {
				n = strings.Join(strings.Fields(normLabel(n)), " ")
				if n == "" {
					continue
				}
				if strings.HasSuffix(before, " "+n) && len(n) > len(num) {
					num = n
				}
				if strings.HasPrefix(after, n+" ") && len(n) > len(den) {
					den = n
				}
			}
		}
		if num != "" && den != "" && num != den {
			return num, den, true
		}
		num, den = "", ""
	}
	return "", "", false
}

// formulaName returns the last words before a definition that name what
// it defines, the issuer's name and periods aside: "net cash" of "Alphabet
// net cash at end of 2024".
func formulaName(before string, cat *Catalog, issuers []string) string {
	skip := issuerWordSet(cat, issuers)
	var out []string
	for _, w := range strings.Fields(normLabel(before)) {
		switch {
		case skip[w] || strings.TrimSuffix(w, "'s") != w && skip[strings.TrimSuffix(w, "'s")] || layoutNouns[w]:
			out = nil
		case labelBreaks[w] || questionStopwords[w] || strings.ContainsAny(w, "0123456789") || periodAcronyms[w] || periodWord(w):
			if len(out) > 0 {
				return strings.Join(out, " ")
			}
		default:
			out = append(out, w)
		}
	}
	return strings.Join(out, " ")
}

// layoutNouns name the form an answer is asked in, not a figure: "give me
// a table: operating income divided by total revenue".
var layoutNouns = map[string]bool{"table": true, "chart": true, "list": true, "summary": true, "breakdown": true,
	"rundown": true, "snapshot": true, "grid": true, "matrix": true}

// operandsResolve reports whether each operand of a formula names a
// figure the filing of p prints (as formulaOperand reads it), so that
// nothing is planned for a formula one of whose operands names none.
func (b *builder) operandsResolve(p filingPeriod, texts ...string) bool {
	for _, text := range texts {
		if _, ok := b.operandKey(p, text); !ok {
			return false
		}
	}
	return true
}

// operandKey returns the key an operand of a formula is looked up by:
// the catalogue figure its words name, the row initials joined by "&"
// stand for, or the row whose label holds its words.
func (b *builder) operandKey(p filingPeriod, text string) (string, bool) {
	if asks := FindFigures(text); len(asks) == 1 && asks[0].Metric != "" && strings.EqualFold(strings.TrimSpace(normLabel(text)), asks[0].Phrase) {
		mt, ok := tools.MetricByName(asks[0].Metric)
		if !ok {
			return "", false
		}
		return b.cat.ResolveMetric(p.doc.ID, mt, "", b.question)
	}
	if w := strings.TrimSpace(text); !strings.Contains(w, " ") && strings.Contains(w, "&") {
		if key, ok := b.cat.labelKey(p.doc.ID, []string{w}, false); ok {
			return key, true
		}
	}
	words := operandLabelWords(text)
	if len(words) == 0 {
		return "", false
	}
	return b.cat.ResolvePhrase(p.doc.ID, words, "")
}

// operandLabelWords are the words of an operand a row label must hold.
func operandLabelWords(text string) []string {
	var words []string
	for _, w := range strings.Fields(normLabel(strings.ReplaceAll(text, "&", " and "))) {
		if !questionStopwords[w] && !looseFiller[w] && !labelBreaks[w] {
			words = append(words, w)
		}
	}
	return words
}

// formulaOperand plans the lookup of an operand of a formula: the
// catalogue's figure its words name, or the row of the filing whose label
// holds them.
func (b *builder) formulaOperand(t string, p filingPeriod, text string, m reqMeta) (looked, bool) {
	label := tools.PeriodLabel(p.fy)
	if asks := FindFigures(text); len(asks) == 1 && asks[0].Metric != "" && strings.EqualFold(strings.TrimSpace(normLabel(text)), asks[0].Phrase) {
		return b.lookupFigure(t, p, "figures", asks[0].Metric, label, nil, true, m)
	}
	key, ok := b.operandKey(p, text)
	if !ok {
		return looked{}, false
	}
	// Named as the filing prints it, or in the question's words
	// ("MG&A" for "Marketing, general and administrative").
	what := b.cat.FigureLabel(p.doc.ID, key)
	if what == "" {
		what = strings.Join(operandLabelWords(text), " ")
	}
	l, _ := b.planNamedFact(t, p, m, cmp.Or(what, strings.TrimSpace(text)), tools.LookupFactArgs{Ticker: t, Concept: key, Period: label})
	return l, l.node != ""
}
