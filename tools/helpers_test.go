package tools

import (
	"context"
	"encoding/json"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/internal/corpustest"
	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/ledger/embeddedledger"
)

func TestMain(m *testing.M) {
	code := m.Run()
	corpustest.Cleanup()
	os.Exit(code)
}

// newEnv returns an Env over store with a fresh embedded ledger and an
// open run, scoped to scope.
func newEnv(t *testing.T, store corpus.Store, scope Scope) *Env {
	t.Helper()
	lg, err := embeddedledger.Open(t.TempDir(), &embeddedledger.Config{Tenant: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lg.Close() })
	if _, _, err := lg.OpenRun(context.Background(), ledger.Run{ID: "run-1", Question: "test question"}); err != nil {
		t.Fatal(err)
	}
	if _, err := lg.AddRequirements(context.Background(), "run-1", []ledger.Requirement{
		{ID: "r1", Issuer: "AAPL", Period: "FY2024", Description: "revenue", CompletionCondition: "a fact"},
	}); err != nil {
		t.Fatal(err)
	}
	clock := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	return &Env{
		Store:    store,
		Searcher: corpus.NewSearcher(store, corpus.HashEmbedder{}),
		Ledger:   lg,
		RunID:    "run-1",
		Scope:    scope,
		Now: func() time.Time {
			mu.Lock()
			defer mu.Unlock()
			clock = clock.Add(time.Millisecond)
			return clock
		},
	}
}

// run runs one call and fails the test on an error.
func run(t *testing.T, env *Env, id, tool string, args any) *Output {
	t.Helper()
	out, err := Run(context.Background(), env, Call{ID: id, Tool: tool, Args: mustJSON(t, args)})
	if err != nil {
		t.Fatalf("%s %s: %v", tool, id, err)
	}
	return out
}

func mustJSON(t testing.TB, v any) json.RawMessage {
	t.Helper()
	if raw, ok := v.(string); ok {
		return json.RawMessage(raw)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// load returns the run's ledger.
func load(t *testing.T, env *Env) *ledger.RunLedger {
	t.Helper()
	l, err := env.Ledger.Load(context.Background(), env.RunID)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// checkRegistered fails unless every evidence item and fact of out is in
// the ledger, and every excerpt is the document's text at its span.
func checkRegistered(t *testing.T, env *Env, out *Output) {
	t.Helper()
	l := load(t, env)
	held := map[string]ledger.Evidence{}
	for _, e := range l.Evidence {
		held[e.ID] = e
	}
	facts := map[string]bool{}
	for _, f := range l.Facts {
		facts[f.ID] = true
	}
	texts := map[string]string{}
	for _, e := range out.Evidence {
		h, ok := held[e.ID]
		if !ok {
			t.Errorf("evidence %s is not in the ledger", e.ID)
			continue
		}
		if h.Excerpt != e.Excerpt || h.Start != e.Start || h.End != e.End {
			t.Errorf("evidence %s: the ledger holds another span", e.ID)
		}
		text, ok := texts[e.DocumentID]
		if !ok {
			doc, err := env.Store.Document(context.Background(), e.DocumentID)
			if err != nil {
				t.Fatal(err)
			}
			text = doc.Text
			texts[e.DocumentID] = text
		}
		if e.Excerpt != text[e.Start:e.End] {
			t.Errorf("evidence %s: excerpt is not the document's text at [%d, %d)", e.ID, e.Start, e.End)
		}
	}
	for _, f := range out.Facts {
		if !facts[f.ID] {
			t.Errorf("fact %s is not in the ledger", f.ID)
		}
	}
}
