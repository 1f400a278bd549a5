package edgar

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/ledgerline/research/configs"
	"github.com/ledgerline/research/corpus"
)

// ErrUnknownTicker is the error of an issuer asked for by a ticker the
// issuer list lacks.
var ErrUnknownTicker = errors.New("not in the SEC issuer list")

// Ingester ingests manifest entries; *corpus.Ingester is one.
type Ingester interface {
	Ingest(ctx context.Context, entries []corpus.ManifestEntry, opts *corpus.IngestOpts) (*corpus.IngestReport, error)
}

// FilingFinder finds a stored filing; every corpus.Store is one.
type FilingFinder interface {
	FindFiling(ctx context.Context, ticker, form string, periodEnd time.Time) (*corpus.Document, error)
}

// Store is what a fetcher needs of the corpus store: to find the filings
// it holds, and to add the documents of company facts. Every corpus.Store
// is one.
type Store interface {
	FilingFinder
	AddDocument(ctx context.Context, doc *corpus.Document, chunks []corpus.Chunk, facts []corpus.Fact) (bool, error)
}

// Fetcher lists an issuer's filings on EDGAR, downloads the ones asked for
// and ingests them. Filings already stored are neither downloaded nor
// ingested again, and downloads are cached, so a fetch run again, or
// restarted after it was killed, does only what is left.
type Fetcher struct {
	client   *Client
	store    Store
	ingester Ingester
	issuers  *configs.IssuerList
}

// FetcherConfig configures a Fetcher. The zero value is valid.
type FetcherConfig struct {
	// Issuers resolves tickers to CIKs; nil means the list embedded in the
	// binary (configs.Issuers).
	Issuers *configs.IssuerList
}

// NewFetcher returns a fetcher that downloads through client, skips
// filings store already holds and ingests with ingester.
func NewFetcher(client *Client, store Store, ingester Ingester, cfg *FetcherConfig) (*Fetcher, error) {
	if client == nil || store == nil || ingester == nil {
		return nil, errors.New("edgar: a fetcher needs a client, a store and an ingester")
	}
	if cfg == nil {
		cfg = &FetcherConfig{}
	}
	issuers := cfg.Issuers
	if issuers == nil {
		var err error
		if issuers, err = configs.Issuers(); err != nil {
			return nil, err
		}
	}
	return &Fetcher{client: client, store: store, ingester: ingester, issuers: issuers}, nil
}

// FetchOpts says what to fetch.
type FetchOpts struct {
	Tickers []string // resolved with the issuer list
	CIKs    []int    // issuers by CIK; their ticker comes from the SEC's data
	// Forms to select, exact ("10-K" does not select "10-K/A": an
	// amendment is its own filing, fetched when its form is asked for);
	// empty means 10-K and 10-Q.
	Forms []string
	Since int // first fiscal year; 0 means no lower bound
	Until int // last fiscal year; 0 means no upper bound
	// Latest keeps, of each form, only the most recent filings of an
	// issuer within the years asked for; 0 means all of them.
	Latest int
	// Facts also reads each issuer's company facts and stores the values
	// of every filing of the forms and years asked for (Latest aside) whose
	// own document the store lacks; see FactsDocument.
	Facts bool
	// Concurrency is the number of downloads and ingests in flight; 0
	// means 4. However many, the client's rate limit holds across them.
	Concurrency int
	Progress    io.Writer // progress lines; nil means none
}

// DefaultForms are the forms fetched when none are named.
var DefaultForms = []string{"10-K", "10-Q"}

