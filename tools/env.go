package tools

import (
	"context"
	"errors"
	"time"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/ledger"
)

// CorpusReader is what the tools read of a tenant's corpus, and all they
// may do with it: none of its methods writes. A corpus.Store is one.
type CorpusReader interface {
	// Documents lists the filings, without their Text.
	Documents(ctx context.Context) ([]corpus.Document, error)
	// Document returns one filing with its Text, or corpus.ErrNotFound.
	Document(ctx context.Context, id string) (*corpus.Document, error)
	// Chunks returns the chunks with the given ids, in the order asked;
	// unknown ids are skipped.
	Chunks(ctx context.Context, ids []string) ([]corpus.SearchResult, error)
	// Facts returns the facts matching f.
	Facts(ctx context.Context, f corpus.FactFilter) ([]corpus.Fact, error)
}

// Env is what a tool call runs against: one tenant's corpus and ledger,
// one run, and the run's scope. The stores must be the tenant's own
// (Scope.Tenant's); the tools never widen what they can see.
type Env struct {
	Store    CorpusReader     // the tenant's corpus
	Searcher *corpus.Searcher // hybrid search over Store
	Ledger   ledger.Store     // the tenant's ledger
	RunID    string           // the run, already opened in Ledger
	Scope    Scope            // what the run may read
	Now      func() time.Time // the clock for call times; nil means time.Now
	// Texts, when set, keeps the documents' text a lookup reads across
	// calls and runs; it must be Store's own (one tenant's). nil means
	// every lookup reads the texts it cites from Store.
	Texts *TextCache

	// Describe, when set, gives the words a failed call's error is
	// recorded and shown with (the run's ledger and events are read by
	// its tenant); nil means the error's own message.
	Describe func(error) string
}

func (e *Env) describe(err error) string {
	if e.Describe != nil {
		if s := e.Describe(err); s != "" {
			return s
		}
	}
	return err.Error()
}

func (e *Env) now() time.Time {
	if e.Now != nil {
		return e.Now()
	}
	return time.Now()
}

// validate reports a missing dependency: a programmer error, so the call
// is neither run nor recorded.
func (e *Env) validate() error {
	switch {
	case e == nil:
		return errors.New("tools: nil Env")
	case e.Store == nil:
		return errors.New("tools: Env.Store is nil")
	case e.Searcher == nil:
		return errors.New("tools: Env.Searcher is nil")
	case e.Ledger == nil:
		return errors.New("tools: Env.Ledger is nil")
	case e.RunID == "":
		return errors.New("tools: Env.RunID is empty")
	}
	return nil
}
