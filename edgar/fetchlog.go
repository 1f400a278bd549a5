package edgar

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// LogFileName is the fetch log's file name in the data directory.
const LogFileName = "fetch-log.jsonl"

// LogRecord is one fetch as the fetch log keeps it, so a user can audit
// later what was read from the SEC and what became of it: what was asked,
// every request with how it was answered (downloaded, 304 not modified,
// from the cache, failed) and the sha256 of the body used, and every
// filing and company facts document with its outcome and document id.
type LogRecord struct {
	Started  time.Time `json:"started"`
	Finished time.Time `json:"finished"`
	// By is what ran the fetch: "research fetch", "research ask --fetch".
	By string `json:"by"`
	// Tenant is the tenant whose store the filings went to ("" for the
	// embedded store's one).
	Tenant  string `json:"tenant,omitempty"`
	BaseURL string `json:"base_url"`
	DataURL string `json:"data_url"`
	Offline bool   `json:"offline,omitempty"`
	Asked   struct {
		Tickers []string `json:"tickers,omitempty"`
		CIKs    []int    `json:"ciks,omitempty"`
		Forms   []string `json:"forms"`
		Since   int      `json:"since,omitempty"`
		Until   int      `json:"until,omitempty"`
		Latest  int      `json:"latest,omitempty"`
		Facts   bool     `json:"facts,omitempty"`
	} `json:"asked"`
	Issuers      []LogIssuer `json:"issuers"`
	Filings      []LogFiling `json:"filings"`
	CompanyFacts []LogFacts  `json:"company_facts,omitempty"`
	Requests     []Access    `json:"requests"`
	Summary      LogSummary  `json:"summary"`
	// Error is why the fetch stopped before the end; "" when it did not.
	Error string `json:"error,omitempty"`
}

// LogIssuer is an issuer as a fetch found it.
type LogIssuer struct {
	Asked    string `json:"asked"`
	CIK      int    `json:"cik,omitempty"`
	Ticker   string `json:"ticker,omitempty"`
	Company  string `json:"company,omitempty"`
	Listed   int    `json:"listed"`
	Selected int    `json:"selected"`
	Facts    int    `json:"company_facts,omitempty"`
	Error    string `json:"error,omitempty"`
}

// LogFiling is a selected filing and what the fetch did with it.
type LogFiling struct {
	Ticker     string        `json:"ticker"`
	Form       string        `json:"form"`
	Accession  string        `json:"accession"`
	FiscalYear int           `json:"fiscal_year"`
	PeriodEnd  string        `json:"period_end"`
	Filed      string        `json:"filed"`
	URL        string        `json:"url"`
	Outcome    FilingOutcome `json:"outcome"`
	FromCache  bool          `json:"from_cache,omitempty"`
	Bytes      int64         `json:"bytes,omitempty"`
	DocumentID string        `json:"document_id,omitempty"`
	Error      string        `json:"error,omitempty"`
}

// LogFacts is what a fetch did with one filing's company facts.
type LogFacts struct {
	Ticker     string       `json:"ticker"`
	Form       string       `json:"form"`
	Accession  string       `json:"accession"`
	FiscalYear int          `json:"fiscal_year"`
	Outcome    FactsOutcome `json:"outcome"`
	Values     int          `json:"values"`
	DocumentID string       `json:"document_id,omitempty"`
}

// LogSummary counts what a fetch did.
type LogSummary struct {
	Requests     int   `json:"requests"` // HTTP requests sent, retries included
	Downloaded   int   `json:"downloaded"`
	NotModified  int   `json:"not_modified"`
	CacheHits    int   `json:"cache_hits"`
	Retries      int   `json:"retries"`
	FailedGets   int   `json:"failed_gets"`
	WireBytes    int64 `json:"wire_bytes"`
	Selected     int   `json:"filings_selected"`
	Stored       int   `json:"filings_already_stored"`
	Ingested     int   `json:"filings_ingested"`
	Unchanged    int   `json:"filings_unchanged"`
	Duplicates   int   `json:"filings_duplicate"`
	Failed       int   `json:"filings_failed"`
	FactsStored  int   `json:"company_facts_documents_added,omitempty"`
	ElapsedMilli int64 `json:"elapsed_ms"`
}

