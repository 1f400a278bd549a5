package eval

import (
	"strings"
	"sync"
	"unicode"

	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/configs"
	"github.com/ledgerline/research/executor"
	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/validator"
)

// SupportRule names the rule by which a citation supports the item asked,
// as results.jsonl records it per citation.
type SupportRule string

// The citation-support rules, in the order they are tried.
const (
	SupportNone        SupportRule = ""            // no rule held
	SupportFigure      SupportRule = "figure"      // (a) the excerpt states an expected figure
	SupportEvidence    SupportRule = "evidence"    // (b) the excerpt quotes an expected passage
	SupportCalculation SupportRule = "calculation" // (c) the evidence is an input of a calculation that gives an expected figure
	SupportWords       SupportRule = "words"       // (d) the excerpt holds half the question's content words
)

// CitationSupport returns, for each citation of res in order, the rule by
// which its excerpt supports the item asked, or SupportNone. A citation
// supports the item when the first of these holds:
//
//	(a) figure: its excerpt states one of the item's expected figures, read
//	    and matched as the figure check reads the answer (ParseAmounts and
//	    Amount.Matches: tolerance or rounding, table figures in thousands
//	    or millions, percentages only for percent figures), on any line
//	    and without the period;
//	(b) evidence: its excerpt contains one of the item's evidence phrases
//	    or alternatives, compared as the evidence check compares them
//	    (validator.Verbatim: white space and quotes normalised), whatever
//	    filing the citation comes from;
//	(c) calculation: its evidence id is an input of a calculation the
//	    result states (Result.Calculations, whose inputs are ledger facts
//	    of the run, or a derived Result.Figures entry) whose result
//	    matches an expected figure (a ratio is read as a percentage for a
//	    percent figure);
//	(d) words: otherwise, its excerpt holds at least half, rounded up and
//	    at least one, of the question's content words: the question is
//	    lower-cased and split into words of letters; a content word has
//	    four letters or more, is not a stop word (StopWord) and is not the
//	    ticker or a word of the SEC name of one of the item's issuers or of
//	    its not_covered names; words are compared by their first five
//	    letters, and each distinct one counts once. A question with no
//	    content word supports nothing by this rule.
//
// led is the run's ledger, nil when it recorded none (rule c then uses
// derived figures only).
func CitationSupport(it GoldenItem, res *executor.Result, led *ledger.RunLedger) []SupportRule {
	if res == nil || len(res.Citations) == 0 {
		return nil
	}
	calc := calculationEvidence(it, res, led)
	words := contentWords(it.Question, issuerWords(it))
	out := make([]SupportRule, len(res.Citations))
	for i, c := range res.Citations {
		out[i] = citationRule(it, c, calc, words)
	}
	return out
}

// citationRule is the first rule by which one citation supports it; calc
// holds the evidence ids of rule (c), words the question's content words.
func citationRule(it GoldenItem, c executor.Citation, calc map[string]bool, words []string) SupportRule {
	if len(it.Figures) > 0 {
		for _, a := range ParseAmounts(c.Excerpt) {
			for _, f := range it.Figures {
				if a.Matches(f) {
					return SupportFigure
				}
			}
		}
	}
	for _, e := range it.Evidence {
		for _, p := range e.Phrases() {
			if validator.Verbatim(p, c.Excerpt) {
				return SupportEvidence
			}
		}
	}
	if calc[c.EvidenceID] {
		return SupportCalculation
	}
	if len(words) > 0 {
		have := map[string]bool{}
		for _, w := range letterWords(c.Excerpt) {
			have[wordStem(w)] = true
		}
		n := 0
		for _, w := range words {
			if have[w] {
				n++
			}
		}
		if n >= max(1, (len(words)+1)/2) {
			return SupportWords
		}
	}
	return SupportNone
}

