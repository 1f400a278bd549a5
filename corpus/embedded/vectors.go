package embedded

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/ledgerline/research/corpus"
)

// minRowsPerWorker is the least work worth a goroutine of a vector scan.
const minRowsPerWorker = 4096

// VectorSearch implements corpus.Store by exact search: the cosine
// similarity of vec to every embedded chunk f admits, computed as a dot
// product of unit vectors (normalised when stored) on up to Parallelism
// goroutines, keeping the best k in a heap. So whenever k chunks match f,
// k are returned. Chunks stored without an embedding are never returned.
// Ties go to the chunk added first.
func (s *Store) VectorSearch(ctx context.Context, vec []float32, f corpus.Filter, k int) ([]corpus.SearchResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	q := make([]float32, len(vec))
	if err := normalize(q, vec); err != nil {
		return nil, fmt.Errorf("embedded: VectorSearch: query %w", err)
	}
	if len(vec) == 0 || !slices.ContainsFunc(q, func(x float32) bool { return x != 0 }) {
		return nil, errors.New("embedded: VectorSearch: zero query vector")
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return nil, ErrClosed
	}
	if s.dim == 0 || k <= 0 {
		return nil, nil // nothing embedded yet
	}
	if len(vec) != s.dim {
		return nil, fmt.Errorf("embedded: VectorSearch: query has %d dimensions, the store %d", len(vec), s.dim)
	}

	// The rows to scan: the chunks of the documents f admits.
	docOK := s.matchingDocs(&f)
	var spans []span
	rows := 0
	for i, d := range s.docs {
		if docOK[i] && d.hi > d.lo {
			spans = append(spans, span{d.lo, d.hi})
			rows += d.hi - d.lo
		}
	}
	workers := max(1, min(s.parallelism, rows/minRowsPerWorker))
	parts := splitSpans(spans, rows, workers)
	heaps := make([]nearest, len(parts))
	var wg sync.WaitGroup
	for w, part := range parts {
		wg.Go(func() {
			heaps[w] = s.scan(q, part, f.Section, k)
		})
	}
	wg.Wait()

	best := nearest{k: k}
	for _, h := range heaps {
		for _, c := range h.items {
			best.push(c.sim, c.row)
		}
	}
	found := best.sorted()
	out := make([]corpus.SearchResult, len(found))
	for i, c := range found {
		out[i] = s.result(int(c.row), float64(max(-1, min(1, c.sim))))
	}
	return out, nil
}

// span is a range of rows [lo, hi).
type span struct{ lo, hi int }

// splitSpans cuts spans holding rows rows into n parts of about equal size.
func splitSpans(spans []span, rows, n int) [][]span {
	if n <= 1 {
		return [][]span{spans}
	}
	per := (rows + n - 1) / n
	parts := make([][]span, 0, n)
	var cur []span
	size := 0
	for _, sp := range spans {
		for sp.lo < sp.hi {
			take := min(sp.hi-sp.lo, per-size)
			cur = append(cur, span{sp.lo, sp.lo + take})
			size += take
			sp.lo += take
			if size == per {
				parts = append(parts, cur)
				cur, size = nil, 0
			}
		}
	}
	if len(cur) > 0 {
		parts = append(parts, cur)
	}
	return parts
}

// scan returns the k rows of spans most similar to q. Callers hold mu.
func (s *Store) scan(q []float32, spans []span, section string, k int) nearest {
	h := nearest{k: k}
	for _, sp := range spans {
		for i := sp.lo; i < sp.hi; i++ {
			v := s.vecs[i]
			if v == nil || section != "" && s.chunks[i].section != section {
				continue
			}
			sim := dot(q, v)
			if len(h.items) == k && !better(sim, int32(i), h.items[0]) {
				continue
			}
			h.push(sim, int32(i))
		}
	}
	return h
}

// dot returns the dot product of two vectors of equal length.
func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+8 <= len(a); i += 8 {
		x, y := a[i:i+8:i+8], b[i:i+8:i+8]
		s0 += x[0]*y[0] + x[4]*y[4]
		s1 += x[1]*y[1] + x[5]*y[5]
		s2 += x[2]*y[2] + x[6]*y[6]
		s3 += x[3]*y[3] + x[7]*y[7]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

type candidate struct {
	sim float32
	row int32
}

// better orders candidates: higher similarity, then the earlier row.
func better(sim float32, row int32, than candidate) bool {
	return sim > than.sim || sim == than.sim && row < than.row
}

// nearest keeps the k best candidates in a min-heap, the worst at the root.
type nearest struct {
	k     int
	items []candidate
}

func (h *nearest) push(sim float32, row int32) {
	c := candidate{sim, row}
	if len(h.items) < h.k {
		h.items = append(h.items, c)
		for i := len(h.items) - 1; i > 0; {
			p := (i - 1) / 2
			if !better(h.items[p].sim, h.items[p].row, h.items[i]) {
				break
			}
			h.items[i], h.items[p] = h.items[p], h.items[i]
			i = p
		}
		return
	}
	if !better(sim, row, h.items[0]) {
		return
	}
	h.items[0] = c
	for i := 0; ; {
		worst, l, r := i, 2*i+1, 2*i+2
		if l < len(h.items) && better(h.items[worst].sim, h.items[worst].row, h.items[l]) {
			worst = l
		}
		if r < len(h.items) && better(h.items[worst].sim, h.items[worst].row, h.items[r]) {
			worst = r
		}
		if worst == i {
			return
		}
		h.items[i], h.items[worst] = h.items[worst], h.items[i]
		i = worst
	}
}

// sorted returns the candidates best first.
func (h *nearest) sorted() []candidate {
	out := slices.Clone(h.items)
	slices.SortFunc(out, func(a, b candidate) int {
		if better(a.sim, a.row, b) {
			return -1
		}
		if better(b.sim, b.row, a) {
			return 1
		}
		return 0
	})
	return out
}
