package server

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// documentPart is how many bytes of a filing's canonical text GET
// /v1/runs/{id}/evidence/{eid}/document answers at once. A part ends at
// a line break when one lies in its last documentSnap bytes, so parts do
// not cut lines.
const (
	documentPart = 24 << 10
	documentSnap = 2 << 10
)

// documentView is one part of the filing that holds a run's evidence
// span. Text is the canonical text from TextStart to TextEnd; Start and
// End locate the span in the whole document (it may lie in another part,
// or straddle two). Clients render Text as text.
type documentView struct {
	EvidenceID  string `json:"evidence_id"`
	DocumentID  string `json:"document_id"`
	Ticker      string `json:"ticker"`
	Company     string `json:"company"`
	Form        string `json:"form"`
	FiscalYear  int    `json:"fiscal_year"`
	PeriodEnd   string `json:"period_end"`
	Filed       string `json:"filed,omitempty"`
	Pages       int    `json:"pages"`      // the filing's pages; 0 when it has no page breaks
	FirstPage   int    `json:"first_page"` // the filing's page TextStart falls on; 0 without pages
	Start       int    `json:"start"`
	End         int    `json:"end"`
	SpanPart    int    `json:"span_part"` // the part holding Start
	Part        int    `json:"part"`      // 1-based
	Parts       int    `json:"parts"`
	Text        string `json:"text"`
	TextStart   int    `json:"text_start"`
	TextEnd     int    `json:"text_end"`
	DocumentLen int    `json:"document_length"`
}

// documentParts cuts text into parts: their start offsets, in order.
func documentParts(text string) []int {
	starts := []int{0}
	for at := 0; ; {
		next := at + documentPart
		if next >= len(text) {
			return starts
		}
		if i := strings.LastIndexAny(text[next-documentSnap:next], "\n\f"); i >= 0 {
			next = next - documentSnap + i + 1
		}
		next = runeStart(text, next)
		starts = append(starts, next)
		at = next
	}
}

// partOf is the 1-based part of parts that holds offset.
func partOf(parts []int, offset int) int {
	p := 1
	for i, s := range parts {
		if s <= offset {
			p = i + 1
		}
	}
	return p
}

// runDocument answers a part of the whole filing that holds one of the
// tenant's run's evidence spans: by default the part the span starts in,
// or ?part=N. The filing is reached through the run's evidence, as the
// source view is, so a run's reader opens only filings the run cites.
func (s *Server) runDocument(w http.ResponseWriter, r *http.Request) {
	part := 0
	if v := r.URL.Query().Get("part"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			s.writeFieldError(w, r, badField("part", "want a part number from 1"))
			return
		}
		part = n
	}
	ev, doc, ok := s.requestedEvidence(w, r)
	if !ok {
		return
	}
	text := doc.Text
	parts := documentParts(text)
	spanPart := partOf(parts, ev.Start)
	if part == 0 {
		part = spanPart
	}
	if part > len(parts) {
		s.writeFieldError(w, r, badField("part", "the filing has %d parts; want a part number from 1 to %d", len(parts), len(parts)))
		return
	}
	from, to := parts[part-1], len(text)
	if part < len(parts) {
		to = parts[part]
	}
	v := documentView{
		EvidenceID: ev.ID, DocumentID: doc.ID, Ticker: doc.Ticker, Company: doc.Company, Form: doc.Form,
		FiscalYear: doc.FiscalYear, PeriodEnd: doc.PeriodEnd.Format(time.DateOnly), Pages: doc.Pages,
		Start: ev.Start, End: ev.End, SpanPart: spanPart, Part: part, Parts: len(parts),
		Text: text[from:to], TextStart: from, TextEnd: to, DocumentLen: len(text),
	}
	if !doc.Filed.IsZero() {
		v.Filed = doc.Filed.Format(time.DateOnly)
	}
	if doc.Pages > 0 {
		v.FirstPage = strings.Count(text[:from], "\f") + 1
	}
	writeJSON(w, http.StatusOK, v)
}
