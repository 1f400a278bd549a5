// Package edgartest is a fake SEC EDGAR for tests: one httptest server that
// stands in for both SEC hosts (the main site and the data host) and serves
// the SEC's documented shapes: the issuer list, submissions with their
// recent filings and older pages, archived filing documents and company
// facts. Tests script faults per path (429 with Retry-After, 5xx, a
// connection cut mid-body) and read back every request the server saw.
package edgartest

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// Server is a fake EDGAR. Its URL serves as both the main site and the
// data host.
type Server struct {
	*httptest.Server

	mu     sync.Mutex         // guards the fields below
	files  map[string][]byte  // body by path
	faults map[string][]Fault // faults still to play, by path
	hits   []Hit              // every request, in arrival order
	hooks  map[string]func()  // called when a path is requested, before it is served
	gzip   bool               // gzip bodies for clients that accept it
}

// Hit is one request the server saw.
type Hit struct {
	Time        time.Time // arrival
	Path        string
	UserAgent   string
	Conditional bool // If-None-Match or If-Modified-Since was sent
	Gzip        bool // the client accepted gzip
	Status      int
}

// Fault is a scripted failure of one request to a path.
type Fault struct {
	Status     int    // reply with this status and no body; 0 with CutAfter
	RetryAfter string // the Retry-After header sent with Status
	// CutAfter > 0 sends the whole response's headers and this many bytes
	// of its body, then drops the connection.
	CutAfter int
}

// LastModified is the Last-Modified every body is served with.
var LastModified = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// New starts a fake EDGAR, closed when the test ends.
func New(t testing.TB) *Server {
	s := NewServer()
	t.Cleanup(s.Close)
	return s
}

// NewServer starts a fake EDGAR; the caller closes it. It gzips bodies for
// clients that accept it.
func NewServer() *Server {
	s := &Server{files: map[string][]byte{}, faults: map[string][]Fault{}, hooks: map[string]func(){}, gzip: true}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// Put serves body at path.
func (s *Server) Put(path string, body []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.files[path] = body
}

// Fail scripts faults for the next requests to path, one per request.
func (s *Server) Fail(path string, faults ...Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults[path] = append(s.faults[path], faults...)
}

// OnRequest calls f when path is requested, before it is served.
func (s *Server) OnRequest(path string, f func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hooks[path] = f
}

// Hits returns the requests seen so far, in arrival order.
func (s *Server) Hits() []Hit {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Hit(nil), s.hits...)
}

// Count returns how many requests for path got status (0: any status).
func (s *Server) Count(path string, status int) int {
	n := 0
	for _, h := range s.Hits() {
		if h.Path == path && (status == 0 || h.Status == status) {
			n++
		}
	}
	return n
}

// MaxPerWindow returns the largest number of requests that arrived within
// any span of d.
func (s *Server) MaxPerWindow(d time.Duration) int {
	hits := s.Hits()
	best := 0
	for i := range hits {
		n := 0
		for j := i; j < len(hits) && hits[j].Time.Sub(hits[i].Time) < d; j++ {
			n++
		}
		best = max(best, n)
	}
	return best
}