func (o *FetchOpts) validate() error {
	if len(o.Tickers) == 0 && len(o.CIKs) == 0 {
		return errors.New("edgar: no issuer to fetch: name a ticker or a CIK")
	}
	for _, f := range o.Forms {
		if !corpus.ValidForm(f) {
			return fmt.Errorf("edgar: form %q is not one the ingester reads (10-K, 10-Q, 10-K/A, 10-Q/A, 20-F, 40-F, 8-K, ...)", f)
		}
	}
	if o.Latest < 0 {
		return fmt.Errorf("edgar: latest %d is negative", o.Latest)
	}
	if o.Until != 0 && o.Since > o.Until {
		return fmt.Errorf("edgar: since %d is after until %d", o.Since, o.Until)
	}
	for _, c := range o.CIKs {
		if c <= 0 {
			return fmt.Errorf("edgar: CIK %d is not a positive integer", c)
		}
	}
	return nil
}

// FilingOutcome says what a fetch did with one filing.
type FilingOutcome string

// Outcomes of fetching one filing.
const (
	OutcomeStored    FilingOutcome = "stored"    // already in the store: neither downloaded nor ingested
	OutcomeAdded     FilingOutcome = "added"     // ingested now
	OutcomeUnchanged FilingOutcome = "unchanged" // the ingester found the same text stored
	OutcomeDuplicate FilingOutcome = "duplicate" // the ingester found the same filing stored from another source
	OutcomeFailed    FilingOutcome = "failed"    // see Err
)

// FilingResult is what happened to one selected filing.
type FilingResult struct {
	Ticker     string
	Company    string
	Filing     Filing
	URL        string
	Outcome    FilingOutcome
	FromCache  bool  // the document came from the cache, not the network
	Bytes      int64 // the document's size
	DocumentID string
	Err        error
}

// IssuerResult is what a fetch found for one issuer.
type IssuerResult struct {
	Asked    string // the ticker or CIK as asked
	CIK      int
	Ticker   string
	Company  string
	Listed   int // filings the SEC lists for the issuer (on the pages read)
	Selected int // of those, the forms and years asked for
	Facts    int // company facts read; with FetchOpts.Facts
	Err      error
}

// FactsOutcome says what a fetch did with the company facts of one filing.
type FactsOutcome string

// Outcomes of storing one filing's company facts.
const (
	FactsAdded  FactsOutcome = "added"  // stored now as a company facts document
	FactsStored FactsOutcome = "stored" // its company facts document was already stored
	FactsOwn    FactsOutcome = "own"    // the filing's own document is stored: the facts of its text serve, and win
)

// FactsResult is what happened to the company facts of one filing.
type FactsResult struct {
	Ticker     string
	Filing     Filing
	Outcome    FactsOutcome
	Values     int    // values the company facts list for the filing
	DocumentID string // the company facts document, or the filing's own
}

// Report sums up a fetch.
type Report struct {
	Issuers     []IssuerResult
	Filings     []FilingResult
	Selected    int
	Stored      int // already stored before the fetch
	Downloaded  int // documents downloaded now
	Cached      int // documents read from the cache
	Added       int
	Unchanged   int
	Duplicates  int
	Failed      int // filings that failed (issuers that failed are in Issuers)
	Bytes       int64
	Facts       int           // company facts read
	FactFilings []FactsResult // with FetchOpts.Facts: per filing the company facts list
	FactsAdded  int           // filings whose company facts were stored now
	// Accesses are the requests the fetch made, in the order they ended:
	// its audit trail (see LogRecord).
	Accesses []Access
	Client   Stats         // requests, 304s, bytes and waits of the fetch
	Download time.Duration // listing and downloading, wall clock
	Ingest   time.Duration // reading, parsing, embedding and storing, wall clock
	Elapsed  time.Duration
}

// Err joins the errors of the issuers and filings that failed, or returns nil.
func (r *Report) Err() error {
	var errs []error
	for _, is := range r.Issuers {
		if is.Err != nil {
			errs = append(errs, is.Err)
		}
	}
	for _, f := range r.Filings {
		if f.Err != nil {
			errs = append(errs, f.Err)
		}
	}
	return errors.Join(errs...)
}

