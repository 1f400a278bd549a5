package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ledgerline/research/configs"
	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/edgar"
	"github.com/ledgerline/research/engine"
	"github.com/ledgerline/research/executor"
	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/planner"
)

// askFetch is research ask's --fetch: before planning, the issuers the
// question names that the corpus lacks but the SEC's issuer list knows
// are fetched from EDGAR (their latest 10-K and 10-Q, or those of the
// fiscal years the question names), within a share of the run's
// wall-clock budget. Fetching is never implicit: without --fetch the
// answer names the missing issuers and the research fetch command that
// adds them.
type askFetch struct {
	enabled bool
	sec     secFlags
	by      string // who fetches, for the fetch log; "" means research ask --fetch
}

// EventFetch is the ledger event kind of a fetch made for a run.
const EventFetch ledger.EventKind = "edgar_fetch"

// fetchShare is the part of the run's wall-clock budget a fetch before
// planning may take; the run keeps the rest. A fetch cut short is
// resumable: what it stored stays, and the next fetch does what is left.
const fetchShare = 2

func (a *askFetch) register(fs *flag.FlagSet) {
	fs.BoolVar(&a.enabled, "fetch", false, "before planning, fetch from SEC EDGAR the issuers the question names that the corpus lacks "+
		"(their latest 10-K and 10-Q, or those of the fiscal years named), within half of --timeout; needs --user-agent; not with --dry-run, which fetches nothing")
	a.sec.register(fs)
}

// askFetchResult is what a fetch before a run did.
type askFetchResult struct {
	tickers []string
	opts    *edgar.FetchOpts
	report  *edgar.Report
	err     error // the fetch stopped early (its deadline); what it stored is used
	log     string
}

// run fetches the question's missing issuers into the store, and returns
// nil when there is nothing to fetch. Progress goes to progress (nil for
// none). The error is for what must stop the ask: a missing User-Agent,
// a store that fails.
func (a *askFetch) run(ctx context.Context, sf *storeFlags, question string, tickers []string, budget time.Duration, progress io.Writer) (*askFetchResult, error) {
	if !edgar.ValidUserAgent(a.sec.userAgent) {
		return nil, fmt.Errorf("--fetch: %w", errNoUserAgent)
	}
	store, emb, closeStore, err := sf.open(ctx)
	if err != nil {
		return nil, err
	}
	defer closeStore()
	return a.fetchInto(ctx, sf, store, emb, question, tickers, budget, progress)
}

// fetchInto is run over an open store: what a server's or a worker's
// engine does before each run when fetching is on (fetchPreparer).
func (a *askFetch) fetchInto(ctx context.Context, sf *storeFlags, store corpus.Store, emb corpus.Embedder, question string, tickers []string,
	budget time.Duration, progress io.Writer) (*askFetchResult, error) {
	docs, err := store.Documents(ctx)
	if err != nil {
		return nil, err
	}
	rt := planner.RouteQuestion(question, planner.NewCatalog(docs), tickers)
	if rt.Refused {
		return nil, nil
	}
	fcfg, err := fetcherConfig(sf.dataDir)
	if err != nil {
		return nil, err
	}
	list := fcfg.Issuers
	if list == nil {
		if list, err = configs.Issuers(); err != nil {
			return nil, err
		}
	}
	var missing, named []string
	for _, nc := range rt.NotCovered {
		t, _, _ := strings.Cut(nc, " (")
		if e, ok := list.Lookup(strings.TrimSpace(t)); ok && !slices.Contains(missing, e.Ticker) {
			missing = append(missing, e.Ticker)
			named = append(named, nc)
		}
	}
	if len(missing) == 0 {
		return nil, nil
	}
	opts := &edgar.FetchOpts{Tickers: missing, Forms: edgar.DefaultForms, Progress: progress}
	what := "latest 10-K and 10-Q"
	if len(rt.FiscalYears) > 0 {
		opts.Since, opts.Until = slices.Min(rt.FiscalYears), slices.Max(rt.FiscalYears)
		what = "10-K and 10-Q filings of " + yearsLabel(opts.Since, opts.Until)
	} else {
		opts.Latest = 1
	}
	client, err := a.sec.client(sf.dataDir, false, progress == nil, progressOrDiscard(progress))
	if err != nil {
		return nil, err
	}
	share := budget / fetchShare
	if progress != nil {
		fmt.Fprintf(progress, "fetch: %s not in the corpus; fetching the %s from SEC EDGAR (within %s, at most %g requests a second, cached in %s)\n",
			strings.Join(named, ", "), what, share, a.sec.rps, a.sec.cacheDir)
	}
	fctx, cancel := context.WithTimeout(ctx, share)
	defer cancel()
	by := a.by
	if by == "" {
		by = "research ask --fetch"
	}
	report, err := fetchAndLog(fctx, sf, &a.sec, client, store, emb, opts, by)
	res := &askFetchResult{tickers: missing, opts: opts, report: report, log: a.sec.log(sf.dataDir)}
	switch {
	case err == nil:
	case ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded):
		res.err = fmt.Errorf("the fetch stopped at its share of the wall-clock budget (%s); what it stored is used, and the next fetch does what is left", share)
	default:
		return res, err
	}
	if progress != nil && report != nil {
		printFetchSummary(progress, report)
		if res.err != nil {
			fmt.Fprintln(progress, "fetch:", res.err)
		}
	}
	return res, nil
}

func progressOrDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

