package tools

import (
	"github.com/ledgerline/research/corpus"
)

// withoutSuperseded drops the company facts documents (see
// corpus.FormatCompanyFacts) of filings whose own document is among docs:
// when the filing itself is stored, the facts of its text are the ones
// looked up and quoted, with their place in the filing.
func withoutSuperseded(docs []corpus.Document) []corpus.Document {
	type filing struct {
		ticker, form, end string
	}
	own := map[filing]bool{}
	for _, d := range docs {
		if d.Format != corpus.FormatCompanyFacts {
			own[filing{d.Ticker, d.Form, d.PeriodEnd.Format("2006-01-02")}] = true
		}
	}
	out := docs[:0:0]
	for _, d := range docs {
		if d.Format == corpus.FormatCompanyFacts && own[filing{d.Ticker, corpus.FilingForm(d.Form), d.PeriodEnd.Format("2006-01-02")}] {
			continue
		}
		out = append(out, d)
	}
	return out
}
