package executor

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/planner"
)

// figureCache keeps the figures each stored filing reports, read from its
// facts once per document: documents are immutable (their id is the hash
// of their text), so an entry never goes stale.
type figureCache struct {
	mu      sync.Mutex
	entries map[string]*planner.IndexedFigures // guarded by mu; by document id
}

// catalog returns the planner's view of docs, with the figures of the
// filings of the issuers question names (and tickers): those are the
// filings a plan for it can read, and reading every filing's facts would
// cost a Postgres run a query per filing for nothing. The catalog also
// holds the corpus's word and sentence statistics (built once per set of
// documents), by which answers weigh the question's words and rank
// boilerplate down.
func (e *Engine) catalog(ctx context.Context, docs []corpus.Document, question string, tickers []string) (*planner.Catalog, error) {
	cat := planner.NewCatalog(docs)
	// The statistics first: the route reads them (a segment's name that
	// names its issuer, "Sam's Club" for Walmart).
	stats, err := e.textStats(ctx, docs)
	if err != nil {
		return nil, err
	}
	cat.SetTextStats(stats)
	if err := e.loadFigures(ctx, cat, docs, planner.RouteQuestion(question, cat, tickers).Issuers); err != nil {
		return nil, err
	}
	return cat, nil
}

// loadFigures gives cat the figures of the filings of issuers.
func (e *Engine) loadFigures(ctx context.Context, cat *planner.Catalog, docs []corpus.Document, issuers []string) error {
	e.figures.mu.Lock()
	defer e.figures.mu.Unlock()
	if e.figures.entries == nil {
		e.figures.entries = map[string]*planner.IndexedFigures{}
	}
	for _, d := range docs {
		if !slices.Contains(issuers, d.Ticker) || cat.KnowsFigures(d.ID) {
			continue
		}
		entries, ok := e.figures.entries[d.ID]
		if !ok {
			facts, err := e.cfg.Store.Facts(ctx, corpus.FactFilter{DocumentID: d.ID})
			if err != nil {
				return fmt.Errorf("executor: read the figures of %s: %w", d.ID, err)
			}
			entries = planner.IndexFigures(planner.FigureEntries(facts))
			e.figures.entries[d.ID] = entries
		}
		cat.SetIndexedFigures(d.ID, entries)
	}
	return nil
}
