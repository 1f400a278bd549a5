package eval

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/corpus/embedded"
	"github.com/ledgerline/research/corpus/pgstore"
	"github.com/ledgerline/research/internal/pgtest"
)

// ingestSample ingests the sample corpus into store.
func ingestSample(t *testing.T, store corpus.Store) {
	t.Helper()
	dir := os.Getenv("CORPUS")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared", "corpus")
	}
	f, err := os.Open(filepath.Join(dir, "manifest.jsonl"))
	if err != nil {
		t.Skipf("sample corpus not found at %s (set CORPUS): %v", dir, err)
	}
	defer f.Close()
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Skip("pdftotext not installed (apt-get install poppler-utils); the corpus holds a PDF")
	}
	entries, errs := corpus.ReadManifest(f, "manifest.jsonl", dir)
	if len(errs) > 0 {
		t.Fatal(errors.Join(errs...))
	}
	in, err := corpus.NewIngester(store, corpus.HashEmbedder{})
	if err != nil {
		t.Fatal(err)
	}
	report, err := in.Ingest(context.Background(), entries, nil)
	if err != nil {
		t.Fatal(err)
	}
	if report.Failed > 0 {
		t.Fatal(report.Err())
	}
}

// TestRetrievalQuality holds the offline embedder to its claim on both
// stores: on the team's retrieval set, hybrid search is not worse than
// full text alone, and per-issuer interleaving gives every issuer a
// comparison names a place in the results.
func TestRetrievalQuality(t *testing.T) {
	if testing.Short() {
		t.Skip("ingests the whole sample corpus")
	}
	t.Run("embedded", func(t *testing.T) {
		t.Parallel()
		store, err := embedded.Open(t.TempDir(), nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { store.Close() })
		checkRetrieval(t, store)
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		store, err := pgstore.New(pgtest.Pool(t), nil)
		if err != nil {
			t.Fatal(err)
		}
		checkRetrieval(t, store)
	})
}

func checkRetrieval(t *testing.T, store corpus.Store) {
	ingestSample(t, store)
	set, err := LoadRetrievalSet(bytes.NewReader(RetrievalSetJSONL))
	if err != nil {
		t.Fatal(err)
	}
	scores, err := RunRetrieval(context.Background(), corpus.NewSearcher(store, corpus.HashEmbedder{}), set, Methods, []int{5, 10})
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]MethodScore{}
	for _, s := range scores {
		by[s.Method] = s
		t.Logf("%-18s recall@5 %.3f recall@10 %.3f nDCG@5 %.3f nDCG@10 %.3f MRR %.3f issuers %.3f",
			s.Method, s.Recall[5], s.Recall[10], s.NDCG[5], s.NDCG[10], s.MRR, s.IssuerCoverage)
	}
	ft, hy, il := by["fulltext"], by["hybrid"], by["hybrid+interleave"]
	if hy.Recall[10] < ft.Recall[10] || hy.NDCG[10] < ft.NDCG[10] {
		t.Errorf("hybrid (recall@10 %.3f, nDCG@10 %.3f) is worse than full text (%.3f, %.3f): the offline embedder does not earn its place",
			hy.Recall[10], hy.NDCG[10], ft.Recall[10], ft.NDCG[10])
	}
	if il.IssuerCoverage != 1 || il.IssuerCoverage < hy.IssuerCoverage {
		t.Errorf("interleaving covers %.3f of the named issuers (plain hybrid %.3f); want every one", il.IssuerCoverage, hy.IssuerCoverage)
	}
	if hy.Recall[10] < 0.7 {
		t.Errorf("hybrid recall@10 = %.3f; it was 0.77 when the set was written", hy.Recall[10])
	}
}
