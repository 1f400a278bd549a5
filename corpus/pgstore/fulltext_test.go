package pgstore_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/corpus/pgstore"
	"github.com/ledgerline/research/internal/pgtest"
)

// fullTextWords are words the english configuration keeps as they are, so
// that a chunk's text shows which of them it matches.
var fullTextWords = strings.Fields("alpha bravo delta hotel kilo lima oscar papa quebec sierra tango zulu")

// fullTextCorpus stores 120 chunks of five to twelve words in two filings,
// common words (alpha, bravo) in most chunks and rare ones in few.
func fullTextCorpus(t *testing.T, s *pgstore.Store) {
	t.Helper()
	r := rand.New(rand.NewPCG(7, 7))
	for d, ticker := range []string{"AAA", "BBB"} {
		var b strings.Builder
		chunks := make([]corpus.Chunk, 60)
		for i := range chunks {
			var words []string
			for range 5 + r.IntN(8) {
				// Squaring skews the draw toward the first words.
				x := r.Float64()
				words = append(words, fullTextWords[int(x*x*float64(len(fullTextWords)))])
			}
			text := strings.Join(words, " ") + "."
			chunks[i] = corpus.Chunk{Ordinal: i, Start: b.Len(), End: b.Len() + len(text), Text: text}
			b.WriteString(text + "\n")
		}
		doc := &corpus.Document{Ticker: ticker, Form: "10-K", FiscalYear: 2020 + d, PeriodEnd: day("2024-12-31"),
			Format: corpus.FormatText, Text: b.String()}
		doc.ID = corpus.DocumentID(doc.Text)
		for i := range chunks {
			chunks[i].ID = corpus.ChunkID(doc.ID, i)
		}
		mustAdd(t, s, doc, chunks, nil)
	}
}

var fullTextQueries = []string{"alpha", "alpha bravo", "bravo zulu", "tango sierra papa", "zulu quebec alpha", "lima -alpha", `"alpha bravo" kilo`}

// TestFullTextCandidatesKeepRanking checks that a bound above the number of
// matches changes nothing: the results are the unbounded ranking's.
func TestFullTextCandidatesKeepRanking(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.Pool(t)
	bounded := newStore(t, pool, "")
	fullTextCorpus(t, bounded)
	unbounded, err := pgstore.New(pool, &pgstore.Config{FullTextCandidates: -1})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range fullTextQueries {
		for _, f := range []corpus.Filter{{}, {Tickers: []string{"BBB"}}} {
			for _, k := range []int{1, 10, 50} {
				got, err := bounded.FullTextSearch(ctx, q, f, k)
				if err != nil {
					t.Fatal(err)
				}
				want, err := unbounded.FullTextSearch(ctx, q, f, k)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(ids(got), ids(want)) {
					t.Errorf("%q %v k=%d: bounded %q, unbounded %q", q, f.Tickers, k, resultTexts(got), resultTexts(want))
				}
				for i := range got {
					if got[i].Score != want[i].Score {
						t.Errorf("%q %v k=%d: result %d scored %v, unbounded %v", q, f.Tickers, k, i, got[i].Score, want[i].Score)
					}
				}
			}
		}
	}
}

// TestFullTextCandidatesBound checks a bound below the number of matches:
// as many results as unbounded, in the filter, every chunk matching all the
// words ahead of any matching only some, best first.
func TestFullTextCandidatesBound(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.Pool(t)
	s, err := pgstore.New(pool, &pgstore.Config{FullTextCandidates: 3})
	if err != nil {
		t.Fatal(err)
	}
	fullTextCorpus(t, s)
	unbounded, err := pgstore.New(pool, &pgstore.Config{FullTextCandidates: -1})
	if err != nil {
		t.Fatal(err)
	}
	holdsAll := func(text string, words []string) bool {
		for _, w := range words {
			if !slices.Contains(strings.Fields(strings.TrimSuffix(text, ".")), w) {
				return false
			}
		}
		return true
	}
	differs := false
	for _, q := range []string{"alpha bravo", "bravo zulu", "tango sierra papa", "zulu quebec alpha"} {
		words := strings.Fields(q)
		for _, f := range []corpus.Filter{{}, {Tickers: []string{"BBB"}}} {
			for _, k := range []int{2, 10} {
				got, err := s.FullTextSearch(ctx, q, f, k)
				if err != nil {
					t.Fatal(err)
				}
				want, err := unbounded.FullTextSearch(ctx, q, f, k)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != len(want) {
					t.Fatalf("%q %v k=%d: %d results, unbounded %d", q, f.Tickers, k, len(got), len(want))
				}
				differs = differs || !slices.Equal(ids(got), ids(want))
				partial := false
				for i, r := range got {
					if len(f.Tickers) > 0 && r.Ticker != f.Tickers[0] {
						t.Errorf("%q %v: result of %s", q, f.Tickers, r.Ticker)
					}
					all := holdsAll(r.Text, words)
					if all && partial {
						t.Errorf("%q %v k=%d: %q, matching every word, after a partial match", q, f.Tickers, k, r.Text)
					}
					partial = partial || !all
					if i > 0 && all == holdsAll(got[i-1].Text, words) && r.Score > got[i-1].Score {
						t.Errorf("%q %v k=%d: result %d scores %v, above the one before it (%v)", q, f.Tickers, k, i, r.Score, got[i-1].Score)
					}
				}
				if len(slices.Compact(slices.Sorted(slices.Values(ids(got))))) != len(got) {
					t.Errorf("%q %v k=%d: a chunk is returned twice: %q", q, f.Tickers, k, ids(got))
				}
			}
		}
	}
	if !differs {
		t.Error("every bounded search returned the unbounded results: the bound was never reached")
	}
}

func TestFullTextCandidatesConfig(t *testing.T) {
	t.Parallel()
	if _, err := pgstore.New(pgtest.Pool(t), &pgstore.Config{FullTextCandidates: -2}); err == nil || !strings.Contains(err.Error(), "FullTextCandidates") {
		t.Errorf("FullTextCandidates -2: error %v, want one naming the field", err)
	}
}

func resultTexts(rs []corpus.SearchResult) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Text
	}
	return out
}
