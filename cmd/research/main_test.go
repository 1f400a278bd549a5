package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/ledgerline/research/internal/pgtest"
)

// runCLI runs the binary's entry point in process.
func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

// writeFixtures writes a small corpus: two good text filings (one with a
// page break), a corrupt PDF, a file of unknown format, and a manifest
// that also names a missing file and holds a bad line.
func writeFixtures(t *testing.T) (dir, manifest string) {
	t.Helper()
	dir = t.TempDir()
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("acme-2024.txt", "ACME CORP FORM 10-K\nItem 1. Business\nAcme makes anvils and rockets for desert customers.\n\f\n"+
		"Item 7. Management's Discussion and Analysis of Financial Condition and Results of Operations\n"+
		"Gross margin decreased due to higher steel costs and lower anvil prices.\n")
	write("acme-2023.txt", "ACME CORP FORM 10-K\nItem 7. Management's Discussion and Analysis\nGross margin increased on strong rocket demand.\n")
	write("broken.pdf", "%PDF-1.7\nthis is not really a pdf")
	write("notes.docx", "PK\x03\x04")
	lines := []string{
		`{"path": "acme-2024.txt", "ticker": "ACME", "company": "Acme Corp", "form": "10-K", "fiscal_year": 2024, "period_end": "2024-12-31"}`,
		`{"path": "acme-2023.txt", "ticker": "ACME", "company": "Acme Corp", "form": "10-K", "fiscal_year": 2023, "period_end": "2023-12-31"}`,
		`{"path": "broken.pdf", "ticker": "ACME", "company": "Acme Corp", "form": "10-Q", "fiscal_year": 2024, "period_end": "2024-06-30"}`,
		`{"path": "notes.docx", "ticker": "ACME", "company": "Acme Corp", "form": "10-Q", "fiscal_year": 2024, "period_end": "2024-03-31"}`,
		`{"path": "missing.txt", "ticker": "ACME", "company": "Acme Corp", "form": "10-Q", "fiscal_year": 2023, "period_end": "2023-03-31"}`,
		`{"path": "acme-2023.txt", "ticker": "acme co", "company": "Acme Corp", "form": "10-K", "fiscal_year": 2023, "period_end": "2023-12-31"}`,
	}
	manifest = filepath.Join(dir, "manifest.jsonl")
	write("manifest.jsonl", strings.Join(lines, "\n")+"\n")
	return dir, manifest
}

type searchJSON struct {
	Results []map[string]any `json:"results"`
}

// exercise runs ingest twice and searches against the store that storeArgs select.
func exercise(t *testing.T, storeArgs ...string) {
	_, manifest := writeFixtures(t)
	code, out, errOut := runCLI(t, append([]string{"ingest", "--manifest", manifest}, storeArgs...)...)
	if code != 1 {
		t.Fatalf("ingest with bad sources exited %d, want 1\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{
		"ingested 2 documents",
		"manifest.jsonl:6: ticker \"acme co\"",
		"manifest.jsonl:3", "broken.pdf",
		"manifest.jsonl:4", "unknown format",
		"manifest.jsonl:5", "missing.txt",
	} {
		if !strings.Contains(out+errOut, want) {
			t.Errorf("ingest output lacks %q:\n%s\n%s", want, out, errOut)
		}
	}

	// Again: nothing changes, and it says so.
	code, out, errOut = runCLI(t, append([]string{"ingest", "--manifest", manifest}, storeArgs...)...)
	if code != 1 || !strings.Contains(out, "ingested 0 documents") || !strings.Contains(out, "2 unchanged") {
		t.Fatalf("second ingest exited %d:\n%s\n%s", code, out, errOut)
	}

	code, out, errOut = runCLI(t, append([]string{"search", "gross margin steel", "--ticker", "ACME", "--k", "3", "--format", "json"}, storeArgs...)...)
	if code != 0 {
		t.Fatalf("search exited %d: %s", code, errOut)
	}
	var res searchJSON
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("search JSON: %v\n%s", err, out)
	}
	if len(res.Results) == 0 {
		t.Fatalf("no results:\n%s", out)
	}
	first := res.Results[0]
	for _, key := range []string{"chunk_id", "document_id", "ticker", "company", "form", "fiscal_year", "period_end", "section", "page", "start", "end", "score", "text"} {
		if _, ok := first[key]; !ok {
			t.Errorf("result lacks %q: %v", key, first)
		}
	}
	if first["period_end"] != "2024-12-31" || first["section"] != "Item 7" || first["page"] != float64(2) ||
		!strings.Contains(first["text"].(string), "steel costs") {
		t.Errorf("first result = %v; want the 2024 MD&A chunk on page 2", first)
	}

	code, out, _ = runCLI(t, append([]string{"search", "anvils", "--format", "text", "--mode", "fulltext", "--section", "1"}, storeArgs...)...)
	if code != 0 || !strings.Contains(out, "ACME") || !strings.Contains(out, "Item 1") {
		t.Errorf("text search exited %d:\n%s", code, out)
	}
}

