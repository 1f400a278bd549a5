package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ledgerline/research/corpus"
)

// PageQuestion is a question whose evidence lies on known pages of one
// filing (the format of eval/pages.jsonl).
type PageQuestion struct {
	ID         string         `json:"id"`
	Paraphrase string         `json:"paraphrase_of,omitempty"` // the id of the question this one rewords
	Split      string         `json:"split"`                   // "tune" or "test"
	Kind       string         `json:"kind"`                    // "table" or "text": where the evidence is
	Question   string         `json:"question"`
	Ticker     string         `json:"ticker"`
	Form       string         `json:"form"`
	FiscalYear int            `json:"fiscal_year"`
	Source     string         `json:"source"` // the filing's path in the corpus manifest
	Evidence   []PageEvidence `json:"evidence"`
}

// PageEvidence is one piece of evidence a question needs: a phrase of the
// filing and every page it is printed on. Any of the pages satisfies it.
type PageEvidence struct {
	Phrase string `json:"phrase"`
	Pages  []int  `json:"pages"`
}

// Splits of a question set.
const (
	SplitTune = "tune"
	SplitTest = "test"
)

// ReadPageQuestions reads questions from JSONL, one PageQuestion a line;
// blank lines are skipped. Every question needs an id, a split of "tune"
// or "test", a ticker and at least one evidence page.
func ReadPageQuestions(r io.Reader) ([]PageQuestion, error) {
	var qs []PageQuestion
	ids := map[string]bool{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
	for line := 1; sc.Scan(); line++ {
		b := strings.TrimSpace(sc.Text())
		if b == "" {
			continue
		}
		var q PageQuestion
		dec := json.NewDecoder(strings.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&q); err != nil {
			return nil, fmt.Errorf("bench: page questions line %d: %w", line, err)
		}
		switch {
		case q.ID == "" || ids[q.ID]:
			return nil, fmt.Errorf("bench: page questions line %d: missing or repeated id %q", line, q.ID)
		case q.Split != SplitTune && q.Split != SplitTest:
			return nil, fmt.Errorf("bench: page questions line %d (%s): split %q: want tune or test", line, q.ID, q.Split)
		case strings.TrimSpace(q.Question) == "" || q.Ticker == "":
			return nil, fmt.Errorf("bench: page questions line %d (%s): no question or ticker", line, q.ID)
		case len(q.Evidence) == 0:
			return nil, fmt.Errorf("bench: page questions line %d (%s): no evidence", line, q.ID)
		}
		for _, e := range q.Evidence {
			if len(e.Pages) == 0 {
				return nil, fmt.Errorf("bench: page questions line %d (%s): evidence %q has no page", line, q.ID, e.Phrase)
			}
		}
		ids[q.ID] = true
		qs = append(qs, q)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("bench: page questions: %w", err)
	}
	return qs, nil
}

// PagesOpts configures RunPages. The zero value is valid.
type PagesOpts struct {
	Store string              // names the store in the report
	Modes []corpus.SearchMode // empty means fulltext, vector and hybrid
	// NoBM25 leaves out the plain BM25 baseline.
	NoBM25 bool
}

// PagesReport is the outcome of RunPages.
type PagesReport struct {
	Store     string `json:"store"`
	Documents int    `json:"documents"`
	Chunks    int    `json:"chunks"`
	Questions int    `json:"questions"`
	// Rows hold the figures per split ("tune", "test", "all") and method
	// (a search mode, or "bm25").
	Rows []PagesRow `json:"rows"`
	// Ranks holds, per method, each question's rank (1-based) of the first
	// result on an evidence page within the top 10, 0 when none is.
	Ranks map[string]map[string]int `json:"ranks"`
	// Latency is the mean time of one search per method.
	Latency map[string]time.Duration `json:"latency_ns"`
}

// PagesRow is the retrieval quality of one method on one split.
type PagesRow struct {
	Split     string  `json:"split"`
	Method    string  `json:"method"`
	Questions int     `json:"questions"`
	Recall5   float64 `json:"recall_at_5"`
	Recall10  float64 `json:"recall_at_10"`
	NDCG10    float64 `json:"ndcg_at_10"`
}

// MethodBM25 names the plain BM25 baseline in a PagesReport.
const MethodBM25 = "bm25"

// pagesK is the depth of every ranking the report scores.
const pagesK = 10

// RunPages measures page retrieval: each question is searched with its
// issuer filter (its ticker, nothing else) by every mode of a
// corpus.Searcher over store with emb, and by a plain BM25 over the same
// chunks, k = 10. A result is relevant when it comes from the question's
// filing (ticker, form and fiscal year) and its page is one of an
// evidence's pages. Page recall@k is the share of questions with a relevant
// result in the top k; nDCG@10 gains 1 for each evidence the first time a
// result on one of its pages appears, against an ideal that finds every
// evidence at once.
func RunPages(ctx context.Context, store corpus.Store, emb corpus.Embedder, qs []PageQuestion, opts *PagesOpts, progress io.Writer) (*PagesReport, error) {
	var o PagesOpts
	if opts != nil {
		o = *opts
	}
	if len(qs) == 0 {
		return nil, errors.New("bench: no page questions")
	}
	if len(o.Modes) == 0 {
		o.Modes = allModes
	}
	p := newProgress(progress)
	st, err := store.Stats(ctx)
	if err != nil {
		return nil, err
	}
	docs, err := store.Documents(ctx)
	if err != nil {
		return nil, err
	}
	rep := &PagesReport{Store: o.Store, Documents: st.Documents, Chunks: st.Chunks, Questions: len(qs),
		Ranks: map[string]map[string]int{}, Latency: map[string]time.Duration{}}
	// Each question's filing, as a document id.
	want := make([]string, len(qs))
	for i, q := range qs {
		for _, d := range docs {
			if d.Ticker == q.Ticker && d.Form == q.Form && d.FiscalYear == q.FiscalYear {
				want[i] = d.ID
			}
		}
		if want[i] == "" {
			return nil, fmt.Errorf("bench: question %s: the store holds no %s %s for fiscal %d", q.ID, q.Ticker, q.Form, q.FiscalYear)
		}
	}
	rankings := map[string][][]corpus.SearchResult{}
	var methods []string
	searcher := corpus.NewSearcher(store, emb)
	for _, mode := range o.Modes {
		m := string(mode)
		methods = append(methods, m)
		start := time.Now()
		for _, q := range qs {
			res, err := searcher.Search(ctx, corpus.SearchRequest{
				Query: q.Question, K: pagesK, Mode: mode, Filter: corpus.Filter{Tickers: []string{q.Ticker}},
			})
			if err != nil {
				return nil, fmt.Errorf("bench: %s search of %s: %w", mode, q.ID, err)
			}
			rankings[m] = append(rankings[m], res)
		}
		rep.Latency[m] = time.Since(start) / time.Duration(len(qs))
		p.printf("%s: %d questions searched", m, len(qs))
	}
	if !o.NoBM25 {
		ix, err := NewBM25Index(ctx, store, docs)
		if err != nil {
			return nil, err
		}
		p.printf("bm25: %d chunks indexed", ix.Len())
		methods = append(methods, MethodBM25)
		start := time.Now()
		for _, q := range qs {
			rankings[MethodBM25] = append(rankings[MethodBM25], ix.Search(q.Question, q.Ticker, pagesK))
		}
		rep.Latency[MethodBM25] = time.Since(start) / time.Duration(len(qs))
	}
	for _, split := range []string{SplitTest, SplitTune, "all"} {
		for _, m := range methods {
			row := PagesRow{Split: split, Method: m}
			for i, q := range qs {
				if split != "all" && q.Split != split {
					continue
				}
				s := scorePages(q, want[i], rankings[m][i])
				row.Questions++
				row.Recall5 += s.hit5
				row.Recall10 += s.hit10
				row.NDCG10 += s.ndcg
				if split == "all" {
					if rep.Ranks[m] == nil {
						rep.Ranks[m] = map[string]int{}
					}
					rep.Ranks[m][q.ID] = s.first
				}
			}
			if row.Questions == 0 {
				continue
			}
			n := float64(row.Questions)
			row.Recall5, row.Recall10, row.NDCG10 = row.Recall5/n, row.Recall10/n, row.NDCG10/n
			rep.Rows = append(rep.Rows, row)
		}
	}
	return rep, nil
}

type pageScore struct {
	hit5, hit10, ndcg float64
	first             int // rank of the first relevant result, 0 for none
}

// scorePages scores one ranking of question q whose filing is document doc.
func scorePages(q PageQuestion, doc string, res []corpus.SearchResult) pageScore {
	var s pageScore
	found := make([]bool, len(q.Evidence))
	dcg := 0.0
	for i, r := range res[:min(len(res), pagesK)] {
		if r.DocumentID != doc {
			continue
		}
		relevant := false
		for j, e := range q.Evidence {
			if !slices.Contains(e.Pages, r.Page) {
				continue
			}
			relevant = true
			if !found[j] {
				found[j] = true
				dcg += 1 / math.Log2(float64(i+2))
				break
			}
		}
		if relevant && s.first == 0 {
			s.first = i + 1
		}
	}
	if s.first > 0 && s.first <= 5 {
		s.hit5 = 1
	}
	if s.first > 0 {
		s.hit10 = 1
	}
	ideal := 0.0
	for i := range min(len(q.Evidence), pagesK) {
		ideal += 1 / math.Log2(float64(i+2))
	}
	s.ndcg = dcg / ideal
	return s
}

// WriteText writes the report as a table, one row per split and method.
func (r *PagesReport) WriteText(w io.Writer) error {
	ew := &errWriter{w: w}
	ew.printf("%s: %d documents, %d chunks; %d questions, issuer filter given, k=%d\n", r.Store, r.Documents, r.Chunks, r.Questions, pagesK)
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "SPLIT\tMETHOD\tQUESTIONS\tRECALL@5\tRECALL@10\tNDCG@10\tMEAN MS\t")
	for _, row := range r.Rows {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%.3f\t%.3f\t%.3f\t%.2f\t\n", row.Split, row.Method, row.Questions,
			row.Recall5, row.Recall10, row.NDCG10, ms(r.Latency[row.Method]))
	}
	tw.Flush()
	return ew.err
}
