package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ledgerline/research/configs"
	"github.com/ledgerline/research/edgar"
)

func runFetch(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("fetch", "(--ticker T[,T...] | --cik N[,N...]) [--forms 10-K,10-Q] [--since YEAR] [--until YEAR] [--facts] | --refresh-issuers | --history",
		"Reads issuers' filings from SEC EDGAR and ingests them: each ticker is resolved to its CIK\n"+
			"with the SEC issuer list, the issuer's submissions (and their older pages) list its filings,\n"+
			"and the primary document (inline XBRL HTML where the filing has it) of each filing of the\n"+
			"forms and fiscal years asked for is downloaded and ingested with the ticker, company, form,\n"+
			"fiscal year, period end and filing date the SEC lists. Amendments (10-K/A) are their own\n"+
			"filings, fetched when their form is named.\n\n"+
			"The SEC requires a User-Agent naming your organisation and an email address (--user-agent\n"+
			"or RESEARCH_SEC_USER_AGENT); requests are held to at most 10 a second, 429 and 5xx replies\n"+
			"are retried with backoff, honouring Retry-After. Every response is cached (--cache-dir):\n"+
			"a re-run revalidates listings with conditional requests and reads filing documents from\n"+
			"the cache; filings already stored are neither downloaded nor ingested again, so a fetch\n"+
			"run twice, or restarted after it was stopped, does only what is left. --offline uses the\n"+
			"cache alone. One failed filing or issuer does not stop the rest; the exit status is 1\n"+
			"when anything failed.\n\n"+
			"--facts also reads the issuer's XBRL company facts and stores the values of each filing\n"+
			"of the forms and years asked for (--latest aside) whose own document the store lacks, so\n"+
			"lookup_fact answers for years not ingested, cited to the filing's accession number; a\n"+
			"filing's own text wins once it is ingested.\n\n"+
			"Every fetch is recorded in the fetch log (--fetch-log, one JSON line per fetch: what was\n"+
			"asked, every request and whether it was downloaded, answered 304 or read from the cache,\n"+
			"and every filing's outcome and document id); --history lists the fetches recorded.", stderr)
	var sf storeFlags
	sf.register(fs)
	tickers := fs.String("ticker", "", "tickers to fetch, comma-separated (NVDA,AMD)")
	ciks := fs.String("cik", "", "issuers to fetch by CIK, comma-separated")
	forms := fs.String("forms", strings.Join(edgar.DefaultForms, ","), "forms to fetch, comma-separated and exact (10-K does not include 10-K/A)")
	since := fs.Int("since", 0, "first fiscal year (0: no bound)")
	until := fs.Int("until", 0, "last fiscal year (0: no bound)")
	latest := fs.Int("latest", 0, "of each form, only the issuer's N most recent filings in the years asked for (0: all)")
	facts := fs.Bool("facts", false, "also read each issuer's XBRL company facts (/api/xbrl/companyfacts/) and store the values of the filings asked for that are not ingested")
	refresh := fs.Bool("refresh-issuers", false, "download the SEC issuer list (/files/company_tickers.json) and resolve tickers with it from now on")
	issuersOut := fs.String("issuers-out", "", "where --refresh-issuers writes the list (default DATA-DIR/"+configs.IssuersFileName+
		"; configs/"+configs.IssuersFileName+" ships it in the next build)")
	var sec secFlags
	sec.register(fs)
	history := fs.Int("history", 0, "list the N latest fetches the fetch log recorded, and do nothing else")
	offline := fs.Bool("offline", false, "use the cache only; send no request")
	conc := fs.Int("concurrency", 4, "downloads and ingests in flight (the rate limit holds across them)")
	quiet := fs.Bool("quiet", false, "no progress lines")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "research fetch: unexpected argument %q\n", fs.Arg(0))
		return errUsage
	}
	if *history > 0 {
		return printFetchHistory(stdout, sec.log(sf.dataDir), *history)
	}
	opts := &edgar.FetchOpts{Since: *since, Until: *until, Latest: *latest, Facts: *facts, Concurrency: *conc}
	opts.Tickers = splitList(*tickers)
	for _, s := range splitList(*ciks) {
		n, err := strconv.Atoi(strings.TrimLeft(s, "0"))
		if err != nil || n <= 0 {
			fmt.Fprintf(stderr, "research fetch: --cik %q is not a CIK (a positive number)\n", s)
			return errUsage
		}
		opts.CIKs = append(opts.CIKs, n)
	}
	for _, f := range splitList(*forms) {
		opts.Forms = append(opts.Forms, strings.ToUpper(f))
	}
	if len(opts.Tickers) == 0 && len(opts.CIKs) == 0 && !*refresh {
		fs.Usage()
		return errUsage
	}
	client, err := sec.client(sf.dataDir, *offline, *quiet, stderr)
	if err != nil {
		return err
	}

	issuersPath := filepath.Join(sf.dataDir, configs.IssuersFileName)
	if *refresh {
		dst := *issuersOut
		if dst == "" {
			dst = issuersPath
		}
		var accesses []edgar.Access
		list, res, err := edgar.RefreshIssuers(ctx, client, dst, &edgar.GetOpts{Observe: func(a edgar.Access) { accesses = append(accesses, a) }})
		if lerr := edgar.AppendLog(sec.log(sf.dataDir), edgar.NewRefreshLogRecord(client, accesses, err)); lerr != nil {
			return errors.Join(err, fmt.Errorf("recording the refresh: %w", lerr))
		}
		if err != nil {
			return fmt.Errorf("refreshing the issuer list: %w", err)
		}
		how := "downloaded"
		switch {
		case res.NotModified:
			how = "unchanged since " + res.Fetched.Format(time.DateOnly)
		case res.FromCache:
			how = "from the cache"
		}
		fmt.Fprintf(stdout, "issuer list: %d tickers (%s), written to %s\n", list.Len(), how, dst)
		if len(opts.Tickers) == 0 && len(opts.CIKs) == 0 {
			return nil
		}
	}
	store, emb, closeStore, err := sf.open(ctx)
	if err != nil {
		return err
	}
	defer closeStore()
	if !*quiet {
		opts.Progress = stderr
	}
	report, err := fetchAndLog(ctx, &sf, &sec, client, store, emb, opts, "research fetch")
	if report != nil {
		printFetchSummary(stdout, report)
	}
	if err != nil {
		return err
	}
	if report.Err() != nil {
		return errors.New("some issuers or filings were not fetched (see above)")
	}
	return nil
}

