package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/ledgerline/research/corpus"
)

// SearchOpts configures RunSearch. The zero value is valid.
type SearchOpts struct {
	Store string              // names the store in the report
	N     int                 // timed searches per mode, cycling through the queries; 0 means one per query
	K     int                 // results per search; 0 means 10
	Modes []corpus.SearchMode // empty means fulltext, vector and hybrid
}

// SearchReport is the outcome of RunSearch.
type SearchReport struct {
	Store     string        `json:"store"`
	Documents int           `json:"documents"`
	Chunks    int           `json:"chunks"`
	Queries   int           `json:"queries"` // distinct queries
	K         int           `json:"k"`
	Latency   []ModeLatency `json:"latency"`
}

// ModeLatency is the latency of one search mode over a set of queries.
type ModeLatency struct {
	Mode    corpus.SearchMode `json:"mode"`
	Queries string            `json:"queries"` // "all", "unfiltered" or "filtered"
	Latency Latency           `json:"latency"`
}

// Query sets of a latency breakdown.
const (
	allQueries        = "all"
	unfilteredQueries = "unfiltered"
	filteredQueries   = "filtered"
)

var allModes = []corpus.SearchMode{corpus.ModeFullText, corpus.ModeVector, corpus.ModeHybrid}

// RunSearch measures the latency of searches of store through a
// corpus.Searcher with emb, mode by mode: it runs every query once to warm
// caches, then times opts.N searches one after another. Progress lines go
// to progress (nil means none).
func RunSearch(ctx context.Context, store corpus.Store, emb corpus.Embedder, queries []Query, opts *SearchOpts, progress io.Writer) (*SearchReport, error) {
	var o SearchOpts
	if opts != nil {
		o = *opts
	}
	if len(queries) == 0 {
		return nil, errors.New("bench: no queries")
	}
	if o.N < 0 {
		return nil, fmt.Errorf("bench: SearchOpts.N %d is negative", o.N)
	}
	if o.K < 0 || o.K > corpus.MaxK {
		return nil, fmt.Errorf("bench: SearchOpts.K %d: want 0 to %d", o.K, corpus.MaxK)
	}
	if o.N == 0 {
		o.N = len(queries)
	}
	if o.K == 0 {
		o.K = 10
	}
	if len(o.Modes) == 0 {
		o.Modes = allModes
	}
	p := newProgress(progress)
	st, err := store.Stats(ctx)
	if err != nil {
		return nil, err
	}
	rep := &SearchReport{Store: o.Store, Documents: st.Documents, Chunks: st.Chunks, Queries: len(queries), K: o.K}
	p.printf("%s: %d documents, %d chunks; %d queries, %d timed searches per mode", o.Store, st.Documents, st.Chunks, len(queries), o.N)
	searcher := corpus.NewSearcher(store, emb)
	for _, mode := range o.Modes {
		run, err := timeSearches(ctx, searcher, queries, mode, o.K, o.N, p, o.Store)
		if err != nil {
			return nil, err
		}
		rep.Latency = append(rep.Latency, run.breakdown(mode, queries)...)
	}
	return rep, nil
}

// timedRun is one mode's timed searches: search i ran query i % len(queries).
type timedRun struct {
	durations []time.Duration
	results   [][]corpus.SearchResult
}

// timeSearches runs every query once untimed, then n timed searches.
func timeSearches(ctx context.Context, s *corpus.Searcher, qs []Query, mode corpus.SearchMode, k, n int, p *progress, label string) (timedRun, error) {
	search := func(q Query) ([]corpus.SearchResult, error) {
		res, err := s.Search(ctx, corpus.SearchRequest{Query: q.Text, Filter: q.Filter, K: k, Mode: mode})
		if err != nil {
			return nil, fmt.Errorf("bench: %s %s search %q: %w", label, mode, q.Text, err)
		}
		return res, nil
	}
	p.printf("%s %s: warming with %d queries", label, mode, len(qs))
	tick := p.every(fmt.Sprintf("%s %s warm-up", label, mode), len(qs), 10*time.Second)
	for i, q := range qs {
		if _, err := search(q); err != nil {
			return timedRun{}, err
		}
		tick(i + 1)
	}
	run := timedRun{durations: make([]time.Duration, n), results: make([][]corpus.SearchResult, n)}
	tick = p.every(fmt.Sprintf("%s %s timed", label, mode), n, 10*time.Second)
	for i := range n {
		start := time.Now()
		res, err := search(qs[i%len(qs)])
		run.durations[i] = time.Since(start)
		if err != nil {
			return timedRun{}, err
		}
		run.results[i] = res
		tick(i + 1)
	}
	l := Summarize(run.durations)
	p.printf("%s %s: p50 %.2f ms, p95 %.2f ms, mean %.2f ms", label, mode, ms(l.P50), ms(l.P95), ms(l.Mean))
	return run, nil
}

// breakdown summarises the run over all queries and, when the queries mix
// filtered and unfiltered ones, over each kind.
func (r timedRun) breakdown(mode corpus.SearchMode, qs []Query) []ModeLatency {
	var plain, filtered []time.Duration
	for i, d := range r.durations {
		if !qs[i%len(qs)].filtered() {
			plain = append(plain, d)
		} else {
			filtered = append(filtered, d)
		}
	}
	out := []ModeLatency{{mode, allQueries, Summarize(r.durations)}}
	if len(plain) > 0 && len(filtered) > 0 {
		out = append(out, ModeLatency{mode, unfilteredQueries, Summarize(plain)}, ModeLatency{mode, filteredQueries, Summarize(filtered)})
	}
	return out
}
