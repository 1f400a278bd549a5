package corpus

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
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
	checked bool // guarded by mu: the store's embedders matched ours
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
	var qvec []float32
	if mode != ModeFullText {
		if s.embedder == nil {
			return nil, fmt.Errorf("corpus: %s search needs an embedder", mode)
		}
		if err := s.checkEmbedder(ctx); err != nil {
			return nil, err
		}
		vecs, err := s.embedder.Embed(ctx, []string{req.Query})
		if err != nil {
			return nil, fmt.Errorf("corpus: embed query: %w", err)
		}
		qvec = vecs[0]
	}
	tickers := slices.Compact(slices.Sorted(slices.Values(req.Filter.Tickers)))
	if len(tickers) < 2 || req.NoInterleave {
		return s.searchOne(ctx, req, qvec)
	}
	// One ranking per ticker, then round robin.
	lists := make([][]SearchResult, len(tickers))
	for i, t := range tickers {
		sub := req
		sub.Filter.Tickers = []string{t}
		if lists[i], err = s.searchOne(ctx, sub, qvec); err != nil {
			return nil, err
		}
	}
	return interleave(lists, req.K), nil
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
