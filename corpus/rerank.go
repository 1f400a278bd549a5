package corpus

import (
	"context"
	"slices"
	"strings"

	"github.com/ledgerline/research/corpus/internal/textsearch"
)

// rerankDepth is how many candidates the second stage reorders, as a
// multiple of K (and at least rerankMin).
const (
	rerankDepth = 3
	rerankMin   = 30
)

// labelWeight is the weight of row-label matches against a rank's
// reciprocal-rank score 1/(rrfK + rank): a candidate whose tables' row
// labels hold all of a question's words gains as much as moving from rank
// 30 to rank 1 would give it. Chosen on the tuning half of eval/pages.jsonl.
const labelWeight = 0.012

// rerankByLabels reorders candidates, best first, by their rank plus the
// share of the question's words found in the row labels of the facts the
// chunk displays (the labels filings print beside tagged XBRL concepts and
// table cells): a question asking for "long-term debt" and "total current
// assets" is answered by the table that has those rows, more than by prose
// that mentions them. It returns the best k.
func (s *Searcher) rerankByLabels(ctx context.Context, words []string, cands []SearchResult, k int) ([]SearchResult, error) {
	var a textsearch.Analyzer
	want := map[string]bool{}
	for _, w := range words {
		for _, l := range a.Lexemes(nil, w) {
			want[l.Term] = true
		}
	}
	if len(want) == 0 || len(cands) == 0 {
		return cands[:min(k, len(cands))], nil
	}
	type scored struct {
		r     SearchResult
		score float64
		rank  int
	}
	out := make([]scored, len(cands))
	for i, c := range cands {
		spans, err := s.chunkLabels(ctx, c)
		if err != nil {
			return nil, err
		}
		hit := map[string]bool{}
		for _, span := range spans {
			for _, term := range span.terms {
				if want[term] {
					hit[term] = true
				}
			}
		}
		out[i] = scored{c, 1/float64(rrfK+i+1) + labelWeight*float64(len(hit))/float64(len(want)), i}
	}
	slices.SortStableFunc(out, func(a, b scored) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return a.rank - b.rank
	})
	res := make([]SearchResult, 0, min(k, len(out)))
	for _, o := range out[:min(k, len(out))] {
		res = append(res, o.r)
	}
	return res, nil
}

// labelRows searches for the labels a question writes out (q.labels) as
// phrases, in the filings req selects (those of the fiscal years the
// question names, when it names some and req none), and returns the
// chunks among the best K that print one of them as a row label, best
// first. A question's other words can rank a table below prose that
// repeats them: "balance sheet" and "total assets" are more often in an
// auditor's report than in the balance sheet, whose "Total assets" row is
// what the question asks for. A chunk that only mentions a label in a
// sentence is left out.
func (s *Searcher) labelRows(ctx context.Context, req SearchRequest, q analyzedQuery) ([]SearchResult, error) {
	var a textsearch.Analyzer
	phrases := make([]string, 0, len(q.labels))
	want := make([][]string, 0, len(q.labels)) // each label's lexemes
	for _, l := range q.labels {
		words := labelWords(l)
		phrases = append(phrases, `"`+strings.Join(words, " ")+`"`)
		var terms []string
		for _, lex := range a.Lexemes(nil, strings.Join(words, " ")) {
			terms = append(terms, lex.Term)
		}
		want = append(want, terms)
	}
	sub := req
	sub.Mode = ModeFullText
	sub.Query = strings.Join(phrases, " or ")
	if len(sub.Filter.FiscalYears) == 0 {
		sub.Filter.FiscalYears = q.years // the rows of the years asked about, when it names them
	}
	found, err := s.searchOne(ctx, sub, nil)
	if err != nil {
		return nil, err
	}
	rows := found[:0]
	for _, r := range found {
		spans, err := s.chunkLabels(ctx, r)
		if err != nil {
			return nil, err
		}
		if slices.ContainsFunc(spans, func(span labelSpan) bool {
			return slices.ContainsFunc(want, func(terms []string) bool { return containsAll(span.terms, terms) })
		}) {
			rows = append(rows, r)
		}
	}
	return rows, nil
}

// containsAll reports whether every one of terms is in set.
func containsAll(set, terms []string) bool {
	for _, t := range terms {
		if !slices.Contains(set, t) {
			return false
		}
	}
	return true
}

// chunkLabels returns the labelled facts displayed in chunk c.
func (s *Searcher) chunkLabels(ctx context.Context, c SearchResult) ([]labelSpan, error) {
	spans, err := s.documentLabels(ctx, c.DocumentID)
	if err != nil {
		return nil, err
	}
	// spans are sorted by start: take those inside [c.Start, c.End).
	lo, _ := slices.BinarySearchFunc(spans, c.Start, func(f labelSpan, start int) int { return f.start - start })
	hi := lo
	for hi < len(spans) && spans[hi].start < c.End {
		hi++
	}
	return spans[lo:hi], nil
}

// labelSpan is where a labelled fact is displayed, with the lexemes of
// its label.
type labelSpan struct {
	start int
	terms []string
}

// documentLabels returns the labelled, displayed facts of a document
// ordered by position, reading them once: a document id is the hash of its
// text, so its facts never change.
func (s *Searcher) documentLabels(ctx context.Context, doc string) ([]labelSpan, error) {
	s.mu.Lock()
	spans, ok := s.labels[doc]
	s.mu.Unlock()
	if ok {
		return spans, nil
	}
	labels, err := s.factLabels(ctx, doc)
	if err != nil {
		return nil, err
	}
	var a textsearch.Analyzer
	terms := map[string][]string{} // label → its lexemes, shared by its facts
	for _, l := range labels {
		t, ok := terms[l.Label]
		if !ok {
			for _, lex := range a.Lexemes(nil, l.Label) {
				if !slices.Contains(t, lex.Term) {
					t = append(t, lex.Term)
				}
			}
			terms[l.Label] = t
		}
		spans = append(spans, labelSpan{l.Start, t})
	}
	s.mu.Lock()
	if s.labels == nil {
		s.labels = map[string][]labelSpan{}
	}
	s.labels[doc] = spans
	s.mu.Unlock()
	return spans, nil
}

// factLabels reads the labels of a document's displayed facts, ordered by
// position, or every distinct label for doc "", through FactLabeler when
// the store has it.
func (s *Searcher) factLabels(ctx context.Context, doc string) ([]FactLabel, error) {
	if l, ok := s.store.(FactLabeler); ok {
		return l.FactLabels(ctx, doc)
	}
	facts, err := s.store.Facts(ctx, FactFilter{DocumentID: doc})
	if err != nil {
		return nil, err
	}
	var out []FactLabel
	var parts []bool
	seen := map[string]bool{}
	for _, f := range facts {
		label := PartLabel(f.Label, f.Dimensions[TablePartAxis])
		switch {
		case label == "":
		case doc == "" && !seen[label]:
			seen[label] = true
			out = append(out, FactLabel{Start: -1, Label: label})
		case doc != "" && f.Start >= 0:
			out = append(out, FactLabel{Start: f.Start, Label: label})
			parts = append(parts, f.Dimensions[TablePartAxis] != "")
		}
	}
	if doc == "" {
		return out, nil
	}
	idx := make([]int, len(out))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return out[a].Start - out[b].Start })
	sorted, sparts := make([]FactLabel, len(out)), make([]bool, len(out))
	for i, j := range idx {
		sorted[i], sparts[i] = out[j], parts[j]
	}
	return PrintedLabels(sorted, sparts), nil
}
