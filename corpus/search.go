package corpus

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode"
)

// SearchMode selects the retrieval method.
type SearchMode string

// Search modes.
const (
	ModeHybrid   SearchMode = "hybrid"   // full text and vector, fused by reciprocal rank fusion
	ModeFullText SearchMode = "fulltext" // full text only
	ModeVector   SearchMode = "vector"   // vector only
)

// ParseSearchMode parses a mode name; "" means hybrid.
func ParseSearchMode(s string) (SearchMode, error) {
	switch m := SearchMode(strings.ToLower(s)); m {
	case "":
		return ModeHybrid, nil
	case ModeHybrid, ModeFullText, ModeVector:
		return m, nil
	}
	return "", fmt.Errorf("search mode %q: want hybrid, fulltext or vector", s)
}

// SearchRequest is one search.
type SearchRequest struct {
	Query  string
	Filter Filter
	K      int        // results wanted; 0 means 10
	Mode   SearchMode // "" means hybrid
	// Interleave, when several tickers are given, searches each ticker on
	// its own and takes results from each in turn, so one issuer cannot
	// crowd out the others. It is on unless NoInterleave is set.
	NoInterleave bool
}

// MaxK bounds the results of one search.
const MaxK = 200

// rrfK is the reciprocal rank fusion constant (Cormack et al.).
const rrfK = 60

// ErrEmbedderMismatch is returned by vector and hybrid searches when the
// store's documents were embedded by another embedder than the searcher's.
var ErrEmbedderMismatch = errors.New("corpus: the store's documents were embedded with a different embedder")

// Searcher answers hybrid searches over a store.
type Searcher struct {
	store    Store
	embedder Embedder

	mu      sync.Mutex
	checked bool                   // guarded by mu: the store's embedders matched ours
	issuers map[string][]string    // guarded by mu: ticker → the words of its registrant's names
	labels  map[string][]labelSpan // guarded by mu: document id → its labelled facts
	vocab   *labelVocabulary       // guarded by mu: the filings' row-label vocabulary, once learned
	// conceptVocab is guarded by mu: the labels issuers print for each
	// tagged concept, once learned.
	conceptVocab *conceptVocabulary
}

// NewSearcher returns a searcher over store that embeds queries with
// embedder (nil allows full-text searches only).
func NewSearcher(store Store, embedder Embedder) *Searcher {
	return &Searcher{store: store, embedder: embedder}
}

// Search runs req and returns up to K results, best first.
//
// Hybrid search fuses the two rankings by weighted reciprocal rank fusion,
// score = Σ w/(60 + rank): the full-text ranking's top K (weight 1) with
// the vector ranking's top max(4K, 40) (the embedder's FusionWeight, 1 when
// it declares none). The full-text side stops at K because its tail holds
// chunks matching only some of the words; fused with a deep vector pool, RRF
// lifted those weak partial matches above strong ones. The vector side goes
// deeper, since finding what the words miss is what it is for.
//
// A long query (IsLongQuestion) filtered to at most one ticker is read as
// an analyst's question (AnalyzeQuestion): the full-text side searches for
// any of its words rather than all, without its instructions, its
// definitions' glue and the names of the issuer the filter selects, and
// with the row labels the searched issuer prints for the line items it
// names: by an analyst's term (finance_terms.txt: "capex", "FCF", "CFO"),
// or by another issuer's label or the XBRL concept's name, linked through
// the concept the labels are tagged with (concepts.go); and with the
// row-label words of the other abbreviations it uses, learned from the
// stored facts' labels. When the filter names no fiscal
// year, the filings of the years the question names are searched first and
// the others fill the rest. Unless the question asks for reasons or
// expectations, the row labels it writes out in full ("total assets") are
// also searched for as phrases, and the chunks that print them as row labels
// are fused (RRF) with the best max(3K, 30) candidates of the full-text or
// hybrid search; the candidates are then reordered by how many of the
// question's words the row labels of their tables hold.
func (s *Searcher) Search(ctx context.Context, req SearchRequest) ([]SearchResult, error) {
	if req.K <= 0 {
		req.K = 10
	}
	if req.K > MaxK {
		return nil, fmt.Errorf("corpus: k = %d is more than %d", req.K, MaxK)
	}
	mode, err := ParseSearchMode(string(req.Mode))
	if err != nil {
		return nil, err
	}
	req.Mode = mode
	if strings.TrimSpace(req.Query) == "" {
		return nil, fmt.Errorf("corpus: empty query")
	}
	if req.Filter.Section != "" {
		name, ok := NormalizeSection(req.Filter.Section)
		if !ok {
			return nil, fmt.Errorf("corpus: section %q: want an item such as 7, 1A or \"Item 7\"", req.Filter.Section)
		}
		req.Filter.Section = name
	}
	for i, t := range req.Filter.Tickers {
		req.Filter.Tickers[i] = strings.ToUpper(strings.TrimSpace(t))
		if !ValidTicker(req.Filter.Tickers[i]) {
			return nil, fmt.Errorf("corpus: ticker %q is not a ticker", t)
		}
	}
	tickers := slices.Compact(slices.Sorted(slices.Values(req.Filter.Tickers)))
	q, err := s.analyze(ctx, req.Query, tickers)
	if err != nil {
		return nil, err
	}
	var qvec []float32
	if mode != ModeFullText {
		if s.embedder == nil {
			return nil, fmt.Errorf("corpus: %s search needs an embedder", mode)
		}
		if err := s.checkEmbedder(ctx); err != nil {
			return nil, err
		}
		vecs, err := s.embedder.Embed(ctx, []string{q.vector})
		if err != nil {
			return nil, fmt.Errorf("corpus: embed query: %w", err)
		}
		qvec = vecs[0]
	}
	req.Query = q.fullText
	if len(tickers) < 2 || req.NoInterleave {
		return s.searchRanked(ctx, req, qvec, q)
	}
	// One ranking per ticker, then round robin.
	lists := make([][]SearchResult, len(tickers))
	for i, t := range tickers {
		sub := req
		sub.Filter.Tickers = []string{t}
		if lists[i], err = s.searchRanked(ctx, sub, qvec, q); err != nil {
			return nil, err
		}
	}
	return interleave(lists, req.K), nil
}

