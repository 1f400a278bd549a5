package configs

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// companyTickersJSON is the SEC's list of issuers with a ticker, as the SEC
// serves it at /files/company_tickers.json on its main site. To refresh it,
// run `research fetch --refresh-issuers --issuers-out
// configs/company_tickers.json` (or copy the SEC's file over it) and run the
// tests.
//
//go:embed company_tickers.json
var companyTickersJSON []byte

// Issuer is one entry of the SEC's issuer list: a ticker and the issuer
// whose securities trade under it. An issuer with several tickers (share
// classes, preferred shares) has one entry per ticker.
type Issuer struct {
	// CIK is the SEC's central index key of the issuer.
	CIK int
	// Ticker is the ticker as the SEC lists it: upper case, a share class
	// after a dash ("BRK-B").
	Ticker string
	// Title is the issuer's name as the SEC lists it ("NVIDIA CORP",
	// "Tesla, Inc.", "COSTCO WHOLESALE CORP /NEW").
	Title string
}

// IssuerList is the SEC's list of issuers with a ticker, in the SEC's order,
// which puts the largest issuers first. It is read-only and safe for
// concurrent use.
type IssuerList struct {
	entries  []Issuer
	byTicker map[string]int // index into entries, by Ticker
	byCIK    map[int][]int  // indexes into entries, in order
	rank     map[int]int    // position of each CIK among the issuers, by its first entry
}

// ErrIssuerList is the sentinel every error of LoadIssuers matches.
var ErrIssuerList = errors.New("configs: issuer list")

// LoadIssuers reads an issuer list in the SEC's shape:
// {"0": {"cik_str": 1045810, "ticker": "NVDA", "title": "NVIDIA CORP"}, ...},
// keyed by position from 0. Every entry needs a positive CIK, a ticker and
// a title; a ticker listed twice keeps its first entry.
func LoadIssuers(r io.Reader) (*IssuerList, error) {
	var raw map[string]struct {
		CIK    json.Number `json:"cik_str"`
		Ticker string      `json:"ticker"`
		Title  string      `json:"title"`
	}
	dec := json.NewDecoder(r)
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrIssuerList, err)
	}
	if len(raw) == 0 {
		return nil, fmt.Errorf("%w: no entries", ErrIssuerList)
	}
	type keyed struct {
		pos int
		e   Issuer
	}
	all := make([]keyed, 0, len(raw))
	for k, v := range raw {
		pos, err := strconv.Atoi(k)
		if err != nil || pos < 0 {
			return nil, fmt.Errorf("%w: key %q is not a position", ErrIssuerList, k)
		}
		cik, err := strconv.Atoi(v.CIK.String())
		if err != nil || cik <= 0 {
			return nil, fmt.Errorf("%w: entry %s: cik_str %q is not a positive integer", ErrIssuerList, k, v.CIK)
		}
		ticker := strings.ToUpper(strings.TrimSpace(v.Ticker))
		title := strings.TrimSpace(v.Title)
		if ticker == "" || title == "" {
			return nil, fmt.Errorf("%w: entry %s: ticker and title are required", ErrIssuerList, k)
		}
		all = append(all, keyed{pos, Issuer{CIK: cik, Ticker: ticker, Title: title}})
	}
	slices.SortFunc(all, func(a, b keyed) int { return a.pos - b.pos })
	l := &IssuerList{byTicker: map[string]int{}, byCIK: map[int][]int{}, rank: map[int]int{}}
	for _, k := range all {
		if _, dup := l.byTicker[k.e.Ticker]; dup {
			continue
		}
		i := len(l.entries)
		l.entries = append(l.entries, k.e)
		l.byTicker[k.e.Ticker] = i
		if _, ok := l.rank[k.e.CIK]; !ok {
			l.rank[k.e.CIK] = len(l.rank)
		}
		l.byCIK[k.e.CIK] = append(l.byCIK[k.e.CIK], i)
	}
	return l, nil
}

var embeddedIssuers = sync.OnceValues(func() (*IssuerList, error) {
	return LoadIssuers(bytes.NewReader(companyTickersJSON))
})

// Issuers returns the issuer list embedded in the binary
// (company_tickers.json), parsed on first use.
func Issuers() (*IssuerList, error) { return embeddedIssuers() }

// IssuersFileName is the name of a refreshed issuer list in a data
// directory, where `research fetch --refresh-issuers` writes it.
const IssuersFileName = "company_tickers.json"

// LoadIssuersFile reads an issuer list in the SEC's shape from path.
func LoadIssuersFile(path string) (*IssuerList, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrIssuerList, err)
	}
	defer f.Close()
	l, err := LoadIssuers(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return l, nil
}

// Len returns the number of entries (tickers) in the list.
func (l *IssuerList) Len() int {
	if l == nil {
		return 0
	}
	return len(l.entries)
}

// All yields the entries in the SEC's order.
func (l *IssuerList) All() iter.Seq[Issuer] {
	return func(yield func(Issuer) bool) {
		if l == nil {
			return
		}
		for _, e := range l.entries {
			if !yield(e) {
				return
			}
		}
	}
}

// Lookup returns the entry of ticker, matched without regard to case, with
// a leading "$" ignored and a share class written after a dot or a slash
// read as after a dash ("brk.b" finds "BRK-B").
func (l *IssuerList) Lookup(ticker string) (Issuer, bool) {
	if l == nil {
		return Issuer{}, false
	}
	t := NormalizeTicker(ticker)
	if i, ok := l.byTicker[t]; ok {
		return l.entries[i], true
	}
	return Issuer{}, false
}

// ByCIK returns the entries of an issuer, its primary ticker first (the
// SEC lists it first), or nil.
func (l *IssuerList) ByCIK(cik int) []Issuer {
	if l == nil {
		return nil
	}
	var out []Issuer
	for _, i := range l.byCIK[cik] {
		out = append(out, l.entries[i])
	}
	return out
}

// Rank returns the position of an issuer in the SEC's order of issuers
// (0 for the first, the largest), or -1 when the list lacks it.
func (l *IssuerList) Rank(cik int) int {
	if l == nil {
		return -1
	}
	if r, ok := l.rank[cik]; ok {
		return r
	}
	return -1
}

// NormalizeTicker returns ticker as the SEC writes tickers: upper case,
// without a leading "$" or spaces, a share class after a dash.
func NormalizeTicker(ticker string) string {
	t := strings.ToUpper(strings.TrimSpace(ticker))
	t = strings.TrimSpace(strings.TrimPrefix(t, "$"))
	return strings.NewReplacer(".", "-", "/", "-").Replace(t)
}
