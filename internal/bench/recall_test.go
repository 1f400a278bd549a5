package bench

import (
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

func TestRecall(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		got, want []string
		recall    float64
	}{
		{"all found", []string{"a", "b", "c"}, []string{"c", "b", "a"}, 1},
		{"none found", []string{"x", "y"}, []string{"a", "b"}, 0},
		{"half", []string{"a", "x", "b", "y"}, []string{"a", "b", "c", "d"}, 0.5},
		{"short result", []string{"a"}, []string{"a", "b", "c", "d"}, 0.25},
		{"nothing returned", nil, []string{"a", "b"}, 0},
		{"nothing wanted", []string{"a"}, nil, 1},
	}
	for _, tt := range tests {
		if got := Recall(tt.got, tt.want); got != tt.recall {
			t.Errorf("%s: Recall = %v, want %v", tt.name, got, tt.recall)
		}
	}
}

func TestExactTopK(t *testing.T) {
	t.Parallel()
	vecs := [][]float32{
		{1, 0},     // 0: sim 1 with {1,0}
		{0, 1},     // 1: sim 0
		{0.6, 0.8}, // 2: sim 0.6
		{0.8, 0.6}, // 3: sim 0.8
		{-1, 0},    // 4: sim -1
		{0.8, 0.6}, // 5: ties with 3
	}
	q := []float32{1, 0}
	tests := []struct {
		name string
		rows []int
		k    int
		want []int
	}{
		{"top 3", nil, 3, []int{0, 3, 5}},
		{"all, ties by row", nil, 10, []int{0, 3, 5, 2, 1, 4}},
		{"restricted", []int{1, 2, 4, 5}, 2, []int{5, 2}},
		{"empty restriction", []int{}, 3, []int{}},
		{"k zero", nil, 0, nil},
	}
	for _, tt := range tests {
		got := ExactTopK(q, vecs, tt.rows, tt.k)
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: ExactTopK = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestExactTopKMatchesSort checks the heap against a full sort on random
// vectors of odd length (the dot product's unrolled tail).
func TestExactTopKMatchesSort(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	vecs := make([][]float32, 500)
	for i := range vecs {
		vecs[i] = make([]float32, 37)
		for j := range vecs[i] {
			vecs[i][j] = float32(r.NormFloat64())
		}
	}
	for range 20 {
		q := vecs[r.IntN(len(vecs))]
		rows := make([]int, len(vecs))
		for i := range rows {
			rows[i] = i
		}
		sort.SliceStable(rows, func(a, b int) bool { return dot(q, vecs[rows[a]]) > dot(q, vecs[rows[b]]) })
		if got := ExactTopK(q, vecs, nil, 10); !slices.Equal(got, rows[:10]) {
			t.Fatalf("ExactTopK = %v, sort says %v", got, rows[:10])
		}
	}
}
