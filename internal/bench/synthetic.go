package bench

import (
	"context"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/ledgerline/research/corpus"
)

// SyntheticOpts shapes a synthetic corpus. The zero value is valid.
type SyntheticOpts struct {
	Chunks       int    // total chunks; 0 means 200,000
	ChunksPerDoc int    // chunks per document (the last may have fewer); 0 means 500
	ChunkBytes   int    // approximate bytes of text per chunk; 0 means 1,000
	Tickers      int    // distinct tickers, at most len(Tickers()); 0 means 40
	Seed         uint64 // the same seed and options give the same corpus
	Parallelism  int    // goroutines generating and embedding; 0 means GOMAXPROCS
	// NoTopics draws every word from the vocabulary's Zipf distribution,
	// so that chunks are independent draws with no neighbourhood structure:
	// the hardest case for an approximate nearest-neighbour index. By
	// default a chunk draws a quarter of its words from a topic tied to its
	// ticker, section and theme (see Generate), as real filings repeat an
	// issuer's words from year to year.
	NoTopics bool
}

func (o SyntheticOpts) withDefaults() SyntheticOpts {
	if o.Chunks == 0 {
		o.Chunks = 200_000
	}
	if o.ChunksPerDoc == 0 {
		o.ChunksPerDoc = 500
	}
	if o.ChunkBytes == 0 {
		o.ChunkBytes = 1000
	}
	if o.Tickers == 0 {
		o.Tickers = 40
	}
	if o.Parallelism == 0 {
		o.Parallelism = runtime.GOMAXPROCS(0)
	}
	return o
}

func (o SyntheticOpts) validate() error {
	switch {
	case o.Chunks < 0:
		return fmt.Errorf("bench: SyntheticOpts.Chunks %d is negative", o.Chunks)
	case o.ChunksPerDoc < 0:
		return fmt.Errorf("bench: SyntheticOpts.ChunksPerDoc %d is negative", o.ChunksPerDoc)
	case o.ChunkBytes < 0:
		return fmt.Errorf("bench: SyntheticOpts.ChunkBytes %d is negative", o.ChunkBytes)
	case o.Tickers < 0 || o.Tickers > len(tickers):
		return fmt.Errorf("bench: SyntheticOpts.Tickers %d: want 0 to %d", o.Tickers, len(tickers))
	case o.Parallelism < 0:
		return fmt.Errorf("bench: SyntheticOpts.Parallelism %d is negative", o.Parallelism)
	}
	return nil
}

// tickers are the issuers of synthetic filings.
var tickers = strings.Fields(`AAPL MSFT AMZN GOOGL META NVDA NFLX ORCL INTC EBAY COST WMT TSLA ADBE CRM
	CSCO AMD QCOM TXN IBM AVGO PYPL INTU AMAT MU JPM BAC WFC GS MS V MA JNJ PFE MRK KO PEP PG HD NKE`)

// Tickers returns the tickers synthetic corpora draw from, in the order
// they are used.
func Tickers() []string { return append([]string(nil), tickers...) }

// Sections of each form, in filing order, with their share of the chunks
// in percent. The first chunk is the cover page, outside any item.
var formSections = map[string][]struct {
	name  string
	share int
}{
	"10-K": {{"Item 1", 10}, {"Item 1A", 20}, {"Item 2", 2}, {"Item 3", 2}, {"Item 5", 3},
		{"Item 7", 25}, {"Item 7A", 3}, {"Item 8", 30}, {"Item 9A", 5}},
	"10-Q": {{"Item 1", 40}, {"Item 2", 35}, {"Item 3", 3}, {"Item 4", 2}, {"Item 1A", 20}},
}

// Synthetic is a generated corpus: documents with their chunks, in order.
type Synthetic struct {
	Docs []SyntheticDoc
}

// SyntheticDoc is one generated filing.
type SyntheticDoc struct {
	Doc    *corpus.Document
	Chunks []corpus.Chunk
}