// Fetch lists the issuers' filings, downloads the selected ones not yet
// stored and ingests them. An issuer or filing that fails is recorded in
// the report and does not stop the others. The error is non-nil only when
// the fetch as a whole could not go on (bad options, the store failed,
// ctx ended); the report then says how far it got.
func (f *Fetcher) Fetch(ctx context.Context, opts *FetchOpts) (*Report, error) {
	if opts == nil {
		opts = &FetchOpts{}
	}
	if err := opts.validate(); err != nil {
		return nil, err
	}
	forms := opts.Forms
	if len(forms) == 0 {
		forms = DefaultForms
	}
	conc := opts.Concurrency
	if conc <= 0 {
		conc = 4
	}
	start := time.Now()
	before := f.client.Stats()
	p := &printer{w: opts.Progress}
	report := &Report{}
	var accessMu sync.Mutex
	obs := func(a Access) {
		accessMu.Lock()
		defer accessMu.Unlock()
		report.Accesses = append(report.Accesses, a)
	}

	// Issuers, then their filings: listing is a few requests per issuer.
	for _, t := range opts.Tickers {
		report.Issuers = append(report.Issuers, f.resolveTicker(t))
	}
	for _, c := range opts.CIKs {
		report.Issuers = append(report.Issuers, IssuerResult{Asked: "CIK " + strconv.Itoa(c), CIK: c})
	}
	// An issuer asked for twice (by two of its tickers, or by ticker and
	// CIK) is fetched once.
	seen := map[int]bool{}
	report.Issuers = slices.DeleteFunc(report.Issuers, func(is IssuerResult) bool {
		dup := is.CIK != 0 && seen[is.CIK]
		seen[is.CIK] = true
		return dup
	})
	// The issuers are listed concurrently (the limiter paces them), and
	// reported in the order asked.
	listed := make([][]Filing, len(report.Issuers))
	inRange := make([][]Filing, len(report.Issuers))
	lg, lctx := errgroup.WithContext(ctx)
	lg.SetLimit(conc)
	for i := range report.Issuers {
		is := &report.Issuers[i]
		if is.Err != nil {
			continue
		}
		lg.Go(func() error {
			filings, err := f.listFilings(lctx, is, forms, opts.Since, opts.Until, obs)
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				is.Err = fmt.Errorf("%s: %w", is.Asked, err)
				return nil
			}
			listed[i], inRange[i] = latest(filings, opts.Latest), filings
			return nil
		})
	}
	if err := lg.Wait(); err != nil {
		return f.finish(report, before, start), err
	}
	var selected []FilingResult
	for i := range report.Issuers {
		is := &report.Issuers[i]
		if is.Err != nil {
			p.printf("%v\n", is.Err)
			continue
		}
		filings := listed[i]
		is.Selected = len(filings)
		p.printf("%s (CIK %d, %s): %d filings listed, %d selected (%s, %s)\n",
			is.Ticker, is.CIK, is.Company, is.Listed, is.Selected, strings.Join(forms, ","), yearRange(opts.Since, opts.Until))
		for _, fl := range filings {
			selected = append(selected, FilingResult{
				Ticker: is.Ticker, Company: is.Company, Filing: fl, URL: f.client.BaseURL() + fl.ArchivePath(),
			})
		}
	}
	report.Selected = len(selected)

	// Filings already stored are done; the rest are downloaded, with as
	// many in flight as asked and the client's limiter pacing them.
	var todo []int
	for i := range selected {
		r := &selected[i]
		doc, err := f.store.FindFiling(ctx, r.Ticker, r.Filing.Form, r.Filing.PeriodEnd)
		switch {
		case err == nil:
			r.Outcome, r.DocumentID = OutcomeStored, doc.ID
		case errors.Is(err, corpus.ErrNotFound):
			todo = append(todo, i)
		default:
			report.Filings = selected
			return f.finish(report, before, start), err
		}
	}
	if n := len(selected) - len(todo); n > 0 {
		p.printf("%d of %d selected filings already stored\n", n, len(selected))
	}
	entries := f.download(ctx, selected, todo, conc, p, obs)
	report.Download = time.Since(start)
	if err := ctx.Err(); err != nil {
		report.Filings = selected
		return f.finish(report, before, start), err
	}

	// Ingest what was downloaded, through the corpus pipeline.
	if len(entries) > 0 {
		ingestStart := time.Now()
		in := make([]corpus.ManifestEntry, len(entries))
		for i, e := range entries {
			in[i] = e.entry
		}
		ir, err := f.ingester.Ingest(ctx, in, &corpus.IngestOpts{Concurrency: conc, Progress: opts.Progress})
		report.Ingest = time.Since(ingestStart)
		if ir != nil {
			for i, res := range ir.Results {
				r := &selected[entries[i].index]
				r.DocumentID = res.DocumentID
				switch res.Outcome {
				case corpus.Added:
					r.Outcome = OutcomeAdded
				case corpus.Unchanged:
					r.Outcome = OutcomeUnchanged
				case corpus.Duplicate:
					r.Outcome, r.DocumentID = OutcomeDuplicate, res.KeptID
				case corpus.Failed:
					r.Outcome, r.Err = OutcomeFailed, fmt.Errorf("%s %s %s: %w", r.Ticker, r.Filing.Form, r.Filing.Accession, res.Err)
				}
			}
		}
		if err != nil {
			report.Filings = selected
			return f.finish(report, before, start), err
		}
	}
	report.Filings = selected

	if opts.Facts {
		for i := range report.Issuers {
			is := &report.Issuers[i]
			if is.Err != nil {
				continue
			}
			url := f.companyFactsURL(is.CIK)
			raw, err := f.getBytes(ctx, url, &GetOpts{Observe: obs})
			var facts *CompanyFacts
			if err == nil {
				facts, err = ParseCompanyFacts(raw)
			}
			if err != nil {
				if ctx.Err() != nil {
					return f.finish(report, before, start), ctx.Err()
				}
				is.Err = fmt.Errorf("%s: company facts: %w", is.Asked, err)
				p.printf("%v\n", is.Err)
				continue
			}
			is.Facts = len(facts.Facts)
			results, err := f.storeFacts(ctx, is, inRange[i], facts, url)
			report.FactFilings = append(report.FactFilings, results...)
			if err != nil {
				return f.finish(report, before, start), err
			}
			var added, kept, own int
			for _, r := range results {
				switch r.Outcome {
				case FactsAdded:
					added++
				case FactsStored:
					kept++
				case FactsOwn:
					own++
				}
			}
			p.printf("%s: %d company facts on %d concepts; the values of %d filings stored now, %d already stored, %d read from the filings' own text\n",
				is.Ticker, len(facts.Facts), countConcepts(facts.Facts), added, kept, own)
		}
	}
	return f.finish(report, before, start), nil
}

