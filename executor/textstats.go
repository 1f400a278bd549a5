package executor

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/planner"
)

// Bounds of the text statistics of a corpus.
const (
	statsMaxIssuers = 200 // the issuers whose filings are counted, most recent first
	statsReads      = 4   // documents read at once
)

// textStatsCache keeps the text statistics built for a set of documents.
// Documents are immutable (their id is the hash of their text), so the
// statistics of one set never go stale; a new set (a filing ingested)
// builds new ones, and the old are dropped once the new are built.
type textStatsCache struct {
	mu      sync.Mutex
	entries map[string]*textStatsEntry // guarded by mu; by statsKey of the documents counted
}

// textStatsEntry is the statistics of one set of documents, built once;
// done is closed when stats or err is set.
type textStatsEntry struct {
	done  chan struct{}
	stats *planner.TextStats
	err   error
}

// textStats returns the word and sentence statistics (planner.TextStats)
// of the corpus docs lists, as corpus.Store.Documents does.
//
// To bound the cost on a large store, it counts at most one filing per
// issuer, its latest 10-K (else its latest filing of any form), and at
// most 200 issuers, those whose counted filing is the most recent. Their
// texts are held while the statistics are built (some 0.3 s per 6 MB of
// text; see planner.BenchmarkTextStats), and about 1 MB is kept. The
// statistics are built once per set of counted documents and kept on the
// engine; runs that ask while they are being built wait for them (or for
// their own context to end).
func (e *Engine) textStats(ctx context.Context, docs []corpus.Document) (*planner.TextStats, error) {
	counted := statsDocuments(docs, statsMaxIssuers)
	key := statsKey(counted)
	for {
		c := &e.stats
		c.mu.Lock()
		ent, ok := c.entries[key]
		if !ok {
			if c.entries == nil {
				c.entries = map[string]*textStatsEntry{}
			}
			ent = &textStatsEntry{done: make(chan struct{})}
			c.entries[key] = ent
		}
		c.mu.Unlock()

		if !ok {
			c.build(key, ent, func() (*planner.TextStats, error) { return e.buildTextStats(ctx, counted) })
			return ent.stats, ent.err
		}

		select {
		case <-ent.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if ent.err == nil {
			return ent.stats, nil
		}
		// The builder failed, perhaps for its own context: try again
		// while ours lives.
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
}

// build sets ent from build and closes its done, even when build panics.
// A failed entry is dropped, so the next caller tries again; a built one
// replaces those of other sets of documents.
func (c *textStatsCache) build(key string, ent *textStatsEntry, build func() (*planner.TextStats, error)) {
	defer func() {
		if r := recover(); r != nil {
			ent.stats, ent.err = nil, fmt.Errorf("executor: text statistics: panic: %v", r)
		}
		c.mu.Lock()
		if ent.err != nil {
			delete(c.entries, key)
		} else {
			for k, other := range c.entries {
				if k != key && isDone(other) {
					delete(c.entries, k)
				}
			}
		}
		c.mu.Unlock()
		close(ent.done)
	}()
	ent.stats, ent.err = build()
}

func isDone(ent *textStatsEntry) bool {
	select {
	case <-ent.done:
		return true
	default:
		return false
	}
}

// buildTextStats reads the text of docs and counts it. The names masked
// in sentence shapes are each issuer's company and registrant names, its
// ticker and trading symbols, and the name a reader calls it by
// (Catalog.ShortName: "Costco" for "Costco Wholesale Corporation").
func (e *Engine) buildTextStats(ctx context.Context, docs []corpus.Document) (*planner.TextStats, error) {
	cat := planner.NewCatalog(docs)
	stats := make([]planner.StatsDoc, len(docs))
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(statsReads)
	for i, d := range docs {
		g.Go(func() error {
			full, err := e.cfg.Store.Document(ctx, d.ID)
			if err != nil {
				return fmt.Errorf("executor: read %s for text statistics: %w", d.ID, err)
			}
			names := []string{d.Company, d.Ticker, cat.ShortName(d.Ticker), full.Entity.Registrant}
			names = append(names, full.Entity.Symbols...)
			stats[i] = planner.StatsDoc{ID: d.ID, Issuer: d.Ticker, Text: full.Text, Names: names}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return planner.NewTextStats(stats), nil
}

// statsDocuments picks the documents textStats counts: for each issuer
// (documents without a ticker are left out) its latest 10-K by period end,
// else its latest filing; one filing ingested in several formats counts
// once, the inline-XBRL HTML before the text before the PDF. Of those, the
// maxIssuers most recent (by period end, then ticker) are kept, sorted by
// id.
func statsDocuments(docs []corpus.Document, maxIssuers int) []corpus.Document {
	better := func(a, b corpus.Document) bool { // a is counted rather than b
		if ak, bk := a.Form == "10-K", b.Form == "10-K"; ak != bk {
			return ak
		}
		if n := a.PeriodEnd.Compare(b.PeriodEnd); n != 0 {
			return n > 0
		}
		if n := a.Filed.Compare(b.Filed); n != 0 {
			return n > 0
		}
		if n := cmp.Compare(a.Format.Preference(), b.Format.Preference()); n != 0 {
			return n < 0
		}
		return a.ID < b.ID
	}
	latest := map[string]corpus.Document{}
	for _, d := range docs {
		if d.Ticker == "" {
			continue
		}
		if cur, ok := latest[d.Ticker]; !ok || better(d, cur) {
			latest[d.Ticker] = d
		}
	}
	out := make([]corpus.Document, 0, len(latest))
	for _, d := range latest {
		d.Text = ""
		out = append(out, d)
	}
	slices.SortFunc(out, func(a, b corpus.Document) int {
		return cmp.Or(b.PeriodEnd.Compare(a.PeriodEnd), cmp.Compare(a.Ticker, b.Ticker))
	})
	if len(out) > maxIssuers {
		out = out[:maxIssuers]
	}
	slices.SortFunc(out, func(a, b corpus.Document) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

// statsKey identifies a set of documents sorted by id: the hash of their
// ids.
func statsKey(docs []corpus.Document) string {
	h := sha256.New()
	for _, d := range docs {
		h.Write([]byte(d.ID))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}
