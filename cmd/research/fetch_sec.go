package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/ledgerline/research/configs"
	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/edgar"
)

// secFlags are the flags of reading from SEC EDGAR, shared by research
// fetch and research ask --fetch.
type secFlags struct {
	baseURL, dataURL string
	userAgent        string
	rps              float64
	cacheDir         string
	logPath          string
}

func (f *secFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.baseURL, "sec-url", envOr("RESEARCH_SEC_URL", edgar.DefaultBaseURL), "the SEC's main site, or a mirror or proxy of it ($RESEARCH_SEC_URL)")
	fs.StringVar(&f.dataURL, "sec-data-url", envOr("RESEARCH_SEC_DATA_URL", edgar.DefaultDataURL), "the SEC's data host, or a mirror or proxy of it ($RESEARCH_SEC_DATA_URL)")
	fs.StringVar(&f.userAgent, "user-agent", os.Getenv("RESEARCH_SEC_USER_AGENT"), "User-Agent naming your organisation and an email address, as the SEC requires ($RESEARCH_SEC_USER_AGENT)")
	fs.Float64Var(&f.rps, "rate", edgar.MaxRequestsPerSecond, "requests per second to the SEC across all workers (at most 10, the SEC's limit)")
	fs.StringVar(&f.cacheDir, "cache-dir", "", "raw SEC response cache (default DATA-DIR/edgar)")
	fs.StringVar(&f.logPath, "fetch-log", "", "where each fetch is recorded for audit: the requests and how they were answered, the filings and what became of them (default DATA-DIR/"+edgar.LogFileName+")")
}

// errNoUserAgent is why a fetch without a valid User-Agent is refused.
var errNoUserAgent = errors.New("the SEC requires every request to carry a User-Agent naming your organisation and an email address, " +
	"and blocks clients that send none; give one with --user-agent \"Example Corp research@example.com\" or RESEARCH_SEC_USER_AGENT")

// client checks the User-Agent (unless offline) and builds the client;
// retries are logged to stderr at info level (a user waiting on a
// Retry-After sees why), at warn level when quiet.
func (f *secFlags) client(dataDir string, offline, quiet bool, stderr io.Writer) (*edgar.Client, error) {
	if !offline && !edgar.ValidUserAgent(f.userAgent) {
		return nil, errNoUserAgent
	}
	if f.cacheDir == "" {
		f.cacheDir = filepath.Join(dataDir, "edgar")
	}
	level := slog.LevelInfo
	if quiet {
		level = slog.LevelWarn
	}
	return edgar.NewClient(&edgar.Config{
		BaseURL: f.baseURL, DataURL: f.dataURL, UserAgent: f.userAgent, RequestsPerSecond: f.rps,
		CacheDir: f.cacheDir, Offline: offline,
		Logger: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level})),
	})
}

// log returns the fetch log's path.
func (f *secFlags) log(dataDir string) string {
	if f.logPath != "" {
		return f.logPath
	}
	return filepath.Join(dataDir, edgar.LogFileName)
}

// fetcherConfig resolves tickers with the issuer list `research fetch
// --refresh-issuers` wrote to the data directory, when there is one.
func fetcherConfig(dataDir string) (*edgar.FetcherConfig, error) {
	fcfg := &edgar.FetcherConfig{}
	path := filepath.Join(dataDir, configs.IssuersFileName)
	if _, err := os.Stat(path); err == nil {
		list, err := configs.LoadIssuersFile(path)
		if err != nil {
			return nil, err
		}
		fcfg.Issuers = list
	}
	return fcfg, nil
}

// fetchAndLog runs a fetch into store and records it in the fetch log,
// whatever its outcome; a log that cannot be written is an error too, as
// the fetch would otherwise go unrecorded.
func fetchAndLog(ctx context.Context, sf *storeFlags, sec *secFlags, client *edgar.Client, store corpus.Store, emb corpus.Embedder,
	opts *edgar.FetchOpts, by string) (*edgar.Report, error) {
	fcfg, err := fetcherConfig(sf.dataDir)
	if err != nil {
		return nil, err
	}
	in, err := corpus.NewIngester(store, emb)
	if err != nil {
		return nil, err
	}
	fetcher, err := edgar.NewFetcher(client, store, in, fcfg)
	if err != nil {
		return nil, err
	}
	report, ferr := fetcher.Fetch(ctx, opts)
	rec := edgar.NewLogRecord(client, report, opts, by, ferr)
	if sf.db != "" {
		rec.Tenant = sf.tenant
	}
	// Recorded even when ctx ended: the fetch happened.
	if lerr := edgar.AppendLog(sec.log(sf.dataDir), rec); lerr != nil {
		return report, errors.Join(ferr, fmt.Errorf("recording the fetch: %w", lerr))
	}
	return report, ferr
}
