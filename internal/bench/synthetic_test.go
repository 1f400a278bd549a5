package bench

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ledgerline/research/corpus"
)

func generate(t *testing.T, v *Vocabulary, opts SyntheticOpts) *Synthetic {
	t.Helper()
	s, err := Generate(context.Background(), v, &opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// fingerprint identifies a corpus by its documents' ids and metadata.
func fingerprint(s *Synthetic) []string {
	var out []string
	for _, d := range s.Docs {
		out = append(out, strings.Join([]string{d.Doc.ID, d.Doc.Ticker, d.Doc.Form, d.Doc.PeriodEnd.Format(time.DateOnly)}, " "))
	}
	return out
}

func TestGenerateDeterministic(t *testing.T) {
	t.Parallel()
	v := BuiltinVocabulary(500, 1)
	base := SyntheticOpts{Chunks: 1200, ChunksPerDoc: 100, Tickers: 5, Seed: 42}
	want := fingerprint(generate(t, v, base))
	tests := []struct {
		name string
		opts SyntheticOpts
		same bool
	}{
		{"again", base, true},
		{"one goroutine", SyntheticOpts{Chunks: 1200, ChunksPerDoc: 100, Tickers: 5, Seed: 42, Parallelism: 1}, true},
		{"eight goroutines", SyntheticOpts{Chunks: 1200, ChunksPerDoc: 100, Tickers: 5, Seed: 42, Parallelism: 8}, true},
		{"other seed", SyntheticOpts{Chunks: 1200, ChunksPerDoc: 100, Tickers: 5, Seed: 43}, false},
	}
	for _, tt := range tests {
		got := fingerprint(generate(t, v, tt.opts))
		if slices.Equal(got, want) != tt.same {
			t.Errorf("%s: same corpus = %v, want %v", tt.name, !tt.same, tt.same)
		}
	}
}

func TestGenerateShape(t *testing.T) {
	t.Parallel()
	v := BuiltinVocabulary(1000, 1)
	tests := []struct {
		opts              SyntheticOpts
		docs, lastChunks  int
		tickers, meanSize int
	}{
		{SyntheticOpts{Chunks: 2000}, 4, 500, 4, 1000},
		{SyntheticOpts{Chunks: 2050, ChunksPerDoc: 100, Tickers: 7}, 21, 50, 7, 1000},
		{SyntheticOpts{Chunks: 300, ChunksPerDoc: 10, ChunkBytes: 400, Tickers: 40}, 30, 10, 30, 400},
	}
	for _, tt := range tests {
		s := generate(t, v, tt.opts)
		name := fmt.Sprintf("chunks=%d,per-doc=%d,tickers=%d", tt.opts.Chunks, tt.opts.ChunksPerDoc, tt.opts.Tickers)
		if len(s.Docs) != tt.docs || s.Chunks() != tt.opts.Chunks {
			t.Errorf("%s: %d documents, %d chunks; want %d, %d", name, len(s.Docs), s.Chunks(), tt.docs, tt.opts.Chunks)
			continue
		}
		if n := len(s.Docs[len(s.Docs)-1].Chunks); n != tt.lastChunks {
			t.Errorf("%s: last document has %d chunks, want %d", name, n, tt.lastChunks)
		}
		if n := len(s.Tickers()); n != tt.tickers {
			t.Errorf("%s: %d tickers, want %d", name, n, tt.tickers)
		}
		if mean := int(s.TextBytes()) / s.Chunks(); mean < tt.meanSize*85/100 || mean > tt.meanSize*115/100 {
			t.Errorf("%s: chunks average %d bytes, want about %d", name, mean, tt.meanSize)
		}
		filings := map[string]bool{}
		for _, d := range s.Docs {
			checkDoc(t, d)
			key := d.Doc.Ticker + " " + d.Doc.Form + " " + d.Doc.PeriodEnd.Format(time.DateOnly)
			if filings[key] {
				t.Errorf("%s: filing %s generated twice", name, key)
			}
			filings[key] = true
		}
	}
}

// checkDoc checks what a store will demand of a generated document.
func checkDoc(t *testing.T, d SyntheticDoc) {
	t.Helper()
	doc := d.Doc
	if doc.ID != corpus.DocumentID(doc.Text) {
		t.Errorf("%s: ID is not the text's hash", doc.ID)
	}
	if !corpus.ValidTicker(doc.Ticker) {
		t.Errorf("%s: ticker %q", doc.ID, doc.Ticker)
	}
	switch {
	case doc.Form == "10-K" && doc.PeriodEnd.Month() == time.December:
	case doc.Form == "10-Q" && slices.Contains([]time.Month{time.March, time.June, time.September}, doc.PeriodEnd.Month()):
	default:
		t.Errorf("%s: %s for the period ending %s", doc.ID, doc.Form, doc.PeriodEnd.Format(time.DateOnly))
	}
	if doc.FiscalYear < 2018 || doc.FiscalYear > 2025 || doc.PeriodEnd.Year() != doc.FiscalYear {
		t.Errorf("%s: fiscal year %d, period end %s", doc.ID, doc.FiscalYear, doc.PeriodEnd.Format(time.DateOnly))
	}
	prevSection := -1
	order := formSections[doc.Form]
	for i, c := range d.Chunks {
		if c.Ordinal != i || c.ID != corpus.ChunkID(doc.ID, i) || c.DocumentID != doc.ID {
			t.Fatalf("%s: chunk %d has ordinal %d, id %s, document %s", doc.ID, i, c.Ordinal, c.ID, c.DocumentID)
		}
		if c.Text != doc.Text[c.Start:c.End] || strings.TrimSpace(c.Text) != c.Text || c.Text == "" {
			t.Fatalf("%s: chunk %d is not its span of the text", doc.ID, i)
		}
		if i == 0 {
			if c.Section != "" {
				t.Errorf("%s: cover chunk in section %q", doc.ID, c.Section)
			}
			continue
		}
		at := slices.IndexFunc(order, func(s struct {
			name  string
			share int
		}) bool {
			return s.name == c.Section
		})
		if name, ok := corpus.NormalizeSection(c.Section); !ok || name != c.Section || at < prevSection {
			t.Fatalf("%s: chunk %d in section %q, after section %d", doc.ID, i, c.Section, prevSection)
		}
		prevSection = at
	}
}

func TestGenerateZipf(t *testing.T) {
	t.Parallel()
	v := BuiltinVocabulary(2000, 1)
	s := generate(t, v, SyntheticOpts{Chunks: 400, ChunksPerDoc: 100, Tickers: 4})
	counts := map[string]int{}
	for _, d := range s.Docs {
		for _, w := range strings.Fields(strings.ToLower(d.Doc.Text)) {
			counts[strings.Trim(w, ".")]++
		}
	}
	// Rank 0 ("the") against rank 100: Zipf with s≈1 gives a ratio near 50.
	head, mid := counts[v.words[0]], counts[v.words[100]]
	if head < 10*mid || mid == 0 {
		t.Errorf("%q occurs %d times, %q %d times: want a Zipf-like fall-off", v.words[0], head, v.words[100], mid)
	}
	rare := 0
	for _, w := range v.words[len(v.words)-1000:] {
		if counts[w] > 0 {
			rare++
		}
	}
	if rare == 0 {
		t.Error("no rare word occurs")
	}
}

func TestEmbed(t *testing.T) {
	t.Parallel()
	s := generate(t, BuiltinVocabulary(100, 1), SyntheticOpts{Chunks: 250, ChunksPerDoc: 100})
	var calls []int
	err := s.Embed(context.Background(), corpus.HashEmbedder{}, 1, func(n int) { calls = append(calls, n) })
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(calls, []int{100, 200, 250}) {
		t.Errorf("progress calls %v, want [100 200 250]", calls)
	}
	for _, d := range s.Docs {
		if d.Doc.Embedder != (corpus.HashEmbedder{}).Name() {
			t.Errorf("embedder %q", d.Doc.Embedder)
		}
		for _, c := range d.Chunks {
			if len(c.Embedding) != corpus.EmbeddingDim {
				t.Fatalf("chunk %s: %d dimensions", c.ID, len(c.Embedding))
			}
		}
	}
}

func TestSyntheticOptsValidate(t *testing.T) {
	t.Parallel()
	for _, o := range []SyntheticOpts{{Chunks: -1}, {ChunksPerDoc: -1}, {ChunkBytes: -1}, {Tickers: 41}, {Tickers: -1}, {Parallelism: -1}} {
		if _, err := Generate(context.Background(), BuiltinVocabulary(10, 1), &o); err == nil {
			t.Errorf("Generate(%+v) succeeded", o)
		}
	}
}

// TestGenerateTopics: with topics a chunk's nearest other chunk is nearly
// always of its own ticker and section, as in real filings; without them
// it is anyone's.
func TestGenerateTopics(t *testing.T) {
	t.Parallel()
	v := BuiltinVocabulary(1000, 1)
	tests := []struct {
		noTopics bool
		min, max float64 // share of nearest neighbours of the same ticker and section
	}{
		{false, 0.8, 1},
		{true, 0, 0.5},
	}
	for _, tt := range tests {
		s := generate(t, v, SyntheticOpts{Chunks: 480, ChunksPerDoc: 60, ChunkBytes: 500, Tickers: 4, NoTopics: tt.noTopics})
		if err := s.Embed(context.Background(), corpus.HashEmbedder{}, 0, nil); err != nil {
			t.Fatal(err)
		}
		var vecs [][]float32
		var keys []string
		for _, d := range s.Docs {
			for _, c := range d.Chunks[1:] { // the cover has no section
				vecs = append(vecs, c.Embedding)
				keys = append(keys, d.Doc.Ticker+" "+d.Doc.Form+" "+c.Section)
			}
		}
		same := 0
		for i, q := range vecs {
			top := ExactTopK(q, vecs, nil, 2) // itself and its nearest
			if keys[top[1]] == keys[i] {
				same++
			}
		}
		share := float64(same) / float64(len(vecs))
		if share < tt.min || share > tt.max {
			t.Errorf("NoTopics %v: %.2f of nearest neighbours share ticker and section, want %.1f to %.1f", tt.noTopics, share, tt.min, tt.max)
		}
	}
}
