package planner

import (
	"cmp"
	"crypto/sha256"
	"fmt"
	"slices"
	"sync"

	"github.com/ledgerline/research/corpus"
)

// Catalog is what the corpus holds, as the router and planners see it: the
// filings of each issuer, without their text.
type Catalog struct {
	filings map[string][]corpus.Document // by ticker; one per filing, by period end, oldest first
	company map[string]string            // by ticker
	tickers []string                     // sorted
	names   *corpusNames                 // the names, symbols and brands of its issuers

	// figures are the figures each filing reports, by document id; set by
	// SetFigures, empty when the caller gave none.
	figures map[string][]FigureEntry
	// memo keeps what is derived from the figures (label indexes, part
	// names); nil in a catalog not made by NewCatalog, which derives
	// them each time it asks.
	memo *catalogMemo
	// passagesOnly is set by WithoutFigures: a plan over it reads every
	// figure from the passages that state it, never with lookup_fact.
	passagesOnly bool

	stats *TextStats // the corpus's word and sentence statistics; set by SetTextStats, nil when none
}

// NewCatalog builds a catalog from the documents of a corpus (as
// corpus.Store.Documents lists them). One filing ingested from two sources
// (a text conversion and a PDF of the same 10-Q) is listed once: the
// inline-XBRL HTML one when there is one, else the text, else the PDF.
//
// The catalog also indexes the names a question may give its issuers: the
// documents' company names and what their inline XBRL says of the issuer
// (corpus.Entity: registrant name, CIK, trading symbols, and the segment,
// product and brand names of its own dimension members), joined through
// the CIK or the ticker to the SEC's issuer list (see findIssuers).
func NewCatalog(docs []corpus.Document) *Catalog {
	c := &Catalog{filings: map[string][]corpus.Document{}, company: map[string]string{},
		memo: newCatalogMemo()}
	type key struct {
		ticker, form string
		periodEnd    int64
	}
	best := map[key]int{} // index into filings[ticker]
	for _, d := range docs {
		if d.Ticker == "" {
			continue
		}
		d.Text = ""
		k := key{d.Ticker, d.Form, d.PeriodEnd.Unix()}
		if i, ok := best[k]; ok {
			if d.Format.Preference() < c.filings[d.Ticker][i].Format.Preference() {
				c.filings[d.Ticker][i] = d
			}
			continue
		}
		best[k] = len(c.filings[d.Ticker])
		c.filings[d.Ticker] = append(c.filings[d.Ticker], d)
		if c.company[d.Ticker] == "" {
			c.company[d.Ticker] = d.Company
		}
	}
	for t, fs := range c.filings {
		slices.SortStableFunc(fs, func(a, b corpus.Document) int {
			if n := a.PeriodEnd.Compare(b.PeriodEnd); n != 0 {
				return n
			}
			return cmp.Compare(a.Form, b.Form)
		})
		c.tickers = append(c.tickers, t)
	}
	slices.Sort(c.tickers)
	// Every document says what it knows of its issuer, even one listed in
	// place of another (a text 10-Q beside its PDF).
	all := map[string][]corpus.Document{}
	for _, d := range docs {
		if d.Ticker != "" {
			d.Text = ""
			all[d.Ticker] = append(all[d.Ticker], d)
		}
	}
	c.names = corpusNamesOf(docs, c.company, all)
	return c
}

// namesMemo keeps the names index of the last document list a catalog was
// made of: every run of an engine makes its catalog of the same list, and
// the index (the SEC list's names and the filings' own) reads nothing
// else. It is read only once built.
var namesMemo struct {
	sync.Mutex
	key   [sha256.Size]byte
	names *corpusNames
}

// corpusNamesOf returns newCorpusNames of the documents, built once per
// distinct list (by each document's id, ticker and company, in order).
func corpusNamesOf(docs []corpus.Document, company map[string]string, all map[string][]corpus.Document) *corpusNames {
	h := sha256.New()
	for _, d := range docs {
		fmt.Fprintf(h, "%s\x00%s\x00%s\n", d.ID, d.Ticker, d.Company)
	}
	var key [sha256.Size]byte
	h.Sum(key[:0])
	namesMemo.Lock()
	defer namesMemo.Unlock()
	if namesMemo.names == nil || namesMemo.key != key {
		namesMemo.key, namesMemo.names = key, newCorpusNames(loadSECIndex(), company, all)
	}
	return namesMemo.names
}

// Tickers returns the issuers the corpus holds, sorted.
func (c *Catalog) Tickers() []string { return slices.Clone(c.tickers) }

// Has reports whether the corpus holds filings of ticker.
func (c *Catalog) Has(ticker string) bool { return len(c.filings[ticker]) > 0 }

// Company returns the registrant name of ticker ("Apple Inc."), or "".
func (c *Catalog) Company(ticker string) string { return c.company[ticker] }

// Filings returns ticker's filings by period end, oldest first.
func (c *Catalog) Filings(ticker string) []corpus.Document { return slices.Clone(c.filings[ticker]) }

// Latest returns ticker's filing of form with the latest period end; form
// "" means any form.
func (c *Catalog) Latest(ticker, form string) (corpus.Document, bool) {
	fs := c.filings[ticker]
	for i := len(fs) - 1; i >= 0; i-- {
		if form == "" || fs[i].Form == form {
			return fs[i], true
		}
	}
	return corpus.Document{}, false
}

// Filing returns ticker's filing of form for fiscalYear (the latest one
// when there are several, as with 10-Qs); form "" means the 10-K, or else
// the latest filing of any form for that year.
func (c *Catalog) Filing(ticker string, fiscalYear int, form string) (corpus.Document, bool) {
	fs := c.filings[ticker]
	find := func(form string) (corpus.Document, bool) {
		for i := len(fs) - 1; i >= 0; i-- {
			if fs[i].FiscalYear == fiscalYear && (form == "" || fs[i].Form == form) {
				return fs[i], true
			}
		}
		return corpus.Document{}, false
	}
	if form != "" {
		return find(form)
	}
	if d, ok := find("10-K"); ok {
		return d, true
	}
	return find("")
}

// HasFacts reports whether ticker's filing for fiscalYear (as Filing with
// form "" finds it) carries tagged facts: it is inline-XBRL HTML.
func (c *Catalog) HasFacts(ticker string, fiscalYear int) bool {
	d, ok := c.Filing(ticker, fiscalYear, "")
	return ok && hasFacts(d)
}

func hasFacts(d corpus.Document) bool { return d.Format == corpus.FormatHTML }

// ShortName returns the name a reader calls ticker's company by: the
// first word of its registrant name when that word names it alone
// ("Meta Platforms, Inc." -> "Meta", "Costco Wholesale Corporation" ->
// "Costco"), else the name without its legal form ("Apple Inc." -> "Apple",
// "Amazon.com, Inc." -> "Amazon"), or the ticker when the company is
// unknown.
func (c *Catalog) ShortName(ticker string) string {
	if c.names != nil {
		if n := c.names.short[ticker]; n != "" {
			return n
		}
	}
	if n := shortName(c.company[ticker]); n != "" {
		return n
	}
	return ticker
}

// shortName returns a company name without its legal form, a state suffix
// or ".com" ("Apple Inc." -> "Apple", "COSTCO WHOLESALE CORP /NEW" ->
// "COSTCO WHOLESALE", "Amazon.com, Inc." -> "Amazon"); see legalName.
func shortName(company string) string {
	return legalName(company).form
}
