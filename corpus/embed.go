package corpus

import (
	"context"
	"fmt"
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
	var fs featureSet         // reused across the batch
	for i, t := range texts {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		out[i] = h.embed(&a, &fs, t)
	}
	return out, nil
}

// FNV-1a, 64 bits: the hash of a feature's key ("w:" word, "p:" word pair,
// "t:" trigram), computed over its parts without building the key.
const (
	fnvOffset64 = 14695981039346656037
	fnvPrime64  = 1099511628211
)

func fnvString(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime64
	}
	return h
}

func fnvByte(h uint64, c byte) uint64 { return (h ^ uint64(c)) * fnvPrime64 }

var (
	wordKeyHash    = fnvString(fnvOffset64, "w:")
	pairKeyHash    = fnvString(fnvOffset64, "p:")
	trigramKeyHash = fnvString(fnvOffset64, "t:")
)

// featureSet counts a text's features by the hash of their key, in the
// order first seen. Keying by the 64-bit hash rather than the key string
// merges two keys only when their hashes collide, about once in 10^13
// texts of 1,000 features; the feature then lands in the bucket, with the
// sign, that each key alone would have had.
type featureSet struct {
	index map[uint64]int32
	feats []feature
}

// feature is one feature of a text: its key's hash, its weight and its count.
type feature struct {
	hash      uint64
	weight, n float64
}

func (fs *featureSet) reset() {
	if fs.index == nil {
		fs.index = make(map[uint64]int32, 1024)
	}
	clear(fs.index)
	fs.feats = fs.feats[:0]
}

func (fs *featureSet) add(hash uint64, weight float64) {
	if i, ok := fs.index[hash]; ok {
		fs.feats[i].n++
		return
	}
	fs.index[hash] = int32(len(fs.feats))
	fs.feats = append(fs.feats, feature{hash: hash, weight: weight, n: 1})
}

func (h HashEmbedder) embed(a *textsearch.Analyzer, fs *featureSet, text string) []float32 {
	dim := h.dims()
	fs.reset()
	words := embedWords(a, text)
	for i, w := range words {
		fs.add(fnvString(wordKeyHash, w), wordWeight)
		if i > 0 {
			fs.add(fnvString(fnvByte(fnvString(pairKeyHash, words[i-1]), ' '), w), pairWeight)
		}
		// The trigrams of "<" + w + ">".
		n := len(w) + 2
		at := func(j int) byte {
			switch j {
			case 0:
				return '<'
			case n - 1:
				return '>'
			}
			return w[j-1]
		}
		for j := 0; j+3 <= n; j++ {
			fs.add(fnvByte(fnvByte(fnvByte(trigramKeyHash, at(j)), at(j+1)), at(j+2)), trigramWeight)
		}
	}
	// Each feature's value is its weight times its sublinear count, added
	// in the order the features were first seen, so the same text always
	// gives the same vector, to the last bit.
	v := make([]float64, dim)
	for _, f := range fs.feats {
		w := (1 + math.Log(f.n)) * f.weight
		if f.hash>>63 == 1 {
			w = -w
		}
		v[f.hash%uint64(dim)] += w
	}
	return unitVector(v)
}

// unitVector scales v to unit length, as float32; a zero vector stays zero.
func unitVector(v []float64) []float32 {
	var norm float64
	for _, x := range v {
		norm += x * x
	}
	out := make([]float32, len(v))
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
