package eval

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/ledgerline/research/corpus"
)

// RetrievalSetJSONL is the frozen retrieval set, embedded in the binary.
//
//go:embed retrieval.jsonl
var RetrievalSetJSONL []byte

// RetrievalQuery is one query of the retrieval set.
type RetrievalQuery struct {
	ID          string   `json:"id"`
	Query       string   `json:"query"`
	Tickers     []string `json:"tickers"`
	FiscalYears []int    `json:"fiscal_years"`
	Form        string   `json:"form"`
	Answers     []Answer `json:"answers"`
	Note        string   `json:"note"`
}

// Answer is a passage that answers a query: a chunk is relevant to it when
// it comes from the answer's filing and contains the phrase (compared with
// white space collapsed).
type Answer struct {
	Ticker     string `json:"ticker"`
	FiscalYear int    `json:"fiscal_year"`
	Form       string `json:"form"`
	Phrase     string `json:"phrase"`
}

// Matches reports whether a search result satisfies the answer.
func (a Answer) Matches(r corpus.SearchResult) bool {
	return r.Ticker == a.Ticker && r.FiscalYear == a.FiscalYear && r.Form == a.Form &&
		strings.Contains(collapse(r.Text), collapse(a.Phrase))
}

func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

// LoadRetrievalSet reads a retrieval set in JSONL; errors name the line.
func LoadRetrievalSet(r io.Reader) ([]RetrievalQuery, error) {
	var out []RetrievalQuery
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	seen := map[string]bool{}
	for line := 1; sc.Scan(); line++ {
		raw := bytes.TrimSpace(sc.Bytes())
		if len(raw) == 0 || raw[0] == '#' {
			continue
		}
		var q RetrievalQuery
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&q); err != nil {
			return nil, fmt.Errorf("line %d: %v", line, err)
		}
		switch {
		case q.ID == "" || q.Query == "":
			return nil, fmt.Errorf("line %d: id and query are required", line)
		case seen[q.ID]:
			return nil, fmt.Errorf("line %d: duplicate id %q", line, q.ID)
		case len(q.Answers) == 0:
			return nil, fmt.Errorf("line %d: %s has no answers", line, q.ID)
		}
		for _, a := range q.Answers {
			if a.Ticker == "" || a.Form == "" || a.FiscalYear == 0 || strings.TrimSpace(a.Phrase) == "" {
				return nil, fmt.Errorf("line %d: %s has an incomplete answer %+v", line, q.ID, a)
			}
		}
		seen[q.ID] = true
		out = append(out, q)
	}
	return out, sc.Err()
}

// Method is one retrieval method under evaluation.
type Method struct {
	Name       string
	Mode       corpus.SearchMode
	Interleave bool // per-issuer interleaving when a query names several tickers
}

// Methods are the methods RunRetrieval compares by default.
var Methods = []Method{
	{Name: "fulltext", Mode: corpus.ModeFullText},
	{Name: "vector", Mode: corpus.ModeVector},
	{Name: "hybrid", Mode: corpus.ModeHybrid},
	{Name: "hybrid+interleave", Mode: corpus.ModeHybrid, Interleave: true},
}

// MethodScore is a method's mean scores over the set.
type MethodScore struct {
	Method  string
	Queries int
	Recall  map[int]float64 // by k: mean share of a query's answers found in the top k
	NDCG    map[int]float64 // by k: mean nDCG
	MRR     float64         // mean reciprocal rank of the first relevant result
	// IssuerCoverage is, over the queries naming several tickers, the mean
	// share of those tickers with a result in the top max(k).
	IssuerCoverage float64
	PerItem        []ItemScore
}

// ItemScore is one query's result under one method.
type ItemScore struct {
	ID     string
	Recall map[int]float64
	NDCG   map[int]float64
	Rank   int // rank of the first relevant result; 0 when none in the top max(k)
	// Issuers is the share of the query's tickers with a result; 1 when
	// the query names none.
	Issuers float64
}

// RunRetrieval runs every query of set with each method and scores the
// rankings at each k in ks.
func RunRetrieval(ctx context.Context, s *corpus.Searcher, set []RetrievalQuery, methods []Method, ks []int) ([]MethodScore, error) {
	maxK := 0
	for _, k := range ks {
		maxK = max(maxK, k)
	}
	var out []MethodScore
	for _, m := range methods {
		ms := MethodScore{Method: m.Name, Recall: map[int]float64{}, NDCG: map[int]float64{}}
		multi := 0
		for _, q := range set {
			res, err := s.Search(ctx, corpus.SearchRequest{
				Query: q.Query, K: maxK, Mode: m.Mode, NoInterleave: !m.Interleave,
				Filter: corpus.Filter{Tickers: append([]string(nil), q.Tickers...), FiscalYears: q.FiscalYears, Form: q.Form},
			})
			if err != nil {
				return nil, fmt.Errorf("%s with %s: %w", q.ID, m.Name, err)
			}
			item := scoreItem(q, res, ks)
			ms.PerItem = append(ms.PerItem, item)
			for _, k := range ks {
				ms.Recall[k] += item.Recall[k]
				ms.NDCG[k] += item.NDCG[k]
			}
			if item.Rank > 0 {
				ms.MRR += 1 / float64(item.Rank)
			}
			if len(q.Tickers) > 1 {
				ms.IssuerCoverage += item.Issuers
				multi++
			}
		}
		if multi > 0 {
			ms.IssuerCoverage /= float64(multi)
		}
		ms.Queries = len(set)
		if n := float64(len(set)); n > 0 {
			for _, k := range ks {
				ms.Recall[k] /= n
				ms.NDCG[k] /= n
			}
			ms.MRR /= n
		}
		out = append(out, ms)
	}
	return out, nil
}

// scoreItem scores one ranking. A result gains 1 when it satisfies an
// answer no higher result satisfied, so several chunks holding the same
// passage count once; the ideal ranking finds every answer first.
func scoreItem(q RetrievalQuery, res []corpus.SearchResult, ks []int) ItemScore {
	item := ItemScore{ID: q.ID, Recall: map[int]float64{}, NDCG: map[int]float64{}}
	found := make([]bool, len(q.Answers))
	gains := make([]float64, len(res))
	for i, r := range res {
		for j, a := range q.Answers {
			if a.Matches(r) {
				if item.Rank == 0 {
					item.Rank = i + 1
				}
				if !found[j] {
					found[j] = true
					gains[i] = 1
				}
			}
		}
	}
	item.Issuers = 1
	if len(q.Tickers) > 0 {
		seen := map[string]bool{}
		for _, r := range res {
			seen[r.Ticker] = true
		}
		n := 0
		for _, t := range q.Tickers {
			if seen[strings.ToUpper(t)] {
				n++
			}
		}
		item.Issuers = float64(n) / float64(len(q.Tickers))
	}
	for _, k := range ks {
		var dcg, ideal float64
		hits := 0.0
		for i := 0; i < min(k, len(res)); i++ {
			dcg += gains[i] / math.Log2(float64(i+2))
			hits += gains[i]
		}
		for i := 0; i < min(k, len(q.Answers)); i++ {
			ideal += 1 / math.Log2(float64(i+2))
		}
		item.Recall[k] = hits / float64(len(q.Answers))
		if ideal > 0 {
			item.NDCG[k] = dcg / ideal
		}
	}
	return item
}