func TestCLIEmbedded(t *testing.T) {
	exercise(t, "--db", "", "--data-dir", t.TempDir())
}

func TestCLIPostgres(t *testing.T) {
	_, schema := pgtest.EmptyPool(t)
	u := pgtest.SchemaURL(t, schema)
	exercise(t, "--db", u)

	code, out, errOut := runCLI(t, "migrate", "--db", u)
	if code != 0 || !strings.Contains(out, "up to date") {
		t.Fatalf("migrate on a migrated schema exited %d: %s %s", code, out, errOut)
	}
}

func TestCLIUsage(t *testing.T) {
	tests := []struct {
		args []string
		code int
		want string
	}{
		{nil, 2, "Commands:"},
		{[]string{"help"}, 0, "ingest"},
		{[]string{"frobnicate"}, 2, `unknown command "frobnicate"`},
		{[]string{"ledger"}, 2, "Usage: research ledger"},
		{[]string{"batch", "frob"}, 2, `research batch: unknown subcommand "frob"`},
		{[]string{"bench", "frob"}, 2, `research bench: unknown subcommand "frob"`},
		{[]string{"tenant", "help"}, 0, "create NAME"},
		{[]string{"search", "--help"}, 0, "Usage: research search"},
		{[]string{"ingest", "--help"}, 0, "--manifest"},
		{[]string{"migrate", "--help"}, 0, "Usage: research migrate"},
		{[]string{"search"}, 2, "Usage: research search"},
		{[]string{"search", "x", "--k", "0", "--data-dir", "DIR"}, 1, "--k 0"},
		{[]string{"search", "x", "--format", "xml", "--data-dir", "DIR"}, 1, "--format"},
		{[]string{"search", "x", "--bogus"}, 2, "flag provided but not defined"},
		{[]string{"migrate", "--db", ""}, 1, "no database"},
		{[]string{"ingest", "a.txt", "--ticker", "A", "--company", "A", "--fiscal-year", "2024", "--period-end", "2024-13-01", "--data-dir", "DIR"}, 1, "period_end"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.args), func(t *testing.T) {
			args := make([]string, len(tt.args))
			for i, a := range tt.args {
				args[i] = strings.ReplaceAll(a, "DIR", t.TempDir())
			}
			code, out, errOut := runCLI(t, args...)
			if code != tt.code || !strings.Contains(out+errOut, tt.want) {
				t.Fatalf("exit %d, want %d; output lacks %q?\n%s\n%s", code, tt.code, tt.want, out, errOut)
			}
		})
	}
}

// A database going away (refused, cut, shut down by its operator) is worth
// waiting for at start-up; a statement's own failure is not.
func TestConnectionLost(t *testing.T) {
	tests := []struct {
		err  error
		want bool
	}{
		{&pgconn.PgError{Code: "57P01", Message: "terminating connection due to administrator command"}, true},
		{&pgconn.PgError{Code: "57P03", Message: "the database system is starting up"}, true},
		{&pgconn.PgError{Code: "08006"}, true},
		{fmt.Errorf("migrations: river job queue: %w", &pgconn.PgError{Code: "57P01"}), true},
		{fmt.Errorf("dial: %w", syscall.ECONNREFUSED), true},
		{io.ErrUnexpectedEOF, true},
		{&pgconn.PgError{Code: "42P01", Message: "relation does not exist"}, false},
		{&pgconn.PgError{Code: "23505"}, false},
		{errors.New("migrations: 0003_ledger: syntax error"), false},
	}
	for _, tc := range tests {
		if got := connectionLost(tc.err); got != tc.want {
			t.Errorf("connectionLost(%v) = %v; want %v", tc.err, got, tc.want)
		}
	}
}
