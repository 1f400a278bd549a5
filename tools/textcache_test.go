package tools

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ledgerline/research/corpus"
)

// countingReader counts the documents read from the store.
type countingReader struct {
	corpus.Store
	reads atomic.Int64
}

func (r *countingReader) Document(ctx context.Context, id string) (*corpus.Document, error) {
	r.reads.Add(1)
	return r.Store.Document(ctx, id)
}

// A lookup with a TextCache reads a filing's text from the store once
// across calls and runs, and cites the same lines as one without.
func TestTextCacheReadsEachFilingOnce(t *testing.T) {
	store := newFixtureStore(t, acmeFilings()...)
	scope := Scope{Tenant: "acme", Tickers: []string{"ACME"}}
	args := map[string]any{"ticker": "ACME", "concept": "Revenues", "period": "FY2024"}

	plain := &countingReader{Store: store}
	env := newEnv(t, store, scope)
	env.Store = plain
	want := run(t, env, "l1", LookupFact, args)

	cached := &countingReader{Store: store}
	cache := NewTextCache(0)
	var first int64
	for i := range 3 { // three runs, each with its own ledger
		env := newEnv(t, store, scope)
		env.Store, env.Texts = cached, cache
		got := run(t, env, fmt.Sprintf("l%d", i), LookupFact, args)
		if got.Text != want.Text {
			t.Fatalf("run %d with the cache answered\n%s\nwithout\n%s", i, got.Text, want.Text)
		}
		if i == 0 {
			first = cached.reads.Load()
		}
	}
	if first == 0 || cached.reads.Load() != first {
		t.Errorf("%d texts read in the first run, %d in all three: want the later runs to read none", first, cached.reads.Load())
	}
	if cache.Len() != int(first) {
		t.Errorf("cache keeps %d texts, want %d", cache.Len(), first)
	}
}

// The cache holds at most its size, dropping the least recently used,
// and never keeps a text larger than itself.
func TestTextCacheBound(t *testing.T) {
	text := func(c byte) *docText { return newDocText(strings.Repeat(string(c), 100)) }
	c := NewTextCache(400) // room for two of the texts below, not three
	c.put("a", text('a'))
	c.put("b", text('b'))
	if _, ok := c.get("a"); !ok { // a is now the most recently used
		t.Fatal("a dropped before the cache was full")
	}
	c.put("c", text('c'))
	if _, ok := c.get("b"); ok {
		t.Error("b kept: it was the least recently used")
	}
	for _, id := range []string{"a", "c"} {
		if _, ok := c.get(id); !ok {
			t.Errorf("%s dropped", id)
		}
	}
	c.put("big", newDocText(strings.Repeat("x", 500)))
	if _, ok := c.get("big"); ok || c.Len() != 2 {
		t.Errorf("a text larger than the cache was kept (%d kept)", c.Len())
	}
	var none *TextCache
	none.put("a", text('a'))
	if _, ok := none.get("a"); ok {
		t.Error("a nil cache kept a text")
	}
}