func (f *Fetcher) finish(r *Report, before Stats, start time.Time) *Report {
	r.Stored, r.Downloaded, r.Cached, r.Added, r.Unchanged, r.Duplicates, r.Failed, r.Bytes, r.Facts = 0, 0, 0, 0, 0, 0, 0, 0, 0
	for _, fr := range r.Filings {
		switch fr.Outcome {
		case OutcomeStored:
			r.Stored++
		case OutcomeAdded:
			r.Added++
		case OutcomeUnchanged:
			r.Unchanged++
		case OutcomeDuplicate:
			r.Duplicates++
		case OutcomeFailed:
			r.Failed++
		}
		if fr.Outcome != OutcomeStored && fr.Bytes > 0 {
			if fr.FromCache {
				r.Cached++
			} else {
				r.Downloaded++
			}
			r.Bytes += fr.Bytes
		}
	}
	for _, is := range r.Issuers {
		r.Facts += is.Facts
	}
	r.FactsAdded = 0
	for _, fr := range r.FactFilings {
		if fr.Outcome == FactsAdded {
			r.FactsAdded++
		}
	}
	after := f.client.Stats()
	r.Client = Stats{
		Requests: after.Requests - before.Requests, Downloads: after.Downloads - before.Downloads,
		NotModified: after.NotModified - before.NotModified, CacheHits: after.CacheHits - before.CacheHits,
		Retries: after.Retries - before.Retries, Bytes: after.Bytes - before.Bytes, WireBytes: after.WireBytes - before.WireBytes,
		LimiterWait: after.LimiterWait - before.LimiterWait, Transfer: after.Transfer - before.Transfer,
	}
	r.Elapsed = time.Since(start)
	return r
}