func etag(body []byte) string {
	sum := sha256.Sum256(body)
	return `"` + hex.EncodeToString(sum[:8]) + `"`
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	hit := Hit{
		Time: time.Now(), Path: r.URL.Path, UserAgent: r.Header.Get("User-Agent"),
		Conditional: r.Header.Get("If-None-Match") != "" || r.Header.Get("If-Modified-Since") != "",
		Gzip:        strings.Contains(r.Header.Get("Accept-Encoding"), "gzip"),
	}
	s.mu.Lock()
	hook := s.hooks[r.URL.Path]
	s.mu.Unlock()
	if hook != nil {
		hook()
	}
	s.mu.Lock()
	body, ok := s.files[r.URL.Path]
	var fault *Fault
	if q := s.faults[r.URL.Path]; len(q) > 0 {
		fault, s.faults[r.URL.Path] = &q[0], q[1:]
	}
	gz := s.gzip && hit.Gzip
	s.mu.Unlock()

	status := http.StatusOK
	defer func() {
		hit.Status = status
		s.mu.Lock()
		s.hits = append(s.hits, hit)
		s.mu.Unlock()
	}()
	switch {
	case hit.UserAgent == "" || !strings.Contains(hit.UserAgent, "@"):
		// The SEC refuses undeclared clients.
		status = http.StatusForbidden
		http.Error(w, "Undeclared Automated Tool", status)
		return
	case fault != nil && fault.Status != 0:
		status = fault.Status
		if fault.RetryAfter != "" {
			w.Header().Set("Retry-After", fault.RetryAfter)
		}
		http.Error(w, http.StatusText(status), status)
		return
	case !ok:
		status = http.StatusNotFound
		http.NotFound(w, r)
		return
	}
	tag := etag(body)
	if r.Header.Get("If-None-Match") == tag {
		status = http.StatusNotModified
		w.WriteHeader(status)
		return
	}
	w.Header().Set("ETag", tag)
	w.Header().Set("Last-Modified", LastModified.Format(http.TimeFormat))
	if strings.HasSuffix(r.URL.Path, ".json") {
		w.Header().Set("Content-Type", "application/json")
	} else {
		w.Header().Set("Content-Type", "text/html")
	}
	out := body
	if gz {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write(body)
		zw.Close()
		out = b.Bytes()
		w.Header().Set("Content-Encoding", "gzip")
	}
	w.Header().Set("Content-Length", fmt.Sprint(len(out)))
	if fault != nil && fault.CutAfter > 0 {
		w.WriteHeader(http.StatusOK)
		w.Write(out[:min(fault.CutAfter, len(out)-1)])
		w.(http.Flusher).Flush()
		status = -1 // cut
		panic(http.ErrAbortHandler)
	}
	w.Write(out)
}

// Issuer is an issuer the fake knows, with its filings.
type Issuer struct {
	CIK           int
	Ticker        string
	Name          string
	FiscalYearEnd string // "MMDD"
	Filings       []Filing
}

// Filing is one filing of a fake issuer.
type Filing struct {
	Accession       string // "0000320193-24-000123"
	Form            string
	Filed           string // YYYY-MM-DD
	ReportDate      string // YYYY-MM-DD; "" for none
	PrimaryDocument string
	Body            []byte // the primary document; nil serves none (a 404)
	Older           bool   // listed on the older page rather than under recent
}

// DocumentPath returns the filing's archive path for an issuer.
func (f Filing) DocumentPath(cik int) string {
	return fmt.Sprintf("/Archives/edgar/data/%d/%s/%s", cik, strings.ReplaceAll(f.Accession, "-", ""), f.PrimaryDocument)
}

// SubmissionsPath returns the path of an issuer's submissions.
func SubmissionsPath(cik int) string { return fmt.Sprintf("/submissions/CIK%010d.json", cik) }

// OlderPagePath returns the path of an issuer's first older page.
func OlderPagePath(cik int) string {
	return fmt.Sprintf("/submissions/CIK%010d-submissions-001.json", cik)
}

// CompanyFactsPath returns the path of an issuer's company facts.
func CompanyFactsPath(cik int) string {
	return fmt.Sprintf("/api/xbrl/companyfacts/CIK%010d.json", cik)
}

// TickersPath is the path of the SEC's issuer list.
const TickersPath = "/files/company_tickers.json"

type columns struct {
	AccessionNumber       []string `json:"accessionNumber"`
	FilingDate            []string `json:"filingDate"`
	ReportDate            []string `json:"reportDate"`
	AcceptanceDateTime    []string `json:"acceptanceDateTime"`
	Form                  []string `json:"form"`
	Size                  []int    `json:"size"`
	IsXBRL                []int    `json:"isXBRL"`
	IsInlineXBRL          []int    `json:"isInlineXBRL"`
	PrimaryDocument       []string `json:"primaryDocument"`
	PrimaryDocDescription []string `json:"primaryDocDescription"`
}

func (c *columns) add(f Filing) {
	c.AccessionNumber = append(c.AccessionNumber, f.Accession)
	c.FilingDate = append(c.FilingDate, f.Filed)
	c.ReportDate = append(c.ReportDate, f.ReportDate)
	c.AcceptanceDateTime = append(c.AcceptanceDateTime, f.Filed+"T16:30:00.000Z")
	c.Form = append(c.Form, f.Form)
	c.Size = append(c.Size, len(f.Body))
	ix := 0
	if strings.HasSuffix(f.PrimaryDocument, ".htm") {
		ix = 1
	}
	c.IsXBRL = append(c.IsXBRL, ix)
	c.IsInlineXBRL = append(c.IsInlineXBRL, ix)
	c.PrimaryDocument = append(c.PrimaryDocument, f.PrimaryDocument)
	c.PrimaryDocDescription = append(c.PrimaryDocDescription, f.Form)
}