func printFetchSummary(w io.Writer, r *edgar.Report) {
	fmt.Fprintf(w, "fetched %d issuers: %d filings selected; %d already stored, %d downloaded, %d from cache (%s); %d ingested, %d unchanged, %d duplicate, %d failed",
		len(r.Issuers), r.Selected, r.Stored, r.Downloaded, r.Cached, byteSize(r.Bytes), r.Added, r.Unchanged, r.Duplicates, r.Failed)
	if r.Facts > 0 {
		fmt.Fprintf(w, "; %d company facts, the values of %d filings stored now", r.Facts, r.FactsAdded)
	}
	c := r.Client
	fmt.Fprintf(w, "\n%d requests (%d not modified, %d retried), %d answered from the cache, %s received; "+
		"listing and downloading %s (the workers waited %s on the rate limit in all), ingesting %s; %s in all\n",
		c.Requests, c.NotModified, c.Retries, c.CacheHits, byteSize(c.WireBytes), r.Download.Round(time.Millisecond),
		c.LimiterWait.Round(time.Millisecond), r.Ingest.Round(time.Millisecond), r.Elapsed.Round(time.Millisecond))
	for _, is := range r.Issuers {
		switch {
		case is.Err != nil:
			fmt.Fprintf(w, "  failed: %v\n", is.Err)
		case is.Selected == 0:
			fmt.Fprintf(w, "  %s: no filings of the forms and years asked for (%d listed)\n", is.Ticker, is.Listed)
		}
	}
	for _, f := range r.Filings {
		if f.Err != nil {
			fmt.Fprintf(w, "  failed: %v\n", f.Err)
		}
	}
	if r.Selected > 0 && r.Added == 0 && r.Failed == 0 && r.FactsAdded == 0 {
		fmt.Fprintln(w, "nothing new: every selected filing was already stored")
	}
}

func byteSize(n int64) string {
	if n >= 1e6 {
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	}
	return fmt.Sprintf("%.1f kB", float64(n)/1e3)
}

// splitList splits a comma-separated flag value, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// printFetchHistory lists the n latest fetches of the fetch log at path.
func printFetchHistory(w io.Writer, path string, n int) error {
	recs, skipped, err := edgar.ReadLog(path)
	if err != nil {
		return err
	}
	if len(recs) == 0 {
		fmt.Fprintf(w, "no fetch recorded in %s\n", path)
	}
	for _, rec := range recs[max(0, len(recs)-n):] {
		fmt.Fprintln(w, rec.Line())
	}
	if skipped > 0 {
		fmt.Fprintf(w, "(%d lines of %s do not read as a fetch record: cut short when a process was stopped mid-write)\n", skipped, path)
	}
	return nil
}
