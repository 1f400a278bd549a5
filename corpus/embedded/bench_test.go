package embedded

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/corpus/internal/textsearch"
)

// benchWords is the vocabulary of the benchmarks' synthetic filings.
var benchWords = strings.Fields(`the company net sales products services gross margin percentage decreased
increased during fiscal year compared to prior due primarily weaker foreign currencies different mix of
partially offset by cost savings operating expenses research and development selling general administrative
income taxes effective rate liquidity capital resources cash equivalents marketable securities debt
commercial paper term repurchase program dividends segment americas europe greater china japan rest asia
pacific iphone mac ipad wearables home accessories advertising cloud payment risk factors competition
supply chain manufacturing outsourcing partners component shortages inventory provisions tariffs demand
customers data center gaming hyperscale revenue recognition deferred contracts lease obligations`)

// benchText returns a pseudo-filing paragraph of about n bytes.
func benchText(r *rand.Rand, n int) string {
	var b strings.Builder
	for b.Len() < n {
		if r.IntN(12) == 0 {
			fmt.Fprintf(&b, "%d,%03d ", r.IntN(999), r.IntN(1000))
		} else {
			b.WriteString(benchWords[r.IntN(len(benchWords))])
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// benchDoc returns a document of n chunks of about chunkBytes each, with
// random embeddings of d dimensions.
func benchDoc(r *rand.Rand, ticker string, n, chunkBytes, d int) (*corpus.Document, []corpus.Chunk) {
	var text strings.Builder
	chunks := make([]corpus.Chunk, n)
	sections := []string{"Item 1", "Item 1A", "Item 7", "Item 7A", "Item 8"}
	for i := range chunks {
		p := benchText(r, chunkBytes)
		emb := make([]float32, d)
		for j := range emb {
			emb[j] = float32(r.NormFloat64())
		}
		chunks[i] = corpus.Chunk{
			Ordinal: i, Section: sections[i*len(sections)/n], Start: text.Len(), End: text.Len() + len(p), Text: p, Embedding: emb,
		}
		text.WriteString(p)
	}
	doc := &corpus.Document{Ticker: ticker, Form: "10-K", FiscalYear: 2024, Embedder: "bench", Text: text.String()}
	doc.ID = corpus.DocumentID(doc.Text)
	for i := range chunks {
		chunks[i].ID = corpus.ChunkID(doc.ID, i)
		chunks[i].DocumentID = doc.ID
	}
	return doc, chunks
}

// memStore returns a store of docs documents of n chunks each, filled in
// memory (the benchmarks measure searching, not writing).
func memStore(b *testing.B, docs, n, chunkBytes, d int, cfg *Config) *Store {
	s, err := Open(b.TempDir(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	r := rand.New(rand.NewPCG(1, 2))
	var a textsearch.Analyzer
	for i := range docs {
		doc, chunks := benchDoc(r, fmt.Sprintf("T%03d", i), n, chunkBytes, d)
		e, err := newEntry(doc, chunks, nil, &a)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.insert(e); err != nil {
			b.Fatal(err)
		}
	}
	return s
}

// BenchmarkVectorSearch200k: exact search over 200,000 chunks of 384
// dimensions (100 filings of 2,000 chunks).
//
//	go test -run XXX -bench VectorSearch200k ./corpus/embedded/
func BenchmarkVectorSearch200k(b *testing.B) {
	s := memStore(b, 100, 2000, 40, 384, nil)
	q := make([]float32, 384)
	r := rand.New(rand.NewPCG(3, 4))
	for i := range q {
		q[i] = float32(r.NormFloat64())
	}
	ctx := context.Background()
	for _, p := range []int{1, runtime.GOMAXPROCS(0)} {
		for _, bc := range []struct {
			name string
			f    corpus.Filter
		}{
			{"all", corpus.Filter{}},
			{"section", corpus.Filter{Section: "Item 7"}},
			{"one-ticker", corpus.Filter{Tickers: []string{"T042"}}},
		} {
			b.Run(fmt.Sprintf("parallelism=%d/%s", p, bc.name), func(b *testing.B) {
				s.parallelism = p
				for b.Loop() {
					rs, err := s.VectorSearch(ctx, q, bc.f, 10)
					if err != nil || len(rs) != 10 {
						b.Fatal(len(rs), err)
					}
				}
			})
		}
	}
}

// BenchmarkOpen measures loading a directory of 20 filings of 1,000 chunks
// (about 1 KB of text and 384 dimensions each), the size of the sample
// corpus.
//
//	go test -run XXX -bench Open -benchtime 5x ./corpus/embedded/
func BenchmarkOpen(b *testing.B) {
	dir := b.TempDir()
	s, err := Open(dir, nil)
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(5, 6))
	for i := range 20 {
		doc, chunks := benchDoc(r, fmt.Sprintf("T%02d", i), 1000, 1000, 384)
		if _, err := s.AddDocument(context.Background(), doc, chunks, nil); err != nil {
			b.Fatal(err)
		}
	}
	s.Close()
	var size int64
	files, _ := filepath.Glob(filepath.Join(dir, "docs", "*.doc"))
	for _, f := range files {
		if info, err := os.Stat(f); err == nil {
			size += info.Size()
		}
	}
	for b.Loop() {
		s, err := Open(dir, nil)
		if err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
	b.ReportMetric(float64(size)/(1<<20), "MiB-on-disk")
}

// BenchmarkFullTextSearch: a web-search query over 20,000 chunks.
func BenchmarkFullTextSearch(b *testing.B) {
	s := memStore(b, 20, 1000, 1000, 4, nil)
	ctx := context.Background()
	for _, q := range []string{
		"gross margin",
		`"gross margin" decreased -tariffs`,
		"what drove the decline in gross margin percentage during fiscal year",
	} {
		b.Run(q, func(b *testing.B) {
			for b.Loop() {
				if _, err := s.FullTextSearch(ctx, q, corpus.Filter{}, 10); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
