package server

import (
	"context"

	"github.com/ledgerline/research/budget"
	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/corpus/pgstore"
	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/ledger/pgledger"
)

// runReader is what the API reads of a tenant's ledger: its latest runs,
// a run, its event log, and everything it recorded (its evidence among
// it). The API writes nothing there: workers and a local server's runner
// do.
type runReader interface {
	Runs(ctx context.Context, limit int) ([]ledger.Run, error)
	Run(ctx context.Context, runID string) (ledger.Run, error)
	Events(ctx context.Context, runID string) ([]ledger.Event, error)
	Load(ctx context.Context, runID string) (*ledger.RunLedger, error)
}

// corpusReader is what the API reads of a tenant's corpus: its filings,
// one of them whole, and hybrid search over them. Ingestion is a command's
// business, never the API's.
type corpusReader interface {
	Documents(ctx context.Context) ([]corpus.Document, error)
	Document(ctx context.Context, id string) (*corpus.Document, error)
	Search(ctx context.Context, req corpus.SearchRequest) ([]corpus.SearchResult, error)
}

// budgetReader is what the API reads of a tenant's budgets: one scope's
// audit, and what many scopes settled. Reservations and settlements are
// the workers' business.
type budgetReader interface {
	Usage(ctx context.Context, scope budget.Scope) (budget.Usage, error)
	Settled(ctx context.Context, scopes []budget.Scope) (map[budget.Scope]budget.Amounts, error)
}

// ledgerOf is the tenant's ledger: in Postgres, or the embedded one of a
// local server. These three functions are where the API picks the stores
// it reads runs, filings and budgets through.
func (s *Server) ledgerOf(tenant string) (runReader, error) {
	if s.local != nil {
		return s.local.t.Ledger, nil
	}
	return pgledger.New(s.pool, &pgledger.Config{Tenant: tenant})
}

// corpusOf is the tenant's corpus, searched with Config.Embedder.
func (s *Server) corpusOf(tenant string) (corpusReader, error) {
	if s.local != nil {
		return searchableCorpus{s.local.t.Store, s.cfg.Embedder}, nil
	}
	store, err := pgstore.New(s.pool, &pgstore.Config{Tenant: tenant})
	if err != nil {
		return nil, err
	}
	return searchableCorpus{store, s.cfg.Embedder}, nil
}

// budgetsOf is the tenant's budgets, in Postgres (a local server keeps
// its budgets in its engine's memory and audits runs from their results).
func (s *Server) budgetsOf(tenant string) (budgetReader, error) {
	return budget.NewPostgres(s.pool, &budget.Config{Tenant: tenant})
}

// searchableCorpus reads a corpus store and searches it.
type searchableCorpus struct {
	store    corpus.Store
	embedder corpus.Embedder
}

func (c searchableCorpus) Documents(ctx context.Context) ([]corpus.Document, error) {
	return c.store.Documents(ctx)
}

func (c searchableCorpus) Document(ctx context.Context, id string) (*corpus.Document, error) {
	return c.store.Document(ctx, id)
}

func (c searchableCorpus) Search(ctx context.Context, req corpus.SearchRequest) ([]corpus.SearchResult, error) {
	return corpus.NewSearcher(c.store, c.embedder).Search(ctx, req)
}
