package eval

import (
	"slices"
)

// GoldenRetrievalSet turns the golden items that name their evidence into
// retrieval queries, so RunRetrieval scores the search methods on the
// questions the engine is evaluated on: the query is the question as
// asked, filtered to the evidence's issuers and fiscal years (and form,
// when every passage comes from one), and each evidence is an answer whose
// primary phrase makes a chunk relevant.
func GoldenRetrievalSet(items []GoldenItem) []RetrievalQuery {
	var out []RetrievalQuery
	for _, it := range items {
		if len(it.Evidence) == 0 {
			continue
		}
		q := RetrievalQuery{ID: it.ID, Query: it.Question, Form: it.Evidence[0].Form, Note: string(it.Class)}
		for _, e := range it.Evidence {
			if !slices.Contains(q.Tickers, e.Ticker) {
				q.Tickers = append(q.Tickers, e.Ticker)
			}
			if !slices.Contains(q.FiscalYears, e.FiscalYear) {
				q.FiscalYears = append(q.FiscalYears, e.FiscalYear)
			}
			if e.Form != q.Form {
				q.Form = ""
			}
			if !slices.Contains(q.Answers, e.Answer) {
				q.Answers = append(q.Answers, e.Answer)
			}
		}
		slices.Sort(q.FiscalYears)
		out = append(out, q)
	}
	return out
}