// calculationEvidence returns the evidence ids that are inputs of a
// calculation of res whose result matches one of it's expected figures.
func calculationEvidence(it GoldenItem, res *executor.Result, led *ledger.RunLedger) map[string]bool {
	out := map[string]bool{}
	if len(it.Figures) == 0 {
		return out
	}
	matches := func(v decimal.Decimal) bool {
		for _, f := range it.Figures {
			if computedMatches(v, f) {
				return true
			}
		}
		return false
	}
	factEvidence := map[string]string{}
	if led != nil {
		for _, f := range led.Facts {
			factEvidence[f.ID] = f.EvidenceID
		}
	}
	for _, c := range res.Calculations {
		if !matches(c.Result) {
			continue
		}
		for _, factID := range c.Inputs {
			if e, ok := factEvidence[factID]; ok {
				out[e] = true
			}
		}
	}
	for _, f := range res.Figures {
		if f.Kind == executor.FigureDerived && matches(f.Value) {
			for _, e := range f.EvidenceIDs {
				out[e] = true
			}
		}
	}
	return out
}

// computedMatches reports whether a computed value states f, within f's
// tolerance (a computed value has no written digits to round to). For a
// percent figure a ratio (0.462) is read as a percentage (46.2), and a
// value already in percent is taken as it is; other values match at face
// value or in thousands or millions, as Amount.Matches reads a table.
func computedMatches(v decimal.Decimal, f Figure) bool {
	x, _ := v.Abs().Float64()
	if f.Unit == UnitPercent {
		return Amount{Value: x * 100, Percent: true}.Matches(f) || Amount{Value: x, Percent: true}.Matches(f)
	}
	return Amount{Value: x}.Matches(f)
}

// letterWords lower-cases s and returns its words of letters, in order:
// "Apple's R&D" gives apple, s, r, d.
func letterWords(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) })
}

// wordStem is a word's first five letters, by which content words are
// compared ("margins" and "margin" are "margi").
func wordStem(w string) string {
	if r := []rune(w); len(r) > 5 {
		return string(r[:5])
	}
	return w
}

// contentWords returns the distinct stems of the question's content words:
// words of letters, four or more, that are neither stop words nor in
// exclude (the item's issuer names and tickers, lower case).
func contentWords(question string, exclude map[string]bool) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range letterWords(question) {
		if len([]rune(w)) < 4 || StopWord(w) || exclude[w] {
			continue
		}
		if s := wordStem(w); !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// issuerWords returns, lower case, the tickers of the item's issuers and
// the words of their names in the SEC issuer list, and the words of its
// not_covered names (and of their SEC names when one is a ticker).
func issuerWords(it GoldenItem) map[string]bool {
	out := map[string]bool{}
	list := secIssuers()
	add := func(name string) {
		for _, w := range letterWords(name) {
			out[w] = true
		}
		if list == nil {
			return
		}
		if is, ok := list.Lookup(name); ok {
			for _, w := range letterWords(is.Title) {
				out[w] = true
			}
		}
	}
	for _, t := range it.Issuers {
		add(t)
	}
	for _, n := range it.NotCovered {
		add(n)
	}
	return out
}

// secIssuers is the embedded SEC issuer list, read once; nil when it
// cannot be read (names are then left in the question's content words).
var secIssuers = sync.OnceValue(func() *configs.IssuerList {
	l, err := configs.Issuers()
	if err != nil {
		return nil
	}
	return l
})

// StopWord reports whether a lower-case word is left out of a question's
// content words: an English stop word (the Snowball list), a word that
// frames the question rather than naming its topic ("describe",
// "compare", "tell"), or one that names its period ("fiscal", "year",
// "quarter"), which the figure check holds.
func StopWord(w string) bool { return stopWords[w] }

var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`
		i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers
		herself it its itself they them their theirs themselves what which who whom this that these those am is
		are was were be been being have has had having do does did doing a an the and but if or because as until
		while of at by for with about against between into through during before after above below to from up
		down in out on off over under again further then once here there when where why how all any both each
		few more most other some such no nor not only own same so than too very s t can will just don should now
		also could would shall might must much many whether within without across upon
		tell give show please describe explain compare compared comparison according say says said
		fiscal year years yearly annual quarter quarters quarterly latest recent`) {
		m[w] = true
	}
	return m
}()
