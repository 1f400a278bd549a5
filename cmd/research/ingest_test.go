package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledgerline/research/internal/corpustest"
	"github.com/ledgerline/research/internal/pgtest"
)

// TestIngestNULByte ingests two filings, one of which has a raw NUL byte in
// its text: that file fails with an error that says so, the other is
// stored, and no database message reaches the output.
func TestIngestNULByte(t *testing.T) {
	t.Parallel()
	pool, schema := pgtest.EmptyPool(t)
	u := pgtest.SchemaURL(t, schema)
	dir := t.TempDir()
	corpustest.WriteFilings(t, dir, batchFilings[:2]...)
	matches, err := filepath.Glob(filepath.Join(dir, "*.htm*"))
	if err != nil || len(matches) != 2 {
		t.Fatalf("fixture files %v (%v)", matches, err)
	}
	damaged := matches[0]
	b, err := os.ReadFile(damaged)
	if err != nil {
		t.Fatal(err)
	}
	b = bytes.Replace(b, []byte("Gross margin"), []byte("Gross\x00margin"), 1)
	if err := os.WriteFile(damaged, b, 0o644); err != nil {
		t.Fatal(err)
	}

	code, out, errOut := runCLI(t, "ingest", "--manifest", filepath.Join(dir, "manifest.jsonl"), "--db", u, "--tenant", "acme")
	all := out + errOut
	if code == 0 {
		t.Errorf("ingest with a damaged file exited 0:\n%s", all)
	}
	if !strings.Contains(all, "NUL byte") || !strings.Contains(all, filepath.Base(damaged)) {
		t.Errorf("the output does not name the damaged file and its NUL byte:\n%s", all)
	}
	for _, leak := range []string{"SQLSTATE", "invalid byte sequence", "0x00"} {
		if strings.Contains(all, leak) {
			t.Errorf("the output holds %q:\n%s", leak, all)
		}
	}
	var docs int
	if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM documents WHERE tenant_id = 'acme'`).Scan(&docs); err != nil {
		t.Fatal(err)
	}
	if docs != 1 {
		t.Errorf("%d documents stored, want the undamaged one", docs)
	}
}
