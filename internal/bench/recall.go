package bench

import (
	"container/heap"
	"slices"
)

// ExactTopK returns the rows of vecs nearest to q by dot product (cosine
// similarity, for the unit vectors embedders return), best first, ties to
// the lower row. rows, when not nil, restricts the search to those rows.
func ExactTopK(q []float32, vecs [][]float32, rows []int, k int) []int {
	if k <= 0 {
		return nil
	}
	h := &minHeap{}
	consider := func(row int) {
		sim := dot(q, vecs[row])
		if h.Len() < k {
			heap.Push(h, scored{row, sim})
			return
		}
		if worst := (*h)[0]; sim > worst.sim || sim == worst.sim && row < worst.row {
			(*h)[0] = scored{row, sim}
			heap.Fix(h, 0)
		}
	}
	if rows == nil {
		for row := range vecs {
			consider(row)
		}
	} else {
		for _, row := range rows {
			consider(row)
		}
	}
	best := slices.Clone(*h)
	slices.SortFunc(best, func(a, b scored) int {
		if a.better(b) {
			return -1
		}
		return 1
	})
	out := make([]int, len(best))
	for i, s := range best {
		out[i] = s.row
	}
	return out
}

// Recall returns the share of want that got holds, |got ∩ want| / |want|:
// recall@k when want is the exact top k. It is 1 when want is empty.
func Recall(got, want []string) float64 {
	if len(want) == 0 {
		return 1
	}
	found := 0
	for _, w := range want {
		if slices.Contains(got, w) {
			found++
		}
	}
	return float64(found) / float64(len(want))
}

type scored struct {
	row int
	sim float32
}

func (a scored) better(b scored) bool {
	return a.sim > b.sim || a.sim == b.sim && a.row < b.row
}

// minHeap keeps the worst of the best k at its root.
type minHeap []scored

func (h minHeap) Len() int           { return len(h) }
func (h minHeap) Less(i, j int) bool { return h[j].better(h[i]) }
func (h minHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *minHeap) Push(x any)        { *h = append(*h, x.(scored)) }
func (h *minHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// dot is the dot product of two vectors of equal length, unrolled by four.
func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return s0 + s1 + s2 + s3
}
