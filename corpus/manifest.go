package corpus

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// ManifestEntry describes one source file to ingest.
type ManifestEntry struct {
	Path       string // as resolved: relative entries are joined to the manifest's directory
	Ticker     string // upper case
	Company    string
	Form       string // "10-K", "10-Q", ...
	FiscalYear int
	PeriodEnd  time.Time
	Filed      time.Time // zero when unknown
	Line       int       // 1-based line in the manifest; 0 for entries built from flags
	Manifest   string    // the manifest's path; "" for entries built from flags
	// Source is where the filing came from, recorded as Document.Source
	// (the SEC URL of a fetched filing); "" means Path made absolute.
	Source string
}

// Where names the entry's origin for error messages: "manifest.jsonl:3" or the path.
func (e ManifestEntry) Where() string {
	if e.Manifest != "" {
		return fmt.Sprintf("%s:%d", e.Manifest, e.Line)
	}
	return e.Path
}

// ManifestError is a manifest line that could not be read.
type ManifestError struct {
	Manifest string
	Line     int
	Err      error
}

func (e *ManifestError) Error() string {
	return fmt.Sprintf("%s:%d: %v", e.Manifest, e.Line, e.Err)
}

func (e *ManifestError) Unwrap() error { return e.Err }

var (
	tickerPattern = regexp.MustCompile(`^[A-Z][A-Z0-9]{0,5}(?:[.\-][A-Z]{1,2})?$`)
	formPattern   = regexp.MustCompile(`^(?:10-K|10-Q|10-K/A|10-Q/A|10-KT|20-F|20-F/A|40-F|8-K|S-1|6-K)$`)
)

// ValidTicker reports whether s is an upper-case exchange ticker such as
// "AAPL" or "BRK.B".
func ValidTicker(s string) bool { return tickerPattern.MatchString(s) }

// ValidForm reports whether s is an SEC form the ingester accepts, upper
// case: "10-K", "10-Q", "10-K/A", "20-F", ...
func ValidForm(s string) bool { return formPattern.MatchString(s) }

type manifestLine struct {
	Path       string `json:"path"`
	Ticker     string `json:"ticker"`
	Company    string `json:"company"`
	Form       string `json:"form"`
	FiscalYear int    `json:"fiscal_year"`
	PeriodEnd  string `json:"period_end"`
	Filed      string `json:"filed"`
}

// ReadManifest reads a JSONL manifest: one object per line with path,
// ticker, company, form, fiscal_year, period_end and optionally filed.
// Paths are relative to baseDir, the manifest's folder, and stay in it (no
// absolute path, no ".." out of it). Blank lines and lines
// starting with '#' are skipped. A bad line does not stop the reading: it
// is returned as a *ManifestError in errs, and the good lines in entries.
// Unknown fields are errors, so a misspelt field is never silently dropped.
func ReadManifest(r io.Reader, name, baseDir string) (entries []ManifestEntry, errs []error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		raw := bytes.TrimSpace(sc.Bytes())
		if len(raw) == 0 || raw[0] == '#' {
			continue
		}
		e, err := parseManifestLine(raw)
		if err != nil {
			errs = append(errs, &ManifestError{Manifest: name, Line: line, Err: err})
			continue
		}
		// A manifest names its own files: a path that is absolute or
		// climbs out of the manifest's folder could make an ingest read
		// any file the process can.
		if filepath.IsAbs(e.Path) || !filepath.IsLocal(e.Path) {
			errs = append(errs, &ManifestError{Manifest: name, Line: line,
				Err: fmt.Errorf("path %q is outside the manifest's folder: give it relative to the manifest, without \"..\"", e.Path)})
			continue
		}
		e.Path = filepath.Join(baseDir, e.Path)
		e.Line, e.Manifest = line, name
		entries = append(entries, e)
	}
	if err := sc.Err(); err != nil {
		errs = append(errs, &ManifestError{Manifest: name, Line: line + 1, Err: err})
	}
	return entries, errs
}

func parseManifestLine(raw []byte) (ManifestEntry, error) {
	var m manifestLine
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return ManifestEntry{}, fmt.Errorf("not a valid manifest object: %v", err)
	}
	if dec.More() {
		return ManifestEntry{}, fmt.Errorf("more than one JSON value on the line")
	}
	return NewManifestEntry(m.Path, m.Ticker, m.Company, m.Form, m.FiscalYear, m.PeriodEnd, m.Filed)
}

// NewManifestEntry validates the fields of one source and builds its entry.
// Dates are YYYY-MM-DD; filed may be empty.
func NewManifestEntry(path, ticker, company, form string, fiscalYear int, periodEnd, filed string) (ManifestEntry, error) {
	e := ManifestEntry{
		Path:       strings.TrimSpace(path),
		Ticker:     strings.ToUpper(strings.TrimSpace(ticker)),
		Company:    strings.TrimSpace(company),
		Form:       strings.ToUpper(strings.TrimSpace(form)),
		FiscalYear: fiscalYear,
	}
	if e.Path == "" {
		return e, fmt.Errorf("path is missing")
	}
	if !ValidTicker(e.Ticker) {
		return e, fmt.Errorf("ticker %q is not a ticker (1-6 letters or digits, optional class suffix such as .B)", ticker)
	}
	if e.Company == "" {
		return e, fmt.Errorf("company is missing")
	}
	if !formPattern.MatchString(e.Form) {
		return e, fmt.Errorf("form %q is not a known SEC form (10-K, 10-Q, 10-K/A, 20-F, ...)", form)
	}
	if fiscalYear < 1993 || fiscalYear > 2100 {
		return e, fmt.Errorf("fiscal_year %d is out of range (1993-2100)", fiscalYear)
	}
	var err error
	if e.PeriodEnd, err = parseDay(periodEnd); err != nil {
		return e, fmt.Errorf("period_end: %v", err)
	}
	if filed != "" {
		if e.Filed, err = parseDay(filed); err != nil {
			return e, fmt.Errorf("filed: %v", err)
		}
		if e.Filed.Before(e.PeriodEnd) {
			return e, fmt.Errorf("filed %s is before period_end %s", filed, periodEnd)
		}
	}
	if d := e.PeriodEnd.Year() - fiscalYear; d < -1 || d > 1 {
		return e, fmt.Errorf("period_end %s is not in fiscal_year %d", periodEnd, fiscalYear)
	}
	return e, nil
}

func parseDay(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, fmt.Errorf("missing (want YYYY-MM-DD)")
	}
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is not a date (want YYYY-MM-DD)", s)
	}
	return d, nil
}
