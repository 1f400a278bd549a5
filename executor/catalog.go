package executor

import (
	"context"
	"fmt"
	"sync"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/planner"
)

// figureCache keeps the figures each stored filing reports, read from its
// facts once per document: documents are immutable (their id is the hash
// of their text), so an entry never goes stale.
type figureCache struct {
	mu      sync.Mutex
	entries map[string][]planner.FigureEntry // guarded by mu; by document id
}

// catalog returns the planner's view of docs, with the figures each
// filing reports.
func (e *Engine) catalog(ctx context.Context, docs []corpus.Document) (*planner.Catalog, error) {
	cat := planner.NewCatalog(docs)
	e.figures.mu.Lock()
	defer e.figures.mu.Unlock()
	if e.figures.entries == nil {
		e.figures.entries = map[string][]planner.FigureEntry{}
	}
	for _, d := range docs {
		entries, ok := e.figures.entries[d.ID]
		if !ok {
			facts, err := e.cfg.Store.Facts(ctx, corpus.FactFilter{DocumentID: d.ID})
			if err != nil {
				return nil, fmt.Errorf("executor: read the figures of %s: %w", d.ID, err)
			}
			entries = planner.FigureEntries(facts)
			e.figures.entries[d.ID] = entries
		}
		cat.SetFigures(d.ID, entries)
	}
	return cat, nil
}
