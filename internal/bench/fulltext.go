package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/corpus/pgstore"
)

// FullTextReport is the latency of full-text and hybrid search at one
// pgstore.Config.FullTextCandidates setting, and how far its results agree
// with the unbounded search's.
type FullTextReport struct {
	Setting    string        `json:"setting"`    // "candidates=1000", "candidates=default", "unbounded"
	Candidates int           `json:"candidates"` // pgstore.Config.FullTextCandidates
	Latency    []ModeLatency `json:"latency"`
	// Agreement is, per mode, the mean share of the unbounded search's
	// results that this setting also returns (1 for the unbounded setting
	// itself); absent when no unbounded setting was measured.
	Agreement map[corpus.SearchMode]float64 `json:"agreement,omitempty"`
}

// fullTextSetting names a FullTextCandidates setting.
func fullTextSetting(n int) string {
	switch n {
	case 0:
		return "candidates=default"
	case -1:
		return "unbounded"
	}
	return fmt.Sprintf("candidates=%d", n)
}

// fullText times full-text and hybrid searches at each of the
// FullTextCandidates settings. The settings take turns query by query, so
// that a change in machine load falls on all of them alike, and which of
// them runs a query first rotates.
func (b *scaleRun) fullText(ctx context.Context, pool *pgxpool.Pool) ([]FullTextReport, error) {
	settings := b.o.FullTextCandidates
	searchers := make([]*corpus.Searcher, len(settings))
	reps := make([]FullTextReport, len(settings))
	unbounded := -1
	for i, n := range settings {
		s, err := pgstore.New(pool, &pgstore.Config{Tenant: b.o.Tenant, FullTextCandidates: n})
		if err != nil {
			return nil, err
		}
		searchers[i] = corpus.NewSearcher(s, b.o.Embedder)
		reps[i] = FullTextReport{Setting: fullTextSetting(n), Candidates: n}
		if n == -1 {
			unbounded = i
			reps[i].Agreement = map[corpus.SearchMode]float64{}
		}
	}
	for _, mode := range []corpus.SearchMode{corpus.ModeFullText, corpus.ModeHybrid} {
		runs := make([]timedRun, len(settings))
		for i := range runs {
			runs[i] = timedRun{durations: make([]time.Duration, len(b.queries)), results: make([][]corpus.SearchResult, len(b.queries))}
		}
		for pass, label := range []string{"warm-up", "timed"} {
			tick := b.p.every(fmt.Sprintf("postgres %s candidate settings %s", mode, label), len(b.queries), 10*time.Second)
			for q, query := range b.queries {
				// The setting that goes first warms the caches for the
				// others, so each query starts with the next setting.
				for j := range searchers {
					i := (q + j) % len(searchers)
					s := searchers[i]
					start := time.Now()
					res, err := s.Search(ctx, corpus.SearchRequest{Query: query.Text, Filter: query.Filter, K: b.o.K, Mode: mode})
					if err != nil {
						return nil, fmt.Errorf("bench: postgres %s %s search %q: %w", reps[i].Setting, mode, query.Text, err)
					}
					if pass == 1 {
						runs[i].durations[q], runs[i].results[q] = time.Since(start), res
					}
				}
				tick(q + 1)
			}
		}
		for i := range reps {
			reps[i].Latency = append(reps[i].Latency, runs[i].breakdown(mode, b.queries)...)
			l := Summarize(runs[i].durations)
			agree := ""
			if unbounded >= 0 {
				if reps[i].Agreement == nil {
					reps[i].Agreement = map[corpus.SearchMode]float64{}
				}
				reps[i].Agreement[mode] = agreement(runs[i].results, runs[unbounded].results)
				agree = fmt.Sprintf(", agreement with unbounded %.3f", reps[i].Agreement[mode])
			}
			b.p.printf("postgres %s %s: p50 %.2f ms, p95 %.2f ms%s", mode, reps[i].Setting, ms(l.P50), ms(l.P95), agree)
		}
	}
	return reps, nil
}

// agreement returns the mean over queries of the share of want's results
// that got also holds (1 where want is empty).
func agreement(got, want [][]corpus.SearchResult) float64 {
	shares := make([]float64, len(want))
	for q := range want {
		shares[q] = Recall(chunkIDs(got[q]), chunkIDs(want[q]))
	}
	return mean(shares)
}

func chunkIDs(rs []corpus.SearchResult) []string {
	ids := make([]string, len(rs))
	for i, r := range rs {
		ids[i] = r.ChunkID
	}
	return ids
}
