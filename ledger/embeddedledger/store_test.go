package embeddedledger_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/ledger/embeddedledger"
)

func setup(t *testing.T) (dir string, s *embeddedledger.Store, path string) {
	t.Helper()
	dir = t.TempDir()
	s, err := embeddedledger.Open(dir, &embeddedledger.Config{Tenant: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.OpenRun(context.Background(), ledger.Run{ID: "r", Question: "q"}); err != nil {
		t.Fatal(err)
	}
	return dir, s, filepath.Join(dir, "ledger", "acme", "r.jsonl")
}

func result(callID string, start int) *ledger.ToolResult {
	return &ledger.ToolResult{Call: ledger.ToolCall{ID: callID, Tool: "search_filings"},
		Evidence: []ledger.Evidence{{Kind: ledger.KindPassage, DocumentID: "d", Start: start, End: start + 10, Excerpt: "x"}}}
}

// A crash mid-append leaves a torn last line: it never counted, readers
// skip it, and the next write cuts it off.
func TestTornLastLineIsDropped(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir, s, path := setup(t)
	if _, err := s.RecordToolResult(ctx, "r", result("c1", 0)); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"call":{"id":"c2","tool":"search_filings"},"evidence":[{"id":"E`); err != nil {
		t.Fatal(err)
	}
	f.Close()

	fresh, err := embeddedledger.Open(dir, &embeddedledger.Config{Tenant: "acme"}) // as a new process
	if err != nil {
		t.Fatal(err)
	}
	l, err := fresh.Load(ctx, "r")
	if err != nil || len(l.ToolCalls) != 1 || len(l.Evidence) != 1 {
		t.Fatalf("Load with a torn last line = %v; calls %d evidence %d, want the one committed call", err, len(l.ToolCalls), len(l.Evidence))
	}
	rec, err := fresh.RecordToolResult(ctx, "r", result("c2", 100))
	if err != nil || rec.Replayed || rec.NewEvidence != 1 {
		t.Fatalf("recording c2 after the torn write = %+v, %v", rec, err)
	}
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(after), string(good)) || strings.Count(string(after), "\n") != strings.Count(string(good), "\n")+1 {
		t.Fatalf("file after recovery:\n%s\nwant the good lines and one new one", after)
	}
	// The first instance catches up with what the other appended.
	if l, err := s.Load(ctx, "r"); err != nil || len(l.ToolCalls) != 2 {
		t.Fatalf("first instance after recovery: %v, %v", l, err)
	}
}

// A damaged line before the last is reported, naming the file, never
// skipped.
func TestDamagedLineIsCorrupt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir, s, path := setup(t)
	if _, err := s.RecordToolResult(ctx, "r", result("c1", 0)); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	lines[0] = "{not json}\n"
	if err := os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	fresh, err := embeddedledger.Open(dir, &embeddedledger.Config{Tenant: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = fresh.Load(ctx, "r")
	if !errors.Is(err, ledger.ErrCorrupt) || !strings.Contains(err.Error(), path) {
		t.Fatalf("Load of a damaged file = %v, want ErrCorrupt naming %s", err, path)
	}
	// One damaged run does not hide the others from the listing.
	if _, _, err := fresh.OpenRun(ctx, ledger.Run{ID: "r2", Question: "q"}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "ledger", "acme", "notes.txt"), []byte("not a run"), 0o644); err != nil {
		t.Fatal(err)
	}
	runs, err := fresh.Runs(ctx, 10)
	if err != nil || len(runs) != 1 || runs[0].ID != "r2" {
		t.Fatalf("Runs beside a damaged file = %+v, %v; want the readable run r2", runs, err)
	}
}

// Runs live at <dir>/ledger/<tenant>/<run>.jsonl, one JSON record a line.
func TestLayout(t *testing.T) {
	t.Parallel()
	_, s, path := setup(t)
	if _, err := s.RecordToolResult(context.Background(), "r", result("c1", 0)); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), "\n"); n != 2 || !strings.HasSuffix(string(data), "\n") {
		t.Fatalf("%s holds %d lines, want 2 (the run, the tool result):\n%s", path, n, data)
	}
	if _, err := embeddedledger.Open(t.TempDir(), &embeddedledger.Config{Tenant: "../etc"}); err == nil {
		t.Fatal("Open with tenant ../etc succeeded")
	}
}