// searchRanked searches for a question's candidates and reranks them by
// the row labels of the tables they hold; a short query is searched as
// written.
func (s *Searcher) searchRanked(ctx context.Context, req SearchRequest, qvec []float32, q analyzedQuery) ([]SearchResult, error) {
	if len(q.words) == 0 {
		return s.searchYears(ctx, req, qvec, q.years)
	}
	wide := req
	wide.K = min(MaxK, max(rerankDepth*req.K, rerankMin))
	cands, err := s.searchYears(ctx, wide, qvec, q.years)
	if err != nil {
		return nil, err
	}
	if len(q.labels) > 0 && req.Mode != ModeVector {
		rows, err := s.labelRows(ctx, req, q)
		if err != nil {
			return nil, err
		}
		cands = FuseRRF(len(cands)+len(rows), nil, cands, rows)
	}
	return s.rerankByLabels(ctx, q.words, cands, req.K)
}

// searchYears searches the filings of the fiscal years a question names
// first, when the filter names none, and fills the rest of the K results
// from every year: a question about fiscal 2021 is answered from the 2021
// filing before a later one that repeats its figures.
func (s *Searcher) searchYears(ctx context.Context, req SearchRequest, qvec []float32, years []int) ([]SearchResult, error) {
	if len(years) == 0 || len(req.Filter.FiscalYears) > 0 {
		return s.searchOne(ctx, req, qvec)
	}
	sub := req
	sub.Filter.FiscalYears = years
	first, err := s.searchOne(ctx, sub, qvec)
	if err != nil || len(first) >= req.K {
		return first, err
	}
	rest, err := s.searchOne(ctx, req, qvec)
	if err != nil {
		return nil, err
	}
	seen := make(map[string]bool, len(first))
	for _, r := range first {
		seen[r.ChunkID] = true
	}
	for _, r := range rest {
		if len(first) == req.K {
			break
		}
		if !seen[r.ChunkID] {
			first = append(first, r)
		}
	}
	return first, nil
}

func (s *Searcher) searchOne(ctx context.Context, req SearchRequest, qvec []float32) ([]SearchResult, error) {
	switch req.Mode {
	case ModeFullText:
		return s.store.FullTextSearch(ctx, req.Query, req.Filter, req.K)
	case ModeVector:
		return s.store.VectorSearch(ctx, qvec, req.Filter, req.K)
	}
	text, err := s.store.FullTextSearch(ctx, req.Query, req.Filter, req.K)
	if err != nil {
		return nil, err
	}
	vec, err := s.store.VectorSearch(ctx, qvec, req.Filter, max(4*req.K, 40))
	if err != nil {
		return nil, err
	}
	return FuseRRF(req.K, []float64{1, fusionWeight(s.embedder)}, text, vec), nil
}

// fusionWeight is the weight an embedder declares for its ranking, or 1.
func fusionWeight(e Embedder) float64 {
	if w, ok := e.(interface{ FusionWeight() float64 }); ok {
		return w.FusionWeight()
	}
	return 1
}

// FuseRRF fuses rankings by weighted reciprocal rank fusion with k = 60:
// a result's score is the sum over the lists holding it of
// weights[i]/(60 + rank). It returns the best n. Ties keep the order of
// first appearance.
func FuseRRF(n int, weights []float64, lists ...[]SearchResult) []SearchResult {
	type entry struct {
		r     SearchResult
		score float64
		first int
	}
	byID := map[string]*entry{}
	var order []*entry
	for i, list := range lists {
		w := 1.0
		if i < len(weights) {
			w = weights[i]
		}
		for rank, r := range list {
			e, ok := byID[r.ChunkID]
			if !ok {
				e = &entry{r: r, first: len(order)}
				byID[r.ChunkID] = e
				order = append(order, e)
			}
			e.score += w / float64(rrfK+rank+1)
		}
	}
	slices.SortStableFunc(order, func(a, b *entry) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return a.first - b.first
	})
	out := make([]SearchResult, 0, min(n, len(order)))
	for _, e := range order[:min(n, len(order))] {
		e.r.Score = e.score
		out = append(out, e.r)
	}
	return out
}