func (f *Fetcher) resolveTicker(t string) IssuerResult {
	is := IssuerResult{Asked: strings.TrimSpace(t)}
	e, ok := f.issuers.Lookup(t)
	if !ok {
		is.Err = fmt.Errorf("ticker %q: %w (run `research fetch --refresh-issuers` for the current list, or give --cik)", is.Asked, ErrUnknownTicker)
		return is
	}
	is.CIK, is.Ticker, is.Company = e.CIK, e.Ticker, e.Title
	return is
}

// listFilings reads the issuer's submissions, and the older pages that may
// hold filings of the years asked for, and returns the filings selected.
// It fills in the issuer's ticker and company from the SEC's data when the
// issuer was asked for by CIK.
func (f *Fetcher) listFilings(ctx context.Context, is *IssuerResult, forms []string, since, until int, obs func(Access)) ([]Filing, error) {
	raw, err := f.getBytes(ctx, fmt.Sprintf("%s/submissions/CIK%010d.json", f.client.DataURL(), is.CIK), &GetOpts{Observe: obs})
	if err != nil {
		return nil, err
	}
	sub, err := ParseSubmissions(raw)
	if err != nil {
		return nil, err
	}
	if sub.Name != "" {
		is.Company = sub.Name
	}
	if is.Ticker == "" {
		if es := f.issuers.ByCIK(is.CIK); len(es) > 0 {
			is.Ticker = es[0].Ticker
		} else if len(sub.Tickers) > 0 {
			is.Ticker = configs.NormalizeTicker(sub.Tickers[0])
		}
		if is.Ticker == "" || !corpus.ValidTicker(is.Ticker) {
			return nil, fmt.Errorf("CIK %d (%s) has no ticker, and the corpus keys filings by ticker", is.CIK, sub.Name)
		}
		is.Asked = fmt.Sprintf("%s (CIK %d)", is.Ticker, is.CIK)
	}
	all := sub.Filings.Recent.Filings(is.CIK, sub.FiscalYearEnd)
	for _, page := range sub.Filings.Files {
		if !pageMayHold(page, since, until) {
			continue
		}
		raw, err := f.getBytes(ctx, f.client.DataURL()+"/submissions/"+page.Name, &GetOpts{Observe: obs})
		if err != nil {
			return nil, fmt.Errorf("older filings page %s: %w", page.Name, err)
		}
		cols, err := ParseFilingsPage(raw)
		if err != nil {
			return nil, fmt.Errorf("older filings page %s: %w", page.Name, err)
		}
		all = append(all, cols.Filings(is.CIK, sub.FiscalYearEnd)...)
	}
	is.Listed = len(all)
	seen := map[string]bool{}
	var out []Filing
	for _, fl := range all {
		if !slices.Contains(forms, fl.Form) || fl.PeriodEnd.IsZero() || fl.PrimaryDocument == "" || seen[fl.Accession] {
			continue
		}
		if (since != 0 && fl.FiscalYear < since) || (until != 0 && fl.FiscalYear > until) {
			continue
		}
		seen[fl.Accession] = true
		out = append(out, fl)
	}
	// Oldest first, so a fetch killed halfway has stored whole years.
	slices.SortStableFunc(out, func(a, b Filing) int {
		if c := a.PeriodEnd.Compare(b.PeriodEnd); c != 0 {
			return c
		}
		return a.Filed.Compare(b.Filed)
	})
	return out, nil
}