// Generate returns a synthetic corpus of filings whose text is sentences of
// words drawn from v with a Zipf distribution of ranks. Unless
// opts.NoTopics, a quarter of a chunk's words come instead from one of
// eight themes of its ticker and section, a set of topicWords content words
// that the ticker's other filings share: runs of four chunks share a
// theme, so chunks have near neighbours within and across filings, as
// real ones do. Document d is generated from (opts.Seed, d) alone, so the
// result does not depend on the parallelism. Chunks are not embedded; see
// Embed.
func Generate(ctx context.Context, v *Vocabulary, opts *SyntheticOpts) (*Synthetic, error) {
	var o SyntheticOpts
	if opts != nil {
		o = *opts
	}
	if err := o.validate(); err != nil {
		return nil, err
	}
	o = o.withDefaults()
	ndocs := (o.Chunks + o.ChunksPerDoc - 1) / o.ChunksPerDoc
	s := &Synthetic{Docs: make([]SyntheticDoc, ndocs)}
	// Each ticker files in a random order of the 32 periods of 2018-2025.
	slots := make([][]int, o.Tickers)
	for t := range slots {
		slots[t] = rand.New(rand.NewPCG(o.Seed, uint64(1<<32+t))).Perm(32)
	}
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(o.Parallelism)
	for d := range ndocs {
		g.Go(func() error {
			if err := ctx.Err(); err != nil {
				return err
			}
			n := min(o.ChunksPerDoc, o.Chunks-d*o.ChunksPerDoc)
			t := d % o.Tickers
			s.Docs[d] = generateDoc(v, o, d, tickers[t], slots[t][(d/o.Tickers)%32], n)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return s, nil
}

// generateDoc returns the d-th document: n chunks for ticker's filing in
// period slot (fiscal year 2018 + slot/4; a 10-K for quarter 0, else that
// quarter's 10-Q).
func generateDoc(v *Vocabulary, o SyntheticOpts, d int, ticker string, slot, n int) SyntheticDoc {
	r := rand.New(rand.NewPCG(o.Seed, uint64(d)))
	zipf := rand.NewZipf(r, 1.07, 2, uint64(len(v.words)-1))
	fy, quarter := 2018+slot/4, slot%4
	form, periodEnd := "10-K", time.Date(fy, time.December, 31, 0, 0, 0, 0, time.UTC)
	if quarter > 0 {
		form, periodEnd = "10-Q", time.Date(fy, time.Month(3*quarter+1), 0, 0, 0, 0, 0, time.UTC)
	}
	sections := formSections[form]

	var text strings.Builder
	text.Grow(n * (o.ChunkBytes + 100))
	type span struct{ start, end int }
	spans := make([]span, n)
	names := make([]string, n)
	sectionStart := 0
	for i := range n {
		if i > 0 {
			text.WriteString("\n\n")
		}
		names[i] = sectionAt(sections, i, n)
		if i == 0 || names[i] != names[i-1] {
			sectionStart = i
		}
		var topic []string
		if !o.NoTopics {
			topic = topicOf(v, o.Seed, ticker, names[i], ((i-sectionStart)/4)%themes)
		}
		start := text.Len()
		writeParagraph(&text, r, zipf, v, topic, o.ChunkBytes)
		spans[i] = span{start, text.Len()}
	}
	doc := &corpus.Document{
		Ticker:     ticker,
		Company:    ticker + " Synthetic Inc.",
		Form:       form,
		FiscalYear: fy,
		PeriodEnd:  periodEnd,
		Filed:      periodEnd.AddDate(0, 0, 40),
		Source:     fmt.Sprintf("synthetic:%d/%d", o.Seed, d),
		Format:     corpus.FormatText,
		Text:       text.String(),
	}
	doc.ID = corpus.DocumentID(doc.Text)
	chunks := make([]corpus.Chunk, n)
	for i, sp := range spans {
		chunks[i] = corpus.Chunk{
			ID:         corpus.ChunkID(doc.ID, i),
			DocumentID: doc.ID,
			Ordinal:    i,
			Section:    names[i],
			Start:      sp.start,
			End:        sp.end,
			Text:       doc.Text[sp.start:sp.end], // shares the document's memory
		}
	}
	return SyntheticDoc{Doc: doc, Chunks: chunks}
}

// sectionAt returns the section of chunk i of n: "" for the cover, then
// the sections in order, each over its share of the rest.
func sectionAt(sections []struct {
	name  string
	share int
}, i, n int) string {
	if i == 0 {
		return ""
	}
	pos := (i - 1) * 100 / max(n-1, 1)
	for _, s := range sections {
		if pos < s.share {
			return s.name
		}
		pos -= s.share
	}
	return sections[len(sections)-1].name
}

// Topics: themes per ticker and section, and words per theme.
const (
	themes     = 8
	topicWords = 12
)

// topicOf returns the words of a theme of ticker's section: content words
// drawn uniformly, so mostly of middling or rare frequency.
func topicOf(v *Vocabulary, seed uint64, ticker, section string, theme int) []string {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%s\x00%d", ticker, section, theme)
	r := rand.New(rand.NewPCG(seed, h.Sum64()))
	words := make([]string, topicWords)
	for i := range words {
		words[i] = v.words[v.content[r.IntN(len(v.content))]]
	}
	return words
}

// writeParagraph writes sentences until the paragraph is about size bytes,
// drawing a quarter of its words from topic when it is not empty.
func writeParagraph(b *strings.Builder, r *rand.Rand, zipf *rand.Zipf, v *Vocabulary, topic []string, size int) {
	start := b.Len()
	for b.Len()-start < size-60 {
		if b.Len() > start {
			b.WriteByte(' ')
		}
		words := 8 + r.IntN(17)
		for w := range words {
			if w > 0 {
				b.WriteByte(' ')
			}
			switch x := r.IntN(40); {
			case x == 0:
				fmt.Fprintf(b, "$%d.%d million", 1+r.IntN(9999), r.IntN(10))
			case x == 1:
				fmt.Fprintf(b, "%d.%d%%", r.IntN(100), r.IntN(10))
			default:
				var word string
				if len(topic) > 0 && x%4 == 0 {
					word = topic[r.IntN(len(topic))]
				} else {
					word = v.words[zipf.Uint64()]
				}
				if w == 0 {
					b.WriteString(strings.ToUpper(word[:1]))
					word = word[1:]
				}
				b.WriteString(word)
			}
		}
		b.WriteByte('.')
	}
}

// Chunks returns the number of chunks.
func (s *Synthetic) Chunks() int {
	n := 0
	for _, d := range s.Docs {
		n += len(d.Chunks)
	}
	return n
}

// TextBytes returns the bytes of text of all chunks.
func (s *Synthetic) TextBytes() int64 {
	var n int64
	for _, d := range s.Docs {
		for _, c := range d.Chunks {
			n += int64(len(c.Text))
		}
	}
	return n
}

// Tickers returns the distinct tickers of the documents, in order of first
// appearance.
func (s *Synthetic) Tickers() []string {
	var out []string
	seen := map[string]bool{}
	for _, d := range s.Docs {
		if !seen[d.Doc.Ticker] {
			seen[d.Doc.Ticker] = true
			out = append(out, d.Doc.Ticker)
		}
	}
	return out
}

// Embed embeds every chunk with emb, parallelism documents at a time (0
// means GOMAXPROCS), and records emb as the documents' embedder. It calls
// done, when not nil, with the number of chunks embedded so far.
func (s *Synthetic) Embed(ctx context.Context, emb corpus.Embedder, parallelism int, done func(chunks int)) error {
	if parallelism <= 0 {
		parallelism = runtime.GOMAXPROCS(0)
	}
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(parallelism)
	var total atomic.Int64
	for _, d := range s.Docs {
		g.Go(func() error {
			texts := make([]string, len(d.Chunks))
			for i, c := range d.Chunks {
				texts[i] = c.Text
			}
			vecs, err := emb.Embed(ctx, texts)
			if err != nil {
				return err
			}
			if len(vecs) != len(texts) {
				return fmt.Errorf("bench: embedder returned %d vectors for %d texts", len(vecs), len(texts))
			}
			for i := range d.Chunks {
				d.Chunks[i].Embedding = vecs[i]
			}
			d.Doc.Embedder = emb.Name()
			if n := total.Add(int64(len(texts))); done != nil {
				done(int(n))
			}
			return nil
		})
	}
	return g.Wait()
}
