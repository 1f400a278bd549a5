package corpus

import (
	"cmp"
	"context"
	_ "embed"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/ledgerline/research/corpus/internal/textsearch"
)

// financeTerms is the table of analyst shorthand and the taxonomy elements
// it names; see the file for its format and source.
//
//go:embed finance_terms.txt
var financeTerms string

// financeTerm is a line of finance_terms.txt.
type financeTerm struct {
	words []string // normalised (conceptWords)
	// items are the line items the term names, each as alternative
	// concepts (local names); none for a term that names no row.
	items [][]string
}

// parseFinanceTerms reads the table.
func parseFinanceTerms(text string) ([]financeTerm, error) {
	var out []financeTerm
	for i, line := range strings.Split(text, "\n") {
		if line = strings.TrimSpace(line); line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		term, items, ok := strings.Cut(line, "\t")
		t := financeTerm{words: conceptWords(term)}
		if !ok || len(t.words) == 0 || len(strings.Fields(items)) == 0 {
			return nil, fmt.Errorf("finance_terms.txt:%d: want a term, a tab and taxonomy elements", i+1)
		}
		if items = strings.TrimSpace(items); items != "-" {
			for _, item := range strings.Fields(items) {
				t.items = append(t.items, strings.Split(item, "|"))
			}
		}
		out = append(out, t)
	}
	return out, nil
}

// conceptWords normalises a label, a question or a term for matching one
// against another: lower-case words of letters, digits and "&" ("sg&a"
// stays one word), stop words dropped, the others stemmed.
func conceptWords(text string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '&'
	}) {
		w = strings.Trim(w, "&")
		switch {
		case w == "" || textsearch.IsStopWord(w):
		case strings.ContainsFunc(w, func(r rune) bool { return r == '&' || unicode.IsDigit(r) }):
			out = append(out, w)
		default:
			out = append(out, textsearch.Stem(w))
		}
	}
	return out
}

