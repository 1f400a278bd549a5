package executor

import (
	"context"
	"errors"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/internal/corpustest"
	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/ledger/embeddedledger"
	"github.com/ledgerline/research/validator"
)

func TestMain(m *testing.M) {
	code := m.Run()
	corpustest.Cleanup()
	os.Exit(code)
}

// newEngine returns an engine over the shared sample corpus with a fresh
// embedded ledger; mod adjusts the configuration.
func newEngine(t *testing.T, mod func(*Config)) (*Engine, ledger.Store) {
	t.Helper()
	store := corpustest.Store(t)
	return newEngineOver(t, store, mod)
}

// newBenchEngine is newEngine for benchmarks; slots > 0 sets every
// semaphore (providers and tenant) to that many slots.
func newBenchEngine(b *testing.B, slots int) (*Engine, ledger.Store) {
	b.Helper()
	return newEngineOver(b, corpustest.Store(b), func(c *Config) {
		if slots > 0 {
			c.Concurrency = map[string]int{ProviderLLM: slots, ProviderSearch: slots, ProviderFacts: slots, ProviderCompute: slots}
			c.TenantConcurrency = slots
		}
	})
}

func newEngineOver(t testing.TB, store corpus.Store, mod func(*Config)) (*Engine, ledger.Store) {
	t.Helper()
	lg, err := embeddedledger.Open(t.TempDir(), &embeddedledger.Config{Tenant: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lg.Close() })
	cfg := Config{
		Store: store, Searcher: corpus.NewSearcher(store, corpus.HashEmbedder{}), Ledger: lg, Tenant: "acme",
	}
	if mod != nil {
		mod(&cfg)
	}
	eng, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return eng, lg
}

// checkResult asserts what every finished run must hold: each citation is
// registered evidence of the run and its excerpt verbatim, every [n] in
// the answer names a citation, and the ledger's status is the result's.
func checkResult(t *testing.T, lg ledger.Store, res *Result) *ledger.RunLedger {
	t.Helper()
	led, err := lg.Load(context.Background(), res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if led.Run.Status != res.Status {
		t.Errorf("ledger status %s, result status %s", led.Run.Status, res.Status)
	}
	ev := map[string]ledger.Evidence{}
	for _, e := range led.Evidence {
		ev[e.ID] = e
	}
	for _, c := range res.Citations {
		e, ok := ev[c.EvidenceID]
		if !ok {
			t.Errorf("citation [%d] names %s, not in the run's ledger", c.Index, c.EvidenceID)
			continue
		}
		if !validator.Verbatim(c.Excerpt, e.Excerpt) {
			t.Errorf("citation [%d] excerpt %q is not verbatim in %s", c.Index, c.Excerpt, c.EvidenceID)
		}
		if c.Ticker == "" || c.DocumentID == "" || c.PeriodEnd == "" {
			t.Errorf("citation [%d] lacks its source: %+v", c.Index, c)
		}
		if !strings.Contains(res.Answer, "["+itoa(c.Index)+"]") {
			t.Errorf("citation [%d] is not referenced by the answer", c.Index)
		}
	}
	return led
}

func itoa(n int) string { return strconv.Itoa(n) }

// downStore is a corpus whose searches fail for some tickers, as a search
// backend that stays down does; everything else works.
type downStore struct {
	corpus.Store
	tickers []string
}

func (s *downStore) down(f corpus.Filter) error {
	for _, t := range f.Tickers {
		if slices.Contains(s.tickers, t) {
			return errors.New("search backend unavailable (503)")
		}
	}
	return nil
}

func (s *downStore) FullTextSearch(ctx context.Context, q string, f corpus.Filter, k int) ([]corpus.SearchResult, error) {
	if err := s.down(f); err != nil {
		return nil, err
	}
	return s.Store.FullTextSearch(ctx, q, f, k)
}

func (s *downStore) VectorSearch(ctx context.Context, v []float32, f corpus.Filter, k int) ([]corpus.SearchResult, error) {
	if err := s.down(f); err != nil {
		return nil, err
	}
	return s.Store.VectorSearch(ctx, v, f, k)
}
