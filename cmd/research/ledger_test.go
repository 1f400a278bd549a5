package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/internal/pgtest"
	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/ledger/embeddedledger"
	"github.com/ledgerline/research/ledger/ledgertest"
	"github.com/ledgerline/research/ledger/pgledger"
	"github.com/ledgerline/research/migrations"
)

const (
	cliDoc   = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	cliRunID = "run-cli-1"
)

// recordSampleRun records a small run through s and returns what its export
// must hold.
func recordSampleRun(t *testing.T, s ledger.Store) ledgertest.ExportWant {
	t.Helper()
	ctx := context.Background()
	run, _, err := s.OpenRun(ctx, ledger.Run{ID: cliRunID, Question: "Did ACME's gross margin fall in 2024?",
		CorpusSnapshot: ledger.CorpusSnapshot([]string{cliDoc})})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddRequirements(ctx, cliRunID, []ledger.Requirement{
		{ID: "ACME.margin", Issuer: "ACME", Period: "FY2024", Description: "gross margin and its drivers",
			CompletionCondition: "a statement of the change in gross margin"},
	}); err != nil {
		t.Fatal(err)
	}
	passage := ledger.Evidence{Kind: ledger.KindPassage, DocumentID: cliDoc, Start: 120, End: 192,
		Excerpt: "Gross margin decreased due to higher steel costs and lower anvil prices.", Ticker: "ACME",
		Form: "10-K", Period: "FY2024", Page: 2, Section: "Item 7"}
	value := ledger.Evidence{Kind: ledger.KindFact, DocumentID: cliDoc, Start: 300, End: 306, Excerpt: "41.25%",
		Ticker: "ACME", Form: "10-K", Period: "FY2024", Page: 2, Section: "Item 7"}
	valueID := ledger.EvidenceID(cliDoc, 300, 306)
	t0 := time.Now()
	for _, callID := range []string{"c1", "c2"} { // the same search twice: c2 brings nothing new
		if _, err := s.RecordToolResult(ctx, cliRunID, &ledger.ToolResult{
			Call:     ledger.ToolCall{ID: callID, Tool: "search_filings", RequirementID: "ACME.margin", Started: t0, Finished: t0.Add(3 * time.Millisecond)},
			Evidence: []ledger.Evidence{passage, value},
			Facts:    []ledger.Fact{{EvidenceID: valueID, Concept: "GrossMarginPercent", Value: decimal.RequireFromString("41.25"), Unit: "pure", Period: "FY2024"}},
			Search:   &ledger.Search{Query: "gross margin steel", Filters: map[string]string{"ticker": "ACME"}, CandidatesSeen: 5},
		}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.UpdateRequirement(ctx, cliRunID, "ACME.margin", ledger.RequirementSupported, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.FinishRun(ctx, cliRunID, ledger.StatusSupported); err != nil {
		t.Fatal(err)
	}
	return ledgertest.ExportWant{
		Task:           run.Question,
		CorpusSnapshot: run.CorpusSnapshot,
		Requirements: map[string]ledgertest.RequirementWant{
			"ACME.margin": {Status: "supported", Evidence: []string{ledger.EvidenceID(cliDoc, 120, 192), valueID}},
		},
		Facts: []ledgertest.FactWant{{ID: ledger.FactID(valueID, "GrossMarginPercent", "FY2024", "pure"), EvidenceID: valueID, Value: "41.25", Unit: "pure"}},
		Searches: []ledgertest.SearchWant{
			{QueryKey: "gross margin steel|ticker=ACME", NewEvidence: 2},
			{QueryKey: "gross margin steel|ticker=ACME", NewEvidence: 0},
		},
	}
}

// exerciseLedgerShow checks `ledger show` against the store storeArgs
// select, which holds the sample run for tenant acme.
func exerciseLedgerShow(t *testing.T, want ledgertest.ExportWant, storeArgs ...string) {
	t.Helper()
	show := func(args ...string) (int, string, string) {
		return runCLI(t, append(append([]string{"ledger", "show"}, args...), storeArgs...)...)
	}
	code, out, errOut := show(cliRunID, "--tenant", "acme", "--format", "json")
	if code != 0 {
		t.Fatalf("ledger show --format json exited %d: %s", code, errOut)
	}
	ledgertest.CheckExport(t, []byte(out), want)

	code, out, errOut = show(cliRunID, "--tenant", "acme")
	if code != 0 {
		t.Fatalf("ledger show exited %d: %s", code, errOut)
	}
	for _, s := range []string{
		"Run run-cli-1 (tenant acme): supported, rules mode",
		"Task: Did ACME's gross margin fall in 2024?",
		"[supported] ACME.margin (ACME FY2024): gross margin and its drivers",
		ledger.EvidenceID(cliDoc, 120, 192) + " passage ACME 10-K FY2024 Item 7 p. 2 [120:192] via c1",
		"GrossMarginPercent = 41.25 pure (FY2024)",
		`"gross margin steel|ticker=ACME": 5 candidates, 0 new evidence (c2)`,
		"tool_call c1 (3ms)",
		"run_finished",
	} {
		if !strings.Contains(out, s) {
			t.Errorf("text report lacks %q:\n%s", s, out)
		}
	}

	// Another tenant's run is not found, exactly like a missing one.
	for _, args := range [][]string{{cliRunID, "--tenant", "other"}, {"no-such-run", "--tenant", "acme"}} {
		code, _, errOut = show(args...)
		if code != 1 || !strings.Contains(errOut, "not found") {
			t.Errorf("ledger show %v exited %d: %s; want 1, not found", args, code, errOut)
		}
	}
}

func TestCLILedgerShowEmbedded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, err := embeddedledger.Open(dir, &embeddedledger.Config{Tenant: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	want := recordSampleRun(t, s)
	exerciseLedgerShow(t, want, "--db", "", "--data-dir", dir)
}

func TestCLILedgerShowPostgres(t *testing.T) {
	t.Parallel()
	pool, schema := pgtest.EmptyPool(t)
	ctx := context.Background()
	if _, err := migrations.Apply(ctx, pool); err != nil {
		t.Fatal(err)
	}
	s, err := pgledger.New(pool, &pgledger.Config{Tenant: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	want := recordSampleRun(t, s)
	u := pgtest.SchemaURL(t, schema)
	exerciseLedgerShow(t, want, "--db", u)
}

func TestCLILedgerUsage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		code int
		want string
	}{
		{nil, 2, "Subcommands:"},
		{[]string{"frobnicate"}, 2, `unknown subcommand "frobnicate"`},
		{[]string{"help"}, 0, "show RUN_ID"},
		{[]string{"show"}, 2, "Usage: research ledger show RUN_ID"},
		{[]string{"show", "--help"}, 0, "-format"},
		{[]string{"show", "r", "s"}, 2, "Usage: research ledger show"},
		{[]string{"show", "r", "--format", "xml", "--data-dir", "DIR", "--db", ""}, 1, "--format"},
		{[]string{"show", "r", "--data-dir", "DIR", "--db", ""}, 1, `run "r" not found for tenant "default"`},
		{[]string{"show", "r", "--tenant", "../x", "--data-dir", "DIR", "--db", ""}, 1, "Config.Tenant"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			args := make([]string, len(tt.args))
			for i, a := range tt.args {
				args[i] = strings.ReplaceAll(a, "DIR", t.TempDir())
			}
			var out, errb bytes.Buffer
			err := runLedger(context.Background(), args, &out, &errb)
			code := 0
			switch {
			case err == nil, errors.Is(err, flag.ErrHelp):
			case errors.Is(err, errUsage):
				code = 2
			default:
				code = 1
				errb.WriteString(err.Error())
			}
			if code != tt.code || !strings.Contains(out.String()+errb.String(), tt.want) {
				t.Fatalf("exit %d, want %d; output lacks %q?\n%s\n%s", code, tt.code, tt.want, out.String(), errb.String())
			}
		})
	}
}
