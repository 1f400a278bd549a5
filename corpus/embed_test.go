package corpus

import (
	"context"
	"hash/fnv"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/ledgerline/research/corpus/internal/textsearch"
)

// referenceEmbed is the hash embedder as first written: features keyed by
// their key strings, hashed with hash/fnv. HashEmbedder hashes the keys'
// parts without building them and must give the same vectors.
func referenceEmbed(dim int, text string) []float32 {
	type feature struct{ n, weight float64 }
	feats := map[string]*feature{}
	add := func(key string, weight float64) {
		f := feats[key]
		if f == nil {
			f = &feature{weight: weight}
			feats[key] = f
		}
		f.n++
	}
	var a textsearch.Analyzer
	words := embedWords(&a, text)
	for i, w := range words {
		add("w:"+w, wordWeight)
		if i > 0 {
			add("p:"+words[i-1]+" "+w, pairWeight)
		}
		padded := "<" + w + ">"
		for j := 0; j+3 <= len(padded); j++ {
			add("t:"+padded[j:j+3], trigramWeight)
		}
	}
	v := make([]float64, dim)
	for key, f := range feats {
		hf := fnv.New64a()
		hf.Write([]byte(key))
		x := hf.Sum64()
		w := (1 + math.Log(f.n)) * f.weight
		if x>>63 == 1 {
			w = -w
		}
		v[x%uint64(dim)] += w
	}
	return unitVector(v)
}

func TestHashEmbedderMatchesKeyStrings(t *testing.T) {
	texts := []struct {
		name, text string
	}{
		{"empty", ""},
		{"stop words only", "the of and"},
		{"one-letter word", "a b c x"},
		{"sentence", "Gross margin decreased due to weaker foreign currencies."},
		{"repeats", "margin margin margin gross margin gross"},
		{"numbers", "Total net sales | 391,035 | 383,285 grew 3.5% to $4.5 billion"},
		{"non-ASCII", "Société Générale’s résumé — naïve café 10-K"},
		{"long", strings.Repeat("Operating income increased because services revenue grew faster than products. ", 60)},
	}
	for _, dim := range []int{EmbeddingDim, 7} {
		e := HashEmbedder{Dim: dim}
		for _, tc := range texts {
			got, err := e.Embed(context.Background(), []string{tc.text, tc.text})
			if err != nil {
				t.Fatal(err)
			}
			want := referenceEmbed(dim, tc.text)
			for i := range want {
				if d := math.Abs(float64(got[0][i] - want[i])); d > 1e-6 {
					t.Fatalf("dim %d, %s: component %d is %v, want %v", dim, tc.name, i, got[0][i], want[i])
				}
			}
			// The second copy, embedded after the first with the
			// batch's reused state, is the same to the last bit.
			if !slices.Equal(got[0], got[1]) {
				t.Errorf("dim %d, %s: the same text embedded twice in a batch differs", dim, tc.name)
			}
		}
	}
}

func BenchmarkHashEmbedder(b *testing.B) {
	text := strings.Repeat("Gross margin decreased due to weaker foreign currencies and a different mix of products. ", 12)
	texts := make([]string, 64)
	for i := range texts {
		texts[i] = text
	}
	e := HashEmbedder{}
	for b.Loop() {
		if _, err := e.Embed(context.Background(), texts); err != nil {
			b.Fatal(err)
		}
	}
}