// latest keeps the n most recent filings of each form (all when n is 0),
// in filings' order (oldest first).
func latest(filings []Filing, n int) []Filing {
	if n <= 0 {
		return filings
	}
	kept := map[string]int{}
	var out []Filing
	for i := len(filings) - 1; i >= 0; i-- {
		if fl := filings[i]; kept[fl.Form] < n {
			kept[fl.Form]++
			out = append(out, fl)
		}
	}
	slices.Reverse(out)
	return out
}

// pageMayHold reports whether an older page of filings, by its filing
// dates, may hold reports of fiscal years since..until: a report is filed
// after its period ends, within about a year and a half.
func pageMayHold(p FilingsPage, since, until int) bool {
	from, err1 := time.Parse(time.DateOnly, p.FilingFrom)
	to, err2 := time.Parse(time.DateOnly, p.FilingTo)
	if err1 != nil || err2 != nil {
		return true
	}
	if since != 0 && to.Year() < since-1 {
		return false
	}
	if until != 0 && from.Year() > until+2 {
		return false
	}
	return true
}

// download fetches the documents of selected[todo...] into the cache and
// returns the manifest entries of those it got, in todo's order. A failed
// download is recorded in its result.
func (f *Fetcher) download(ctx context.Context, selected []FilingResult, todo []int, conc int, p *printer, obs func(Access)) []indexedEntry {
	got := make([]*corpus.ManifestEntry, len(todo))
	var done int
	var mu sync.Mutex // guards done and the printer's line order
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(conc)
	for k, i := range todo {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error {
			r := &selected[i]
			entry, err := f.fetchFiling(gctx, r, obs)
			mu.Lock()
			defer mu.Unlock()
			done++
			if err != nil {
				if gctx.Err() != nil {
					return nil // the whole fetch is ending; not the filing's fault
				}
				r.Outcome, r.Err = OutcomeFailed, fmt.Errorf("%s %s %s: %w", r.Ticker, r.Filing.Form, r.Filing.Accession, err)
				p.printf("[%d/%d] %s %s %s: FAILED: %v\n", done, len(todo), r.Ticker, r.Filing.Form, r.Filing.PeriodEnd.Format(time.DateOnly), err)
				return nil
			}
			how := "downloaded"
			if r.FromCache {
				how = "from cache"
			}
			p.printf("[%d/%d] %s %s %s %s: %s %s\n", done, len(todo), r.Ticker, r.Filing.Form,
				r.Filing.PeriodEnd.Format(time.DateOnly), r.Filing.Accession, how, formatBytes(r.Bytes))
			got[k] = entry
			return nil
		})
	}
	g.Wait()
	var out []indexedEntry
	for k, e := range got {
		if e != nil {
			out = append(out, indexedEntry{index: todo[k], entry: *e})
		}
	}
	return out
}

// indexedEntry is a manifest entry with the index of its filing result.
type indexedEntry struct {
	index int
	entry corpus.ManifestEntry
}

// fetchFiling downloads one filing's primary document (or finds it in the
// cache) and builds its manifest entry.
func (f *Fetcher) fetchFiling(ctx context.Context, r *FilingResult, obs func(Access)) (*corpus.ManifestEntry, error) {
	fl := r.Filing
	entry, err := corpus.NewManifestEntry("-", r.Ticker, r.Company, fl.Form, fl.FiscalYear,
		fl.PeriodEnd.Format(time.DateOnly), fl.Filed.Format(time.DateOnly))
	if err != nil {
		return nil, fmt.Errorf("the SEC's data does not make a valid filing: %w", err)
	}
	switch strings.ToLower(path.Ext(fl.PrimaryDocument)) {
	case ".htm", ".html", ".xhtml", ".txt", ".pdf":
	default:
		return nil, fmt.Errorf("primary document %s is in a format the ingester does not read", fl.PrimaryDocument)
	}
	res, err := f.client.Get(ctx, r.URL, &GetOpts{Immutable: true, Observe: obs})
	if err != nil {
		return nil, err
	}
	r.FromCache, r.Bytes = res.FromCache, res.Size
	entry.Path, entry.Source = res.Path, r.URL
	return &entry, nil
}

