package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ledgerline/research/configs"
	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/edgar"
)

func runFetch(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("fetch", "(--ticker T[,T...] | --cik N[,N...]) [--forms 10-K,10-Q] [--since YEAR] [--until YEAR] [--facts] | --refresh-issuers",
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
			"when anything failed.", stderr)
	var sf storeFlags
	sf.register(fs)
	tickers := fs.String("ticker", "", "tickers to fetch, comma-separated (NVDA,AMD)")
	ciks := fs.String("cik", "", "issuers to fetch by CIK, comma-separated")
	forms := fs.String("forms", strings.Join(edgar.DefaultForms, ","), "forms to fetch, comma-separated and exact (10-K does not include 10-K/A)")
	since := fs.Int("since", 0, "first fiscal year (0: no bound)")
	until := fs.Int("until", 0, "last fiscal year (0: no bound)")
	latest := fs.Int("latest", 0, "of each form, only the issuer's N most recent filings in the years asked for (0: all)")
	facts := fs.Bool("facts", false, "also read each issuer's XBRL company facts (/api/xbrl/companyfacts/) into the cache")
	refresh := fs.Bool("refresh-issuers", false, "download the SEC issuer list (/files/company_tickers.json) and resolve tickers with it from now on")
	issuersOut := fs.String("issuers-out", "", "where --refresh-issuers writes the list (default DATA-DIR/"+configs.IssuersFileName+
		"; configs/"+configs.IssuersFileName+" ships it in the next build)")
	secURL := fs.String("sec-url", envOr("RESEARCH_SEC_URL", edgar.DefaultBaseURL), "the SEC's main site, or a mirror or proxy of it ($RESEARCH_SEC_URL)")
	secDataURL := fs.String("sec-data-url", envOr("RESEARCH_SEC_DATA_URL", edgar.DefaultDataURL), "the SEC's data host, or a mirror or proxy of it ($RESEARCH_SEC_DATA_URL)")
	userAgent := fs.String("user-agent", os.Getenv("RESEARCH_SEC_USER_AGENT"), "User-Agent naming your organisation and an email address, as the SEC requires ($RESEARCH_SEC_USER_AGENT)")
	rps := fs.Float64("rate", edgar.MaxRequestsPerSecond, "requests per second across all workers (at most 10, the SEC's limit)")
	cacheDir := fs.String("cache-dir", "", "raw response cache (default DATA-DIR/edgar)")
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
	if !*offline && !edgar.ValidUserAgent(*userAgent) {
		return errors.New("the SEC requires every request to carry a User-Agent naming your organisation and an email address, " +
			"and blocks clients that send none; give one with --user-agent \"Example Corp research@example.com\" or RESEARCH_SEC_USER_AGENT")
	}
	if *cacheDir == "" {
		*cacheDir = filepath.Join(sf.dataDir, "edgar")
	}
	// Retries are logged at info level: a user waiting on a Retry-After
	// sees why.
	level := slog.LevelInfo
	if *quiet {
		level = slog.LevelWarn
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	client, err := edgar.NewClient(&edgar.Config{
		BaseURL: *secURL, DataURL: *secDataURL, UserAgent: *userAgent, RequestsPerSecond: *rps,
		CacheDir: *cacheDir, Offline: *offline,
		Logger: logger,
	})
	if err != nil {
		return err
	}

	issuersPath := filepath.Join(sf.dataDir, configs.IssuersFileName)
	if *refresh {
		dst := *issuersOut
		if dst == "" {
			dst = issuersPath
		}
		list, res, err := edgar.RefreshIssuers(ctx, client, dst)
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
	fcfg := &edgar.FetcherConfig{}
	if _, err := os.Stat(issuersPath); err == nil {
		if fcfg.Issuers, err = configs.LoadIssuersFile(issuersPath); err != nil {
			return err
		}
	}

	store, emb, closeStore, err := sf.open(ctx)
	if err != nil {
		return err
	}
	defer closeStore()
	in, err := corpus.NewIngester(store, emb)
	if err != nil {
		return err
	}
	fetcher, err := edgar.NewFetcher(client, store, in, fcfg)
	if err != nil {
		return err
	}
	if !*quiet {
		opts.Progress = stderr
	}
	report, err := fetcher.Fetch(ctx, opts)
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
		fmt.Fprintf(w, "; %d company facts", r.Facts)
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
	if r.Selected > 0 && r.Added == 0 && r.Failed == 0 {
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
