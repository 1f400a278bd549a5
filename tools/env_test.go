package tools

import (
	"context"
	"testing"

	"github.com/ledgerline/research/corpus"
)

// readOnlyCorpus is a CorpusReader and nothing more: no write method, and
// no way to reach the store behind it by a type assertion.
type readOnlyCorpus struct {
	r     CorpusReader
	calls map[string]int
}

func (c *readOnlyCorpus) Documents(ctx context.Context) ([]corpus.Document, error) {
	c.calls["Documents"]++
	return c.r.Documents(ctx)
}

func (c *readOnlyCorpus) Document(ctx context.Context, id string) (*corpus.Document, error) {
	c.calls["Document"]++
	return c.r.Document(ctx, id)
}

func (c *readOnlyCorpus) Chunks(ctx context.Context, ids []string) ([]corpus.SearchResult, error) {
	c.calls["Chunks"]++
	return c.r.Chunks(ctx, ids)
}

func (c *readOnlyCorpus) Facts(ctx context.Context, f corpus.FactFilter) ([]corpus.Fact, error) {
	c.calls["Facts"]++
	return c.r.Facts(ctx, f)
}

// TestToolsReadOnlyCorpus: every tool runs over a corpus it can only
// read, and reads it through Env.Store.
func TestToolsReadOnlyCorpus(t *testing.T) {
	store := newFixtureStore(t, acmeFilings()...)
	env := newEnv(t, store, Scope{Tickers: []string{"ACME"}})
	ro := &readOnlyCorpus{r: store, calls: map[string]int{}}
	env.Store = ro

	found := run(t, env, "s1", SearchFilings, map[string]any{"query": "revenue widgets", "tickers": []string{"ACME"}})
	if len(found.Evidence) == 0 {
		t.Fatal("search found nothing")
	}
	first := firstChunk(t, store, "ACME")
	if out := run(t, env, "r1", ReadChunks, map[string]any{"ids": []string{first}}); len(out.Evidence) != 1 {
		t.Errorf("read_chunks: %d passages, want 1", len(out.Evidence))
	}
	if out := run(t, env, "r2", ReadSurrounding, map[string]any{"id": first, "after": 1}); len(out.Evidence) == 0 {
		t.Error("read_surrounding read nothing")
	}
	if out := run(t, env, "l1", LookupFact, map[string]any{"ticker": "ACME", "concept": "Revenues", "period": "FY2024"}); len(out.Facts) == 0 {
		t.Error("lookup_fact found nothing")
	}
	calc := run(t, env, "c1", Calculate, map[string]any{"expression": "revenue * 2", "facts": map[string]any{
		"revenue": map[string]any{"ticker": "ACME", "concept": "Revenues", "period": "FY2024"},
	}})
	if calc.Calculation == nil {
		t.Error("calculate computed nothing")
	}
	for _, m := range []string{"Documents", "Document", "Chunks", "Facts"} {
		if ro.calls[m] == 0 {
			t.Errorf("no tool read the corpus's %s through Env.Store", m)
		}
	}
}
