package bench

import (
	"context"
	"math"
	"slices"
	"strings"
	"unicode"

	"github.com/ledgerline/research/corpus"
)

// BM25Index is a plain Okapi BM25 (k1 = 1.2, b = 0.75) over a store's
// chunks, the baseline the engine's retrieval is measured against: words
// are lower-cased runs of letters and digits, with no stemming, no stop
// words and no query analysis, and a chunk matches when it holds any of the
// query's words. It is deliberately untuned.
type BM25Index struct {
	chunks   []corpus.SearchResult
	lengths  []int
	avgLen   float64
	postings map[string][]bm25Posting
}

type bm25Posting struct {
	chunk int
	tf    int
}

// NewBM25Index reads every chunk of docs from store and indexes it.
func NewBM25Index(ctx context.Context, store corpus.Store, docs []corpus.Document) (*BM25Index, error) {
	ix := &BM25Index{postings: map[string][]bm25Posting{}}
	const batch = 512
	for _, d := range docs {
		for first := 0; ; first += batch {
			ids := make([]string, batch)
			for i := range ids {
				ids[i] = corpus.ChunkID(d.ID, first+i)
			}
			res, err := store.Chunks(ctx, ids)
			if err != nil {
				return nil, err
			}
			for _, r := range res {
				ix.add(r)
			}
			if len(res) < batch {
				break
			}
		}
	}
	total := 0
	for _, n := range ix.lengths {
		total += n
	}
	ix.avgLen = float64(total) / float64(max(len(ix.lengths), 1))
	return ix, nil
}

// Len returns the number of chunks indexed.
func (ix *BM25Index) Len() int { return len(ix.chunks) }

func (ix *BM25Index) add(r corpus.SearchResult) {
	n := len(ix.chunks)
	ix.chunks = append(ix.chunks, r)
	words := bm25Words(r.Text)
	ix.lengths = append(ix.lengths, len(words))
	tf := map[string]int{}
	for _, w := range words {
		tf[w]++
	}
	for w, c := range tf {
		ix.postings[w] = append(ix.postings[w], bm25Posting{n, c})
	}
}

// Search returns the k best chunks of ticker ("" means any) for query.
func (ix *BM25Index) Search(query, ticker string, k int) []corpus.SearchResult {
	scores := map[int]float64{}
	n := float64(len(ix.chunks))
	terms := bm25Words(query)
	slices.Sort(terms)
	for _, t := range slices.Compact(terms) {
		list := ix.postings[t]
		if len(list) == 0 {
			continue
		}
		df := float64(len(list))
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		for _, p := range list {
			if ticker != "" && ix.chunks[p.chunk].Ticker != ticker {
				continue
			}
			tf := float64(p.tf)
			norm := 1.2 * (1 - 0.75 + 0.75*float64(ix.lengths[p.chunk])/ix.avgLen)
			scores[p.chunk] += idf * tf * 2.2 / (tf + norm)
		}
	}
	hits := make([]int, 0, len(scores))
	for c := range scores {
		hits = append(hits, c)
	}
	slices.SortFunc(hits, func(a, b int) int {
		switch {
		case scores[a] > scores[b]:
			return -1
		case scores[a] < scores[b]:
			return 1
		}
		return a - b
	})
	out := make([]corpus.SearchResult, 0, min(k, len(hits)))
	for _, c := range hits[:min(k, len(hits))] {
		r := ix.chunks[c]
		r.Score = scores[c]
		out = append(out, r)
	}
	return out
}

// bm25Words splits text into lower-case runs of letters and digits.
func bm25Words(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}