// splitConcept spells a concept's local name as words:
// "us-gaap:PaymentsToAcquirePropertyPlantAndEquipment" → "Payments To
// Acquire Property Plant And Equipment".
func splitConcept(concept string) string {
	var b strings.Builder
	for i, r := range localName(concept) {
		if i > 0 && unicode.IsUpper(r) {
			b.WriteByte(' ')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// conceptVocabulary links the row labels that issuers print beside the
// same XBRL concept: one issuer's "Purchases of property and equipment" and
// another's "Payments for acquisition of property, plant and equipment" are
// both PaymentsToAcquirePropertyPlantAndEquipment. A question that names a
// concept (by a label any issuer prints for it, by the concept's own name,
// or by an analyst's abbreviation in finance_terms.txt) is given the words
// of the labels the searched issuer prints for it.
type conceptVocabulary struct {
	// names maps a normalised label (minNameWords or more) or concept name to
	// the concepts it is printed beside, those most issuers print it for.
	names map[string][]string
	// longest maps a name's first word to the longest name it begins, in
	// words.
	longest map[string]int
	terms   []financeTerm
	// byTicker maps a ticker to each concept's labels as it prints them;
	// all maps each concept to every issuer's labels, most printed first,
	// and counts to the issuers printing each.
	byTicker map[string]map[string][]string
	all      map[string][]string
	counts   map[string]map[string]int
}

// minNameWords is the fewest words of a label that names its concept in a
// question: two-word labels ("net sales", "operating income") are words
// every issuer uses, and reading them as another issuer's line item
// cost more than it gained (docs/benchmarks.md).
const minNameWords = 3

// maxConceptLabels bounds the labels an issuer that tags nothing is given
// for a line item, from those other issuers print.
const maxConceptLabels = 3

// newConceptVocabulary learns the links from the labels of tagged facts.
func newConceptVocabulary(labels []ConceptLabel, terms []financeTerm) *conceptVocabulary {
	v := &conceptVocabulary{names: map[string][]string{}, longest: map[string]int{}, terms: terms,
		byTicker: map[string]map[string][]string{}, all: map[string][]string{}, counts: map[string]map[string]int{}}
	own := map[string]map[string][]string{}  // ticker → concept → labels
	nameCount := map[string]map[string]int{} // name → concept → issuers printing it
	for _, l := range labels {
		if l.Concept == "" || l.Label == "" {
			continue
		}
		c := localName(l.Concept)
		if own[l.Ticker] == nil {
			own[l.Ticker] = map[string][]string{}
		}
		if slices.Contains(own[l.Ticker][c], l.Label) {
			continue
		}
		own[l.Ticker][c] = append(own[l.Ticker][c], l.Label)
		if v.counts[c] == nil {
			v.counts[c] = map[string]int{}
		}
		v.counts[c][l.Label]++
		if words := conceptWords(l.Label); len(words) >= minNameWords {
			name := strings.Join(words, " ")
			if nameCount[name] == nil {
				nameCount[name] = map[string]int{}
			}
			nameCount[name][c]++
		}
	}
	v.byTicker = own
	for c, byLabel := range v.counts {
		for l := range byLabel {
			v.all[c] = append(v.all[c], l)
		}
		slices.SortFunc(v.all[c], func(a, b string) int {
			return cmp.Or(byLabel[b]-byLabel[a], len(a)-len(b), cmp.Compare(a, b))
		})
		name := strings.Join(conceptWords(splitConcept(c)), " ")
		if nameCount[name] == nil {
			nameCount[name] = map[string]int{}
		}
		nameCount[name][c] += len(byLabel)
	}
	for name, byConcept := range nameCount {
		most := 0
		for _, n := range byConcept {
			most = max(most, n)
		}
		for c, n := range byConcept {
			if n == most {
				v.names[name] = append(v.names[name], c)
			}
		}
		slices.Sort(v.names[name])
		words := strings.Fields(name)
		v.longest[words[0]] = max(v.longest[words[0]], len(words))
	}
	return v
}

// conceptsOf returns the line items a question names, in question order,
// each as alternative concepts: by an analyst's term from the table, and by
// a label or concept name written in full. It also returns the table terms
// the question used, normalised.
func (v *conceptVocabulary) conceptsOf(question string) (items [][]string, terms []string) {
	words := conceptWords(question)
	add := func(item []string) {
		if !slices.ContainsFunc(items, func(i []string) bool { return slices.Equal(i, item) }) {
			items = append(items, item)
		}
	}
	for i := range words {
		for _, t := range v.terms {
			if i+len(t.words) <= len(words) && slices.Equal(words[i:i+len(t.words)], t.words) {
				for _, item := range t.items {
					add(item)
				}
				terms = append(terms, strings.Join(t.words, " "))
			}
		}
		// The longest label or concept name starting here.
		for n := min(v.longest[words[i]], len(words)-i); n >= minNameWords; n-- {
			if cs, ok := v.names[strings.Join(words[i:i+n], " ")]; ok {
				for _, c := range cs {
					add([]string{c})
				}
				break
			}
		}
	}
	return items, terms
}

// labels returns the row labels ticker prints for a line item (alternative
// concepts): its own for the first concept its filings tag, and otherwise
// (a text filing, or an issuer whose filings the store holds without tags)
// the few that most other issuers print.
func (v *conceptVocabulary) labels(ticker string, item []string) []string {
	for _, c := range item {
		if own := v.byTicker[ticker][c]; len(own) > 0 {
			return own
		}
	}
	type counted struct {
		label string
		n     int
	}
	var all []counted
	for _, c := range item {
		for _, l := range v.all[c] {
			all = append(all, counted{l, v.counts[c][l]})
		}
	}
	slices.SortStableFunc(all, func(a, b counted) int { return cmp.Or(b.n-a.n, len(a.label)-len(b.label)) })
	var out []string
	for _, l := range all {
		if len(out) < maxConceptLabels && !slices.Contains(out, l.label) {
			out = append(out, l.label)
		}
	}
	return out
}

// expand returns the words of the labels the searched issuer (ticker; ""
// for any) prints for the line items question names, and the table terms
// the question used (whose readings as label initials are replaced).
func (v *conceptVocabulary) expand(question, ticker string) (words, terms []string) {
	items, terms := v.conceptsOf(question)
	for _, item := range items {
		for _, l := range v.labels(ticker, item) {
			for _, w := range labelWords(l) {
				if !textsearch.IsStopWord(w) && !slices.Contains(words, w) {
					words = append(words, w)
				}
			}
		}
	}
	return words, terms
}

// concepts returns the concept vocabulary of the store's filings, learned
// on first use and kept for the searcher's life.
func (s *Searcher) concepts(ctx context.Context) (*conceptVocabulary, error) {
	s.mu.Lock()
	v := s.conceptVocab
	s.mu.Unlock()
	if v != nil {
		return v, nil
	}
	terms, err := parseFinanceTerms(financeTerms)
	if err != nil {
		return nil, err
	}
	labels, err := s.conceptLabels(ctx)
	if err != nil {
		return nil, err
	}
	v = newConceptVocabulary(labels, terms)
	s.mu.Lock()
	s.conceptVocab = v
	s.mu.Unlock()
	return v, nil
}

// conceptLabels reads the labels of the store's tagged facts in the
// default context, through ConceptLabeler when the store has it.
func (s *Searcher) conceptLabels(ctx context.Context) ([]ConceptLabel, error) {
	if l, ok := s.store.(ConceptLabeler); ok {
		return l.ConceptLabels(ctx)
	}
	docs, err := s.store.Documents(ctx)
	if err != nil {
		return nil, err
	}
	ticker := make(map[string]string, len(docs))
	for _, d := range docs {
		ticker[d.ID] = d.Ticker
	}
	facts, err := s.store.Facts(ctx, FactFilter{Kind: FactXBRL})
	if err != nil {
		return nil, err
	}
	var out []ConceptLabel
	seen := map[ConceptLabel]bool{}
	for _, f := range facts {
		l := ConceptLabel{Ticker: ticker[f.DocumentID], Concept: f.Concept, Label: f.Label}
		if l.Concept != "" && l.Label != "" && len(f.Dimensions) == 0 && !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
	}
	return out, nil
}
