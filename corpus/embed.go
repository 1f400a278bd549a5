package corpus

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"

	"github.com/ledgerline/research/corpus/internal/textsearch"
)

// EmbeddingDim is the width of the stores' embedding column.
const EmbeddingDim = 384

// Embedder turns texts into vectors. Name identifies the embedder and its
// settings: vectors from different names are not comparable, so the name
// is recorded with every document and checked at search time.
type Embedder interface {
	Name() string
	Dimensions() int
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// HashEmbedder is the offline default: a deterministic bag of stemmed words,
// word pairs and character trigrams, feature-hashed (signed) into Dim
// dimensions with sublinear term frequency and L2-normalised. It downloads
// nothing and needs no model; it captures lexical overlap including
// morphology and word order that the full-text index ignores. It is not a
// semantic model: synonyms with no shared stem or trigram do not meet.
type HashEmbedder struct {
	Dim int // 0 means EmbeddingDim
}

// FusionWeight is the weight of this embedder's ranking in hybrid
// search. Its vectors are lexical, so its ranking is correlated with the
// full-text one; at full weight, reciprocal rank fusion would count the same
// lexical evidence twice. 0.8 was chosen on the retrieval set (see
// docs/benchmarks.md).
func (h HashEmbedder) FusionWeight() float64 { return 0.8 }

// Name implements Embedder.
func (h HashEmbedder) Name() string { return fmt.Sprintf("hash-v1-%d", h.dims()) }

// Dimensions implements Embedder.
func (h HashEmbedder) Dimensions() int { return h.dims() }

func (h HashEmbedder) dims() int {
	if h.Dim <= 0 {
		return EmbeddingDim
	}
	return h.Dim
}

// Feature weights: whole words carry the meaning, pairs add phrase
// evidence, trigrams let "margins" meet "margin" and number variants meet.
const (
	wordWeight    = 1.0
	pairWeight    = 0.6
	trigramWeight = 0.15
)

// Embed implements Embedder.
func (h HashEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	var a textsearch.Analyzer // caches stems across the batch
	for i, t := range texts {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		out[i] = h.embed(&a, t)
	}
	return out, nil
}

func (h HashEmbedder) embed(a *textsearch.Analyzer, text string) []float32 {
	dim := h.dims()
	// Each feature's value is its weight times its sublinear count.
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
	words := embedWords(a, text)
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
	var norm float64
	for _, x := range v {
		norm += x * x
	}
	out := make([]float32, dim)
	if norm == 0 {
		return out
	}
	norm = math.Sqrt(norm)
	for i, x := range v {
		out[i] = float32(x / norm)
	}
	return out
}

// embedWords returns the lexemes of text as the full-text index sees them:
// lower-cased, stop words dropped, stemmed (Snowball English).
func embedWords(a *textsearch.Analyzer, text string) []string {
	lex := a.Lexemes(nil, text)
	out := make([]string, len(lex))
	for i, l := range lex {
		out[i] = l.Term
	}
	return out
}
