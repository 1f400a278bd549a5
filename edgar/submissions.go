package edgar

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Submissions is an issuer's filing history as the SEC's data host serves
// it at /submissions/CIK##########.json: the issuer and its filings, the
// most recent in Filings.Recent and older ones on the pages Filings.Files
// lists.
type Submissions struct {
	CIK           flexInt  `json:"cik"`
	Name          string   `json:"name"`
	Tickers       []string `json:"tickers"`
	FiscalYearEnd string   `json:"fiscalYearEnd"` // "MMDD", e.g. "0928"; "" when unknown
	Filings       struct {
		Recent FilingColumns `json:"recent"`
		Files  []FilingsPage `json:"files"`
	} `json:"filings"`
}

// FilingsPage is an older page of an issuer's filings.
type FilingsPage struct {
	Name        string `json:"name"` // "CIK0000320193-submissions-001.json", under /submissions/
	FilingCount int    `json:"filingCount"`
	FilingFrom  string `json:"filingFrom"` // YYYY-MM-DD
	FilingTo    string `json:"filingTo"`
}

// FilingColumns is the SEC's columnar list of filings: one array per
// field, index i of every array describing filing i. An older page is one
// such object at the top level.
type FilingColumns struct {
	AccessionNumber       []string  `json:"accessionNumber"`
	FilingDate            []string  `json:"filingDate"`
	ReportDate            []string  `json:"reportDate"`
	Form                  []string  `json:"form"`
	PrimaryDocument       []string  `json:"primaryDocument"`
	PrimaryDocDescription []string  `json:"primaryDocDescription"`
	IsXBRL                []flexInt `json:"isXBRL"`
	IsInlineXBRL          []flexInt `json:"isInlineXBRL"`
	Size                  []flexInt `json:"size"`
}

// Filing is one filing of an issuer.
type Filing struct {
	CIK             int
	Accession       string    // "0000320193-24-000123"
	Form            string    // "10-K", "10-K/A", ...
	Filed           time.Time // filing date
	PeriodEnd       time.Time // the report date; zero when the filing has none
	FiscalYear      int       // see FiscalYear; 0 without a period end
	PrimaryDocument string    // file name within the filing's folder
	InlineXBRL      bool
	Size            int // bytes of the whole submission, as the SEC lists it
}

// ArchivePath returns the path of the filing's primary document under the
// SEC's main site.
func (f Filing) ArchivePath() string {
	return fmt.Sprintf("/Archives/edgar/data/%d/%s/%s", f.CIK, strings.ReplaceAll(f.Accession, "-", ""), f.PrimaryDocument)
}

// ParseSubmissions reads an issuer's submissions JSON.
func ParseSubmissions(raw []byte) (*Submissions, error) {
	var s Submissions
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("edgar: submissions: %w", err)
	}
	if s.CIK <= 0 {
		return nil, fmt.Errorf("edgar: submissions: no cik")
	}
	return &s, nil
}

// ParseFilingsPage reads an older page of an issuer's filings.
func ParseFilingsPage(raw []byte) (*FilingColumns, error) {
	var c FilingColumns
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, fmt.Errorf("edgar: filings page: %w", err)
	}
	return &c, nil
}

// Filings returns the filings the columns list, with fiscal years reckoned
// from fiscalYearEnd ("MMDD"). A row whose accession number, form or
// filing date is missing or malformed is skipped: without them the filing
// can be neither found nor placed.
func (c *FilingColumns) Filings(cik int, fiscalYearEnd string) []Filing {
	n := len(c.AccessionNumber)
	at := func(col []string, i int) string {
		if i < len(col) {
			return strings.TrimSpace(col[i])
		}
		return ""
	}
	atInt := func(col []flexInt, i int) int {
		if i < len(col) {
			return int(col[i])
		}
		return 0
	}
	var out []Filing
	for i := range n {
		f := Filing{
			CIK: cik, Accession: at(c.AccessionNumber, i), Form: strings.ToUpper(at(c.Form, i)),
			PrimaryDocument: at(c.PrimaryDocument, i), InlineXBRL: atInt(c.IsInlineXBRL, i) == 1, Size: atInt(c.Size, i),
		}
		filed, err := time.Parse(time.DateOnly, at(c.FilingDate, i))
		if err != nil || f.Accession == "" || f.Form == "" {
			continue
		}
		f.Filed = filed
		if pe, err := time.Parse(time.DateOnly, at(c.ReportDate, i)); err == nil {
			f.PeriodEnd = pe
			f.FiscalYear = FiscalYear(pe, fiscalYearEnd)
		}
		out = append(out, f)
	}
	return out
}

// FiscalYear returns the fiscal year a period ending on periodEnd falls in,
// for an issuer whose fiscal year ends on fiscalYearEnd ("MMDD"): the year
// of the first fiscal year end on or after the period end, where a period
// ending up to a week after a fiscal year end (a 52/53-week year) belongs
// to the year that just ended, and a year ending in the first week of
// January is named by the calendar year before, which it almost wholly
// covers. Without a usable fiscalYearEnd, the calendar year of periodEnd.
func FiscalYear(periodEnd time.Time, fiscalYearEnd string) int {
	if len(fiscalYearEnd) != 4 {
		return periodEnd.Year()
	}
	mm, err1 := strconv.Atoi(fiscalYearEnd[:2])
	dd, err2 := strconv.Atoi(fiscalYearEnd[2:])
	if err1 != nil || err2 != nil || mm < 1 || mm > 12 || dd < 1 || dd > 31 {
		return periodEnd.Year()
	}
	const slack = 7 * 24 * time.Hour
	var close time.Time
	for y := periodEnd.Year() - 1; y <= periodEnd.Year()+1; y++ {
		fye := time.Date(y, time.Month(mm), min(dd, daysIn(time.Month(mm), y)), 0, 0, 0, 0, time.UTC)
		if !periodEnd.After(fye.Add(slack)) {
			close = fye
			break
		}
	}
	if close.IsZero() {
		return periodEnd.Year()
	}
	if close.Month() == time.January && close.Day() <= 7 {
		return close.Year() - 1
	}
	return close.Year()
}

func daysIn(m time.Month, year int) int {
	return time.Date(year, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// flexInt reads a JSON number or a string holding one (the SEC writes a
// CIK as a string in one file and a number in another); anything else is 0.
type flexInt int

func (n *flexInt) UnmarshalJSON(b []byte) error {
	b = bytes.Trim(bytes.TrimSpace(b), `"`)
	v, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		*n = 0
		return nil
	}
	*n = flexInt(v)
	return nil
}
