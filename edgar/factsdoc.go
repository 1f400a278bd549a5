package edgar

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/ledgerline/research/corpus"
)

// ByAccession groups the facts by the filing that reported them, each
// group in the order of Facts.
func (cf *CompanyFacts) ByAccession() map[string][]CompanyFact {
	out := map[string][]CompanyFact{}
	for _, f := range cf.Facts {
		out[f.Accession] = append(out[f.Accession], f)
	}
	return out
}

// maxFactLabel bounds the bytes of a concept's label in a facts document's
// line, so that a line stays one fact an evidence excerpt can quote whole.
const maxFactLabel = 120

// FactsDocument renders the company facts one filing reported (values,
// all of accession fl.Accession) as a document the corpus stores, and
// returns it with its facts; nil when no value is left to store.
//
// Every claim the engine makes must be traceable to a span of a stored
// document, and company facts come as JSON, not as a document. So the
// filing's values become a text of their own: a heading naming the issuer,
// the filing (form, accession number, filing date, period) and the SEC's
// company facts as the source, then one line per value:
//
//	us-gaap:Revenues (Revenues) | USD | 2024-01-01 to 2024-12-31 | 5200000000 | 10-K 0001000001-25-000004 filed 2025-02-10
//
// Each fact's span is the value in its line, so the evidence a lookup
// quotes is that line: the value with its concept, unit, period and the
// filing it was reported in. The document's form is the filing's with
// corpus.CompanyFactsFormSuffix ("10-K XBRL"), its format
// corpus.FormatCompanyFacts, its fiscal year and period end the filing's
// (from the submissions), and its source the company facts URL with the
// accession as fragment. It has no chunks: its lines are figures for
// lookup_fact, not passages to search. The text is a pure function of the
// values, so the same values make the same document (and id) again.
func FactsDocument(values []CompanyFact, fl Filing, ticker, company, entityName, source string) (*corpus.Document, []corpus.Fact) {
	type key struct {
		concept, unit, start, end, value string
	}
	seen := map[key]bool{}
	var b strings.Builder
	fmt.Fprintf(&b, "%s (CIK %d, %s): the XBRL values the SEC's company facts list for the %s filed %s, accession %s, for the period ended %s (fiscal year %d).\n\n",
		clean(firstNonEmpty(entityName, company), 200), fl.CIK, ticker, fl.Form, fl.Filed.Format(time.DateOnly), fl.Accession,
		fl.PeriodEnd.Format(time.DateOnly), fl.FiscalYear)
	filing := fmt.Sprintf("%s %s filed %s", fl.Form, fl.Accession, fl.Filed.Format(time.DateOnly))
	var facts []corpus.Fact
	for _, v := range values {
		if v.Accession != fl.Accession {
			continue
		}
		concept, unit := clean(v.Concept, maxFactLabel), clean(v.Unit, 40)
		if concept == "" || unit == "" || strings.Contains(concept+unit, "|") {
			continue
		}
		k := key{concept, unit, dateOrEmpty(v.Start), v.End.Format(time.DateOnly), v.Value.String()}
		if seen[k] {
			continue
		}
		seen[k] = true
		period := "at " + k.end
		if !v.Instant() {
			period = k.start + " to " + k.end
		}
		b.WriteString(concept)
		if label := strings.ReplaceAll(clean(v.Label, maxFactLabel), "|", "/"); label != "" {
			b.WriteString(" (" + label + ")")
		}
		fmt.Fprintf(&b, " | %s | %s | ", unit, period)
		start := b.Len()
		b.WriteString(k.value)
		end := b.Len()
		fmt.Fprintf(&b, " | %s\n", filing)
		facts = append(facts, corpus.Fact{
			Kind: corpus.FactCompanyFacts, Concept: concept, Value: v.Value, Unit: unit,
			PeriodStart: v.Start, PeriodEnd: v.End, Instant: v.Instant(), Start: start, End: end,
		})
	}
	if len(facts) == 0 {
		return nil, nil
	}
	doc := &corpus.Document{
		Ticker: ticker, Company: company, Form: corpus.CompanyFactsForm(fl.Form), FiscalYear: fl.FiscalYear,
		PeriodEnd: fl.PeriodEnd, Filed: fl.Filed, Source: source + "#" + fl.Accession, Format: corpus.FormatCompanyFacts,
		Entity: corpus.Entity{Registrant: clean(entityName, 200), CIK: strconv.Itoa(fl.CIK)},
		Text:   b.String(),
	}
	doc.ID = corpus.DocumentID(doc.Text)
	for i := range facts {
		facts[i].DocumentID = doc.ID
	}
	return doc, facts
}

func dateOrEmpty(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format(time.DateOnly)
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}

// clean makes s one canonical line of at most n bytes: control characters
// dropped, runs of white space collapsed to one space, trimmed, cut on a
// rune boundary.
func clean(s string, n int) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		switch {
		case unicode.IsSpace(r):
			space = b.Len() > 0
			continue
		case unicode.IsControl(r) || r == utf8.RuneError || !unicode.IsPrint(r):
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	out := b.String()
	if len(out) > n {
		cut := n
		for cut > 0 && !utf8.RuneStart(out[cut]) {
			cut--
		}
		out = strings.TrimSpace(out[:cut])
	}
	return out
}
