package planner

import (
	"slices"
	"strings"
	"unicode"
)

// Relevance scores sentences against one question: by the question's own
// content words (QuestionWords: no stop words, no issuer names), each
// weighted by how rare it is in filings (TextStats.IDF), so that a
// sentence holding "turnover" counts for more than one holding "rate".
// It also says how much of a sentence is boilerplate (TextStats.
// Boilerplate): the shapes many issuers' filings share, which say nothing
// specific to the point asked. A nil *Relevance scores every sentence 1
// and nothing as boilerplate, so callers without a question keep working.
type Relevance struct {
	keys    []string  // WordKey of each question word
	weights []float64 // its IDF
	total   float64
	stats   *TextStats
	// short holds, for each short form an issuer's filing defines of a
	// long form the question writes, the keys of the long form's words:
	// a sentence writing "RL" holds "Reality Labs".
	short map[string][]string
}

// NewRelevance reads question's content words; cat gives the corpus's
// statistics (Catalog.TextStats; without them every word weighs the same)
// and the issuer names to leave out.
func NewRelevance(question string, cat *Catalog, issuers []string) *Relevance {
	r := &Relevance{stats: cat.TextStats()}
	words := QuestionWords(question, cat, issuers)
	// The parts of an issuer the question names (a segment, a brand) are
	// the point asked, though QuestionWords leaves them out with the
	// issuer's names.
	for _, t := range issuers {
		if cat == nil {
			break
		}
		for _, seg := range cat.SegmentsIn(question, t) {
			words = append(words, strings.Fields(strings.ToLower(seg.Name))...)
		}
	}
	q := normalizeText(question)
	for _, t := range issuers {
		for long, short := range r.stats.ShortForms(t) {
			if !termIn(q, long) {
				continue
			}
			if r.short == nil {
				r.short = map[string][]string{}
			}
			for _, w := range strings.Fields(long) {
				r.short[WordKey(short)] = append(r.short[WordKey(short)], WordKey(w))
			}
		}
	}
	for _, w := range words {
		k := WordKey(w)
		if k == "" || slices.Contains(r.keys, k) {
			continue
		}
		weight := r.stats.IDF(w)
		r.keys = append(r.keys, k)
		r.weights = append(r.weights, weight)
		r.total += weight
	}
	return r
}

// Words returns how many content words the question has.
func (r *Relevance) Words() int {
	if r == nil {
		return 0
	}
	return len(r.keys)
}

// Score is the share of the question's word weight that sentence holds, in
// [0, 1]; 1 for a question with no content words.
func (r *Relevance) Score(sentence string) float64 {
	if r == nil || r.total == 0 {
		return 1
	}
	have := sentenceKeys(sentence)
	for short, long := range r.short {
		if have[short] {
			for _, k := range long {
				have[k] = true
			}
		}
	}
	got := 0.0
	for i, k := range r.keys {
		if have[k] {
			got += r.weights[i]
		}
	}
	return got / r.total
}

// Boilerplate is TextStats.Boilerplate of sentence; 0 without statistics.
func (r *Relevance) Boilerplate(sentence string) float64 {
	if r == nil {
		return 0
	}
	return r.stats.Boilerplate(sentence)
}

// sentenceKeys returns the WordKeys of a sentence's words.
func sentenceKeys(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' && r != '’' }) {
		w = strings.Trim(strings.ReplaceAll(w, "’", "'"), "'")
		if w != "" {
			out[WordKey(w)] = true
		}
	}
	return out
}