// CompanyFacts returns the issuer's company facts, read through the cache.
func (f *Fetcher) CompanyFacts(ctx context.Context, cik int) (*CompanyFacts, error) {
	raw, err := f.getBytes(ctx, f.companyFactsURL(cik), nil)
	if err != nil {
		return nil, err
	}
	return ParseCompanyFacts(raw)
}

func (f *Fetcher) companyFactsURL(cik int) string {
	return fmt.Sprintf("%s/api/xbrl/companyfacts/CIK%010d.json", f.client.DataURL(), cik)
}

// storeFacts stores the company facts of each of filings (an issuer's, of
// the forms and years asked for) as a document of its own, unless the
// store holds the filing itself, whose text's facts then serve (and are
// the ones quoted), or holds its company facts document already. The
// error is the store's.
func (f *Fetcher) storeFacts(ctx context.Context, is *IssuerResult, filings []Filing, cf *CompanyFacts, url string) ([]FactsResult, error) {
	byAccession := cf.ByAccession()
	var out []FactsResult
	for _, fl := range filings {
		values := byAccession[fl.Accession]
		if len(values) == 0 {
			continue
		}
		r := FactsResult{Ticker: is.Ticker, Filing: fl, Values: len(values)}
		own, err := f.store.FindFiling(ctx, is.Ticker, fl.Form, fl.PeriodEnd)
		switch {
		case err == nil:
			r.Outcome, r.DocumentID = FactsOwn, own.ID
			out = append(out, r)
			continue
		case !errors.Is(err, corpus.ErrNotFound):
			return out, err
		}
		kept, err := f.store.FindFiling(ctx, is.Ticker, corpus.CompanyFactsForm(fl.Form), fl.PeriodEnd)
		switch {
		case err == nil:
			r.Outcome, r.DocumentID = FactsStored, kept.ID
			out = append(out, r)
			continue
		case !errors.Is(err, corpus.ErrNotFound):
			return out, err
		}
		doc, facts := FactsDocument(values, fl, is.Ticker, is.Company, cf.EntityName, url)
		if doc == nil {
			continue
		}
		added, err := f.store.AddDocument(ctx, doc, nil, facts)
		if err != nil {
			return out, err
		}
		r.Outcome, r.DocumentID = FactsAdded, doc.ID
		if !added { // stored meanwhile by another process
			r.Outcome = FactsStored
		}
		out = append(out, r)
	}
	return out, nil
}

func (f *Fetcher) getBytes(ctx context.Context, url string, opts *GetOpts) ([]byte, error) {
	res, err := f.client.Get(ctx, url, opts)
	if err != nil {
		return nil, err
	}
	return os.ReadFile(res.Path)
}

func countConcepts(facts []CompanyFact) int {
	n := 0
	for i, fc := range facts {
		if i == 0 || fc.Concept != facts[i-1].Concept {
			n++
		}
	}
	return n
}

func yearRange(since, until int) string {
	switch {
	case since == 0 && until == 0:
		return "all years"
	case until == 0:
		return fmt.Sprintf("fiscal %d on", since)
	case since == 0:
		return fmt.Sprintf("fiscal years to %d", until)
	case since == until:
		return fmt.Sprintf("fiscal %d", since)
	}
	return fmt.Sprintf("fiscal %d-%d", since, until)
}

func formatBytes(n int64) string {
	if n >= 1e6 {
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	}
	return fmt.Sprintf("%.0f kB", float64(n)/1e3)
}

// printer writes progress lines when it has a writer.
type printer struct{ w io.Writer }

func (p *printer) printf(format string, args ...any) {
	if p.w != nil {
		fmt.Fprintf(p.w, format, args...)
	}
}