// interleave takes one result from each list in turn until n are taken.
func interleave(lists [][]SearchResult, n int) []SearchResult {
	var out []SearchResult
	seen := map[string]bool{}
	for i := 0; len(out) < n; i++ {
		progressed := false
		for _, l := range lists {
			if i >= len(l) || len(out) >= n {
				continue
			}
			progressed = true
			if !seen[l[i].ChunkID] {
				seen[l[i].ChunkID] = true
				out = append(out, l[i])
			}
		}
		if !progressed {
			break
		}
	}
	return out
}

// checkEmbedder fails when the store holds documents embedded by another
// embedder, whose vectors would be meaningless to compare with ours.
func (s *Searcher) checkEmbedder(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.checked {
		return nil
	}
	st, err := s.store.Stats(ctx)
	if err != nil {
		return err
	}
	for _, e := range st.Embedders {
		if e != s.embedder.Name() {
			return fmt.Errorf("%w: store has %q, searcher uses %q; search with the embedder used at ingest, or use --mode fulltext",
				ErrEmbedderMismatch, e, s.embedder.Name())
		}
	}
	s.checked = true
	return nil
}

// analyzedQuery is a query as each side of a search reads it.
type analyzedQuery struct {
	fullText string   // web-search syntax for Store.FullTextSearch
	vector   string   // the text to embed
	years    []int    // fiscal years a question names
	words    []string // a question's words to rerank by; nil for a short query or one asking for reasons
	// labels are the row labels a question writes out in full ("total
	// assets"), whose rows are searched for as phrases; nil when words is.
	labels []string
}

// analyze reads a long question with AnalyzeQuestion: the full-text side
// searches its words, any of which may match (a question's words are not
// all in any one passage), without the names of the issuers the filter
// already selects. Short queries pass through as written.
func (s *Searcher) analyze(ctx context.Context, query string, tickers []string) (analyzedQuery, error) {
	out := analyzedQuery{fullText: query, vector: query}
	// Questions about several issuers are searched as written: the reading
	// below was measured on questions about one.
	if !IsLongQuestion(query) || len(tickers) > 1 {
		return out, nil
	}
	drop, err := s.issuerWords(ctx, tickers)
	if err != nil {
		return out, err
	}
	q := AnalyzeQuestion(query, drop, tickers)
	if len(q.Words) == 0 {
		return out, nil
	}
	vocab, err := s.vocabulary(ctx)
	if err != nil {
		return out, err
	}
	concepts, err := s.concepts(ctx)
	if err != nil {
		return out, err
	}
	ticker := ""
	if len(tickers) == 1 {
		ticker = tickers[0]
	}
	named, terms := concepts.expand(query, ticker)
	for _, w := range named {
		if !slices.Contains(q.Words, w) {
			q.Words = append(q.Words, w)
		}
	}
	for _, tok := range q.Tokens {
		if slices.Contains(terms, strings.Join(conceptWords(tok), " ")) {
			continue // read through the concepts it names
		}
		for _, w := range vocab.expand(tok) {
			if !slices.Contains(q.Words, w) {
				q.Words = append(q.Words, w)
			}
		}
	}
	out.fullText = strings.Join(q.Words, " or ")
	out.years = q.Years
	if !q.Reasons {
		out.words = q.Words // rerank by table row labels
		out.labels = vocab.labelsIn(q.Words)
	}
	return out, nil
}

// issuerWords returns the words of the registrant names of the tickers'
// documents, as the store records them.
func (s *Searcher) issuerWords(ctx context.Context, tickers []string) ([]string, error) {
	if len(tickers) == 0 {
		return nil, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	missing := false
	for _, t := range tickers {
		if _, ok := s.issuers[t]; !ok {
			missing = true
		}
	}
	if missing {
		docs, err := s.store.Documents(ctx)
		if err != nil {
			return nil, err
		}
		if s.issuers == nil {
			s.issuers = map[string][]string{}
		}
		for _, t := range tickers {
			s.issuers[t] = nil // known to hold nothing until a document says otherwise
		}
		for _, d := range docs {
			for _, name := range []string{d.Company, d.Entity.Registrant} {
				for _, w := range strings.FieldsFunc(strings.ToLower(name), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
					if !slices.Contains(s.issuers[d.Ticker], w) {
						s.issuers[d.Ticker] = append(s.issuers[d.Ticker], w)
					}
				}
			}
		}
	}
	var out []string
	for _, t := range tickers {
		out = append(out, s.issuers[t]...)
	}
	return out, nil
}
