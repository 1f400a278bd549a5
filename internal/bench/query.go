package bench

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/ledgerline/research/corpus"
)

// Query is one benchmark search.
type Query struct {
	Text   string
	Filter corpus.Filter
}

// filtered reports whether the query has a filter.
func (q Query) filtered() bool {
	f := q.Filter
	return len(f.Tickers) > 0 || f.Form != "" || len(f.FiscalYears) > 0 || f.Section != ""
}

// GenerateQueries returns n queries of two to five distinct words of v
// that the full-text index keeps: each word is, with even odds, drawn
// Zipf-distributed (a common word) or uniformly (most likely a rare one).
// Every third query is filtered to one of tickers, drawn uniformly: with
// many tickers, the case of a filter matching a small share of the chunks.
func GenerateQueries(v *Vocabulary, tickers []string, n int, seed uint64) []Query {
	r := rand.New(rand.NewPCG(seed, 0x7175657279))
	zipf := rand.NewZipf(r, 1.07, 2, uint64(len(v.content)-1))
	qs := make([]Query, n)
	for i := range qs {
		want := min(2+r.IntN(4), len(v.content))
		var words []string
		for len(words) < want {
			var rank int
			if r.IntN(2) == 0 {
				rank = v.content[zipf.Uint64()]
			} else {
				rank = v.content[r.IntN(len(v.content))]
			}
			if !slices.Contains(words, v.words[rank]) {
				words = append(words, v.words[rank])
			}
		}
		qs[i].Text = strings.Join(words, " ")
		if i%3 == 2 && len(tickers) > 0 {
			qs[i].Filter.Tickers = []string{tickers[r.IntN(len(tickers))]}
		}
	}
	return qs
}

// ReadQueries reads queries from JSONL whose objects have a "query" field
// and, optionally, the filter fields "tickers", "fiscal_years", "form" and
// "section" (the format of eval/retrieval.jsonl); other fields are ignored,
// blank lines skipped.
func ReadQueries(r io.Reader) ([]Query, error) {
	var qs []Query
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
	for line := 1; sc.Scan(); line++ {
		b := strings.TrimSpace(sc.Text())
		if b == "" {
			continue
		}
		var obj struct {
			Query       string   `json:"query"`
			Tickers     []string `json:"tickers"`
			FiscalYears []int    `json:"fiscal_years"`
			Form        string   `json:"form"`
			Section     string   `json:"section"`
		}
		if err := json.Unmarshal([]byte(b), &obj); err != nil {
			return nil, fmt.Errorf("bench: queries line %d: %w", line, err)
		}
		if strings.TrimSpace(obj.Query) == "" {
			return nil, fmt.Errorf("bench: queries line %d: no \"query\"", line)
		}
		qs = append(qs, Query{Text: obj.Query, Filter: corpus.Filter{
			Tickers: obj.Tickers, FiscalYears: obj.FiscalYears, Form: obj.Form, Section: obj.Section,
		}})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("bench: queries: %w", err)
	}
	return qs, nil
}

// DefaultQueries returns thirty analyst queries about 10-K and 10-Q
// filings, unfiltered, for stores without an evaluation set.
func DefaultQueries() []Query {
	texts := []string{
		"gross margin decreased due to",
		"data center revenue growth",
		"supply chain concentration risk",
		"foreign currency exchange rate impact on net sales",
		"share repurchase program authorization",
		"effective tax rate change",
		"operating expenses increased primarily due to headcount",
		"research and development expense as a percentage of revenue",
		"goodwill impairment",
		"inventory write-downs and excess purchase commitments",
		"cybersecurity incident risk",
		"customer concentration largest customers percentage of revenue",
		"cloud services revenue",
		"advertising revenue decline",
		"deferred revenue and remaining performance obligations",
		"long-term debt maturities and interest rates",
		"liquidity and capital resources cash equivalents",
		"litigation and legal proceedings",
		"antitrust investigations regulatory scrutiny",
		"export controls restrictions china",
		"seasonality of holiday quarter sales",
		"paid memberships streaming subscribers",
		"lease obligations operating leases",
		"stock-based compensation expense",
		"restructuring charges severance",
		"capital expenditures for data centers and servers",
		"dividends declared per share",
		"segment operating income by geography",
		"inflation and rising interest rates impact on demand",
		"material weakness in internal control over financial reporting",
	}
	qs := make([]Query, len(texts))
	for i, t := range texts {
		qs[i] = Query{Text: t}
	}
	return qs
}