// AddIssuer serves an issuer's submissions (newest filings first, as the
// SEC lists them, the Older ones on an older page) and its documents.
func (s *Server) AddIssuer(is Issuer) {
	fs := append([]Filing(nil), is.Filings...)
	sort.SliceStable(fs, func(i, j int) bool { return fs[i].Filed > fs[j].Filed })
	var recent, older columns
	var from, to string
	for _, f := range fs {
		if f.Older {
			older.add(f)
			if from == "" || f.Filed < from {
				from = f.Filed
			}
			if f.Filed > to {
				to = f.Filed
			}
		} else {
			recent.add(f)
		}
		if f.Body != nil {
			s.Put(f.DocumentPath(is.CIK), f.Body)
		}
	}
	files := []map[string]any{}
	if len(older.AccessionNumber) > 0 {
		name := OlderPagePath(is.CIK)[len("/submissions/"):]
		files = append(files, map[string]any{"name": name, "filingCount": len(older.AccessionNumber), "filingFrom": from, "filingTo": to})
		s.Put(OlderPagePath(is.CIK), mustJSON(older))
	}
	sub := map[string]any{
		"cik": fmt.Sprint(is.CIK), "entityType": "operating", "name": is.Name, "tickers": []string{is.Ticker},
		"exchanges": []string{"Nasdaq"}, "fiscalYearEnd": is.FiscalYearEnd,
		"filings": map[string]any{"recent": recent, "files": files},
	}
	s.Put(SubmissionsPath(is.CIK), mustJSON(sub))
}

// PutTickers serves the SEC's issuer list of the issuers, in order.
func (s *Server) PutTickers(issuers ...Issuer) {
	m := map[string]any{}
	for i, is := range issuers {
		m[fmt.Sprint(i)] = map[string]any{"cik_str": is.CIK, "ticker": is.Ticker, "title": is.Name}
	}
	s.Put(TickersPath, mustJSON(m))
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// Document returns a small inline-XBRL annual or quarterly report: a cover
// naming the registrant, an MD&A with a sentence of its own (say) and a
// tagged revenue figure for the period.
func Document(company string, cik int, form string, start, end string, revenue int, say string) []byte {
	return fmt.Appendf(nil, `<?xml version="1.0" encoding="utf-8"?>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:ix="http://www.xbrl.org/2013/inlineXBRL"
 xmlns:xbrli="http://www.xbrl.org/2003/instance" xmlns:dei="http://xbrl.sec.gov/dei/2024">
<head><title>%[1]s %[3]s</title></head>
<body><div style="display:none"><ix:header><ix:hidden>
<ix:nonNumeric name="dei:EntityCentralIndexKey" contextRef="P">%010[2]d</ix:nonNumeric>
</ix:hidden><ix:resources>
<xbrli:context id="P"><xbrli:entity><xbrli:identifier scheme="http://www.sec.gov/CIK">%010[2]d</xbrli:identifier></xbrli:entity>
 <xbrli:period><xbrli:startDate>%[4]s</xbrli:startDate><xbrli:endDate>%[5]s</xbrli:endDate></xbrli:period></xbrli:context>
<xbrli:unit id="usd"><xbrli:measure>iso4217:USD</xbrli:measure></xbrli:unit>
</ix:resources></ix:header></div>
<p>UNITED STATES SECURITIES AND EXCHANGE COMMISSION</p>
<p>FORM %[3]s</p>
<p>For the period ended %[5]s</p>
<p><ix:nonNumeric name="dei:EntityRegistrantName" contextRef="P">%[1]s</ix:nonNumeric></p>
<p>Item 7. Management's Discussion and Analysis of Financial Condition and Results of Operations</p>
<p>%[7]s</p>
<table>
<tr><td>Total net revenue</td><td>$</td><td><ix:nonFraction name="us-gaap:Revenues" contextRef="P" unitRef="usd" decimals="-6" scale="6">%[6]d</ix:nonFraction></td></tr>
</table>
<p>Revenue for the period was $%[6]d million. Gross margin reflected product mix and component costs.</p>
<p>Item 8. Financial Statements and Supplementary Data</p>
<p>The financial statements of %[1]s follow.</p>
</body></html>
`, company, cik, form, start, end, revenue, say)
}