func yearsLabel(since, until int) string {
	if since == until {
		return fmt.Sprintf("fiscal %d", since)
	}
	return fmt.Sprintf("fiscal %d-%d", since, until)
}

// note says in one sentence what the fetch did, for the run's notes.
func (r *askFetchResult) note() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Fetched from SEC EDGAR before planning (%s): ", strings.Join(r.tickers, ", "))
	if r.report == nil {
		b.WriteString("nothing")
	} else {
		rep := r.report
		fmt.Fprintf(&b, "%d filings selected, %d ingested, %d already stored, %d failed", rep.Selected, rep.Added, rep.Stored+rep.Unchanged+rep.Duplicates, rep.Failed)
		for _, is := range rep.Issuers {
			if is.Err != nil {
				fmt.Fprintf(&b, "; %v", is.Err)
			}
		}
	}
	if r.err != nil {
		fmt.Fprintf(&b, "; %v", r.err)
	}
	fmt.Fprintf(&b, ". Recorded in %s.", r.log)
	return b.String()
}

// record appends the fetch to the run's ledger events (event).
func (r *askFetchResult) record(ctx context.Context, lg ledger.Store, runID string) error {
	ev, err := r.event()
	if err != nil {
		return err
	}
	_, err = lg.AppendEvent(ctx, runID, ev)
	return err
}

// event is the fetch as an event of the run's ledger: the note, and the
// filings with their outcomes and document ids as data.
func (r *askFetchResult) event() (ledger.Event, error) {
	type filing struct {
		Ticker     string `json:"ticker"`
		Form       string `json:"form"`
		Accession  string `json:"accession"`
		PeriodEnd  string `json:"period_end"`
		URL        string `json:"url"`
		Outcome    string `json:"outcome"`
		DocumentID string `json:"document_id,omitempty"`
		Error      string `json:"error,omitempty"`
	}
	data := struct {
		Tickers  []string `json:"tickers"`
		Forms    []string `json:"forms"`
		Since    int      `json:"since,omitempty"`
		Until    int      `json:"until,omitempty"`
		Latest   int      `json:"latest,omitempty"`
		Filings  []filing `json:"filings"`
		Requests int      `json:"requests"`
		Cached   int      `json:"answered_from_cache"`
		NotMod   int      `json:"not_modified"`
		FetchLog string   `json:"fetch_log"`
	}{Tickers: r.tickers, Forms: r.opts.Forms, Since: r.opts.Since, Until: r.opts.Until, Latest: r.opts.Latest, Filings: []filing{}, FetchLog: r.log}
	if r.report != nil {
		for _, f := range r.report.Filings {
			fl := filing{Ticker: f.Ticker, Form: f.Filing.Form, Accession: f.Filing.Accession, PeriodEnd: f.Filing.PeriodEnd.Format(time.DateOnly),
				URL: f.URL, Outcome: string(f.Outcome), DocumentID: f.DocumentID}
			if f.Err != nil {
				fl.Error = f.Err.Error()
			}
			data.Filings = append(data.Filings, fl)
		}
		data.Requests, data.Cached, data.NotMod = r.report.Client.Requests, r.report.Client.CacheHits, r.report.Client.NotModified
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return ledger.Event{}, err
	}
	return ledger.Event{Kind: EventFetch, Message: r.note(), Data: raw}, nil
}

// fetchMissing is the --fetch-missing setting of research serve and
// research worker: off by default; on, every new run first fetches the
// issuers its question names that the tenant's corpus lacks, as ask
// --fetch does, and records the fetch in the run's ledger.
type fetchMissing struct {
	askFetch
}

func (f *fetchMissing) register(fs *flag.FlagSet, command string) {
	f.by = "research " + command + " --fetch-missing"
	fs.BoolVar(&f.enabled, "fetch-missing", false, "before each run, fetch from SEC EDGAR the issuers its question names that the corpus lacks "+
		"(their latest 10-K and 10-Q, or those of the fiscal years named), within half of the run's wall-clock budget, "+
		"and record the fetch in the run's ledger; needs --user-agent. Off by default: fetching is never implicit")
	f.sec.register(fs)
}

// check refuses --fetch-missing without a User-Agent the SEC accepts,
// before the process starts serving.
func (f *fetchMissing) check() error {
	if f.enabled && !edgar.ValidUserAgent(f.sec.userAgent) {
		return fmt.Errorf("--fetch-missing: %w", errNoUserAgent)
	}
	return nil
}

// preparer returns the engine's Prepare for the setting (nil when off):
// the fetch goes into the tenant's own store, with emb, the embedder the
// engine searches with; dataDir holds the SEC cache and the fetch log,
// and db, when set, names the tenant in the log.
func (f *fetchMissing) preparer(dataDir, db string, emb corpus.Embedder) func(context.Context, string, *engine.Tenant, executor.Request, time.Duration) (ledger.Event, error) {
	if !f.enabled {
		return nil
	}
	var mu sync.Mutex // one fetch at a time: they share the SEC's rate limit and the log
	return func(ctx context.Context, tenant string, t *engine.Tenant, req executor.Request, within time.Duration) (ledger.Event, error) {
		mu.Lock()
		defer mu.Unlock()
		sf := &storeFlags{dataDir: dataDir, db: db, tenant: tenant}
		// The run's context ends the fetch at its share already.
		res, err := f.fetchInto(ctx, sf, t.Store, emb, req.Question, req.Tickers, within*fetchShare, nil)
		if res == nil {
			return ledger.Event{}, err
		}
		ev, eerr := res.event()
		return ev, errors.Join(err, eerr)
	}
}
