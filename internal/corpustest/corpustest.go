// Package corpustest gives tests the sample corpus ingested once per test
// binary into an embedded store, so packages that test over the whole
// corpus do not re-ingest it for every test.
package corpustest

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/corpus/embedded"
)

// Dir returns the sample corpus directory ($CORPUS, or ../shared/corpus
// beside the repository). When it is absent the test is skipped, or fails
// under CI (CI non-empty), where a skipped corpus test would hide that
// nothing over the corpus ran.
func Dir(t testing.TB) string {
	t.Helper()
	dir, err := find()
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("sample corpus not found (%v): CI needs it beside the repository or in CORPUS", err)
		}
		t.Skipf("sample corpus not found (%v): set CORPUS to its directory", err)
	}
	return dir
}

func find() (string, error) {
	if dir := os.Getenv("CORPUS"); dir != "" {
		return dir, check(dir)
	}
	// Walk up from the package directory to the repository's parent.
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		cand := filepath.Join(d, "..", "shared", "corpus")
		if check(cand) == nil {
			return cand, nil
		}
		if filepath.Dir(d) == d {
			return "", errors.New("no ../shared/corpus/manifest.jsonl above " + wd)
		}
	}
}

func check(dir string) error {
	_, err := os.Stat(filepath.Join(dir, "manifest.jsonl"))
	return err
}

// Entries reads the sample corpus's manifest. Without pdftotext the one
// PDF is left out: it is the same filing as text/APPLE_2023Q3_10Q.txt.
func Entries(t testing.TB) []corpus.ManifestEntry {
	t.Helper()
	dir := Dir(t)
	f, err := os.Open(filepath.Join(dir, "manifest.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	entries, errs := corpus.ReadManifest(f, "manifest.jsonl", dir)
	if len(errs) > 0 {
		t.Fatal(errors.Join(errs...))
	}
	if _, err := exec.LookPath("pdftotext"); err != nil {
		kept := entries[:0]
		for _, e := range entries {
			if !strings.EqualFold(filepath.Ext(e.Path), ".pdf") {
				kept = append(kept, e)
			}
		}
		entries = kept
	}
	return entries
}

var shared struct {
	once  sync.Once
	dir   string
	store *embedded.Store
	err   error
}

// Store returns the sample corpus ingested into an embedded store with
// the hash embedder, shared by every test of the binary. Call Cleanup from
// TestMain to remove it.
func Store(t testing.TB) *embedded.Store {
	t.Helper()
	entries := Entries(t)
	shared.once.Do(func() {
		if shared.dir, shared.err = os.MkdirTemp("", "corpustest-"); shared.err != nil {
			return
		}
		if shared.store, shared.err = embedded.Open(shared.dir, nil); shared.err != nil {
			return
		}
		shared.err = Ingest(context.Background(), shared.store, entries)
	})
	if shared.err != nil {
		t.Fatalf("ingesting the sample corpus: %v", shared.err)
	}
	return shared.store
}

// Ingest ingests entries into store with the hash embedder.
func Ingest(ctx context.Context, store corpus.Store, entries []corpus.ManifestEntry) error {
	in, err := corpus.NewIngester(store, corpus.HashEmbedder{})
	if err != nil {
		return err
	}
	report, err := in.Ingest(ctx, entries, nil)
	if err != nil {
		return err
	}
	return report.Err()
}

// Cleanup closes and removes the shared store; call it from TestMain
// after m.Run.
func Cleanup() {
	if shared.store != nil {
		shared.store.Close()
	}
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
	}
}