// NewLogRecord describes a fetch for the log: r is its report (nil when
// it could not start), opts what was asked, by what ran it, err the
// error Fetch returned.
func NewLogRecord(c *Client, r *Report, opts *FetchOpts, by string, err error) LogRecord {
	rec := LogRecord{By: by, Finished: time.Now().UTC(), BaseURL: c.BaseURL(), DataURL: c.DataURL(), Offline: c.Offline(),
		Issuers: []LogIssuer{}, Filings: []LogFiling{}, Requests: []Access{}}
	if opts != nil {
		rec.Asked.Tickers, rec.Asked.CIKs, rec.Asked.Forms = opts.Tickers, opts.CIKs, opts.Forms
		if len(rec.Asked.Forms) == 0 {
			rec.Asked.Forms = DefaultForms
		}
		rec.Asked.Since, rec.Asked.Until, rec.Asked.Latest, rec.Asked.Facts = opts.Since, opts.Until, opts.Latest, opts.Facts
	}
	if err != nil {
		rec.Error = err.Error()
	}
	if r == nil {
		rec.Started = rec.Finished
		return rec
	}
	rec.Started = rec.Finished.Add(-r.Elapsed)
	for _, is := range r.Issuers {
		li := LogIssuer{Asked: is.Asked, CIK: is.CIK, Ticker: is.Ticker, Company: is.Company, Listed: is.Listed, Selected: is.Selected, Facts: is.Facts}
		if is.Err != nil {
			li.Error = is.Err.Error()
		}
		rec.Issuers = append(rec.Issuers, li)
	}
	for _, f := range r.Filings {
		lf := LogFiling{
			Ticker: f.Ticker, Form: f.Filing.Form, Accession: f.Filing.Accession, FiscalYear: f.Filing.FiscalYear,
			PeriodEnd: f.Filing.PeriodEnd.Format(time.DateOnly), Filed: f.Filing.Filed.Format(time.DateOnly), URL: f.URL,
			Outcome: f.Outcome, FromCache: f.FromCache, Bytes: f.Bytes, DocumentID: f.DocumentID,
		}
		if f.Err != nil {
			lf.Error = f.Err.Error()
		}
		rec.Filings = append(rec.Filings, lf)
	}
	for _, f := range r.FactFilings {
		rec.CompanyFacts = append(rec.CompanyFacts, LogFacts{Ticker: f.Ticker, Form: f.Filing.Form, Accession: f.Filing.Accession,
			FiscalYear: f.Filing.FiscalYear, Outcome: f.Outcome, Values: f.Values, DocumentID: f.DocumentID})
	}
	rec.Requests = append(rec.Requests, r.Accesses...)
	s := &rec.Summary
	for _, a := range r.Accesses {
		if a.Outcome == AccessFailed {
			s.FailedGets++
		}
	}
	s.Requests, s.Downloaded, s.NotModified, s.CacheHits, s.Retries, s.WireBytes =
		r.Client.Requests, r.Client.Downloads, r.Client.NotModified, r.Client.CacheHits, r.Client.Retries, r.Client.WireBytes
	s.Selected, s.Stored, s.Ingested, s.Unchanged, s.Duplicates, s.Failed, s.FactsStored =
		r.Selected, r.Stored, r.Added, r.Unchanged, r.Duplicates, r.Failed, r.FactsAdded
	s.ElapsedMilli = r.Elapsed.Milliseconds()
	return rec
}

// NewRefreshLogRecord describes a refresh of the issuer list for the log:
// its request (accesses) and the error it ended with.
func NewRefreshLogRecord(c *Client, accesses []Access, err error) LogRecord {
	rec := NewLogRecord(c, nil, nil, "research fetch --refresh-issuers", err)
	rec.Asked.Forms = []string{}
	rec.Requests = append(rec.Requests, accesses...)
	for _, a := range accesses {
		if a.Time.Before(rec.Started) {
			rec.Started = a.Time
		}
		switch a.Outcome {
		case AccessDownloaded:
			rec.Summary.Downloaded++
		case AccessNotModified:
			rec.Summary.NotModified++
		case AccessCached:
			rec.Summary.CacheHits++
		case AccessFailed:
			rec.Summary.FailedGets++
		}
		rec.Summary.Requests += a.Attempts
	}
	return rec
}

// AppendLog appends rec to the fetch log at path as one JSON line,
// creating the file (and its directory) when needed, and syncs it. One
// line is written with one write to a file opened for appending, so
// fetches of several processes do not interleave within a record.
func AppendLog(path string, rec LogRecord) error {
	line, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("edgar: fetch log: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("edgar: fetch log: %w", err)
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("edgar: fetch log: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("edgar: fetch log: %w", err)
	}
	return f.Close()
}

// ReadLog reads a fetch log, oldest fetch first. A line that does not
// read as a record (one cut short when its process was killed mid-write)
// is skipped and counted in skipped. A log that does not exist is empty.
func ReadLog(path string) (recs []LogRecord, skipped int, err error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	return ParseLog(f)
}

// ParseLog reads fetch log records from r; see ReadLog.
func ParseLog(r io.Reader) (recs []LogRecord, skipped int, err error) {
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var rec LogRecord
			if json.Unmarshal(line, &rec) == nil && !rec.Finished.IsZero() {
				recs = append(recs, rec)
			} else {
				skipped++
			}
		}
		if err == io.EOF {
			return recs, skipped, nil
		}
		if err != nil {
			return recs, skipped, err
		}
	}
}

// Line is the record in one line, for a listing of past fetches.
func (rec *LogRecord) Line() string {
	s := rec.Summary
	if len(rec.Asked.Tickers) == 0 && len(rec.Asked.CIKs) == 0 {
		line := fmt.Sprintf("%s  %-22s %d requests (%d downloaded, %d not modified), %d from the cache",
			rec.Started.Format(time.RFC3339), rec.By, s.Requests, s.Downloaded, s.NotModified, s.CacheHits)
		if rec.Error != "" {
			line += "; failed: " + rec.Error
		}
		return line
	}
	who := rec.Asked.Tickers
	for _, c := range rec.Asked.CIKs {
		who = append(who, "CIK "+strconv.Itoa(c))
	}
	line := fmt.Sprintf("%s  %-22s %v %v: %d selected, %d ingested, %d already stored, %d failed; %d requests (%d downloaded, %d not modified), %d from the cache",
		rec.Started.Format(time.RFC3339), rec.By, who, rec.Asked.Forms, s.Selected, s.Ingested, s.Stored, s.Failed,
		s.Requests, s.Downloaded, s.NotModified, s.CacheHits)
	if s.FactsStored > 0 {
		line += fmt.Sprintf("; company facts of %d filings stored", s.FactsStored)
	}
	if rec.Error != "" {
		line += "; stopped: " + rec.Error
	}
	return line
}
