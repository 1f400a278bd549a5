package eval

import (
	"context"
	_ "embed"
	"fmt"
	"io"
	"math"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/ledgerline/research/executor"
	"github.com/ledgerline/research/ledger"
)

// FigureSetJSONL is eval/figures.jsonl: questions that each ask for one
// figure of one issuer and period (a segment's, a derived one, or one of a
// text filing), with the value the filing reports or lets one compute.
// It was written from the filings alone, before the figure method was
// tuned, and split into a tuning and a frozen test half.
//
//go:embed figures.jsonl
var FigureSetJSONL []byte

// FigureItem is one line of the figure set.
type FigureItem struct {
	ID        string  `json:"id"`
	Group     string  `json:"group"` // segment, derived or text
	Split     string  `json:"split"` // tune or test
	Question  string  `json:"question"`
	Issuer    string  `json:"issuer"`
	Period    string  `json:"period"`
	Value     float64 `json:"value"`
	Unit      string  `json:"unit"` // usd, percent, usd_per_share, shares
	Tolerance float64 `json:"tolerance"`
	Evidence  string  `json:"evidence"`
	Note      string  `json:"note"`
}

// LoadFigureSet reads a figure set, one JSON object per line.
func LoadFigureSet(r io.Reader) ([]FigureItem, error) {
	return readJSONL(r, "figure set", func(it *FigureItem) (string, error) {
		if it.ID == "" || it.Question == "" || it.Issuer == "" || (it.Split != "tune" && it.Split != "test") {
			return "", fmt.Errorf("id, question, issuer and a split of tune or test are required")
		}
		return it.ID, nil
	})
}

// FigureResult is how the engine did on one figure item.
type FigureResult struct {
	Item   FigureItem
	Status ledger.RunStatus
	Found  bool   // a figure of the result, of the issuer, has the value
	Got    string // the figures the result gave, for the report
	Error  string
}

// Matches reports whether a result's figure holds the item's value: of
// the issuer, within the tolerance, a ratio read as a percentage.
func (it FigureItem) Matches(f executor.Figure) bool {
	if !strings.EqualFold(f.Issuer, it.Issuer) {
		return false
	}
	v, _ := f.Value.Float64()
	if it.Unit == "percent" {
		v *= 100
	}
	tol := it.Tolerance
	if tol <= 0 {
		tol = 0.005
	}
	if it.Value == 0 {
		return math.Abs(v) < 1e-9
	}
	return math.Abs(v-it.Value) <= tol*math.Abs(it.Value)
}

// RunFigures runs every item through eng in mode and checks its figures.
func RunFigures(ctx context.Context, eng *executor.Engine, items []FigureItem, mode ledger.Mode, concurrency int) ([]FigureResult, error) {
	out := make([]FigureResult, len(items))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(1, concurrency))
	var mu sync.Mutex
	for i, it := range items {
		g.Go(func() error {
			r := FigureResult{Item: it}
			res, err := eng.Run(gctx, executor.Request{RunID: fmt.Sprintf("fig-%s-%s", it.ID, mode), Question: it.Question, Mode: mode})
			if err != nil {
				if gctx.Err() != nil {
					return gctx.Err()
				}
				r.Error = err.Error()
			} else {
				r.Status = res.Status
				var got []string
				for _, f := range res.Figures {
					got = append(got, fmt.Sprintf("%s %s %s=%s", f.Issuer, f.Metric, f.Period, f.Value))
					if it.Matches(f) {
						r.Found = true
					}
				}
				r.Got = strings.Join(got, "; ")
			}
			mu.Lock()
			out[i] = r
			mu.Unlock()
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}

// FigureScore is the share of items whose figure was found, by split and
// group.
type FigureScore struct {
	Split, Group string
	Items, Found int
}

// Rate is the share found.
func (s FigureScore) Rate() float64 {
	if s.Items == 0 {
		return 0
	}
	return float64(s.Found) / float64(s.Items)
}

// ScoreFigures sums results by split and group, with "all" rows.
func ScoreFigures(results []FigureResult) []FigureScore {
	idx := map[[2]string]*FigureScore{}
	var order [][2]string
	add := func(split, group string, found bool) {
		k := [2]string{split, group}
		s := idx[k]
		if s == nil {
			s = &FigureScore{Split: split, Group: group}
			idx[k] = s
			order = append(order, k)
		}
		s.Items++
		if found {
			s.Found++
		}
	}
	for _, r := range results {
		add(r.Item.Split, r.Item.Group, r.Found)
		add(r.Item.Split, "all", r.Found)
	}
	out := make([]FigureScore, 0, len(order))
	for _, k := range order {
		out = append(out, *idx[k])
	}
	return out
}
