package ledger

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
)

// Report is a run rendered for export: the JSON shape of `research ledger
// show --format json`. Lists are never null.
type Report struct {
	RunID          string                 `json:"run_id"`
	Tenant         string                 `json:"tenant"`
	Task           string                 `json:"task"` // the question
	Mode           Mode                   `json:"mode"`
	Status         RunStatus              `json:"status"`
	Created        time.Time              `json:"created"`
	Finished       *time.Time             `json:"finished"` // null while running
	CorpusSnapshot string                 `json:"corpus_snapshot"`
	Requirements   map[string]Requirement `json:"requirements"` // by id
	Evidence       []Evidence             `json:"evidence"`
	Facts          []Fact                 `json:"facts"`
	Contradictions []Contradiction        `json:"contradictions"`
	SearchHistory  []Search               `json:"search_history"`
	ToolCalls      []ToolCall             `json:"tool_calls"`
	Events         []Event                `json:"events"`

	order []string // requirement ids in the order planned, for the text form
}

// Loader is what Export needs of a store.
type Loader interface {
	Load(ctx context.Context, runID string) (*RunLedger, error)
}

// Export loads a run from s and renders it; marshal the result with
// encoding/json for the export format.
func Export(ctx context.Context, s Loader, runID string) (*Report, error) {
	l, err := s.Load(ctx, runID)
	if err != nil {
		return nil, err
	}
	return NewReport(l), nil
}

// NewReport renders a loaded run.
func NewReport(l *RunLedger) *Report {
	r := &Report{
		RunID:          l.Run.ID,
		Tenant:         l.Run.Tenant,
		Task:           l.Run.Question,
		Mode:           l.Run.Mode,
		Status:         l.Run.Status,
		Created:        l.Run.Created,
		CorpusSnapshot: l.Run.CorpusSnapshot,
		Requirements:   make(map[string]Requirement, len(l.Requirements)),
		Evidence:       nonNil(l.Evidence),
		Facts:          nonNil(l.Facts),
		Contradictions: nonNil(l.Contradictions),
		SearchHistory:  nonNil(l.Searches),
		ToolCalls:      nonNil(l.ToolCalls),
		Events:         nonNil(l.Events),
	}
	if !l.Run.Finished.IsZero() {
		f := l.Run.Finished
		r.Finished = &f
	}
	for _, q := range l.Requirements {
		q.Evidence = nonNil(q.Evidence)
		r.Requirements[q.ID] = q
		r.order = append(r.order, q.ID)
	}
	for i := range r.Contradictions {
		r.Contradictions[i].EvidenceIDs = nonNil(r.Contradictions[i].EvidenceIDs)
	}
	return r
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteText writes the report for a person to read.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("Run %s (tenant %s): %s, %s mode\n", r.RunID, r.Tenant, r.Status, r.Mode)
	p("Task: %s\n", r.Task)
	p("Corpus snapshot: %s\n", orDash(r.CorpusSnapshot))
	p("Created %s", r.Created.UTC().Format(time.RFC3339))
	if r.Finished != nil {
		p(", finished %s", r.Finished.UTC().Format(time.RFC3339))
	}
	p("\n")

	p("\nRequirements (%d)\n", len(r.Requirements))
	for _, id := range r.order {
		q := r.Requirements[id]
		p("  [%s] %s", q.Status, q.ID)
		if scope := strings.TrimSpace(q.Issuer + " " + q.Period); scope != "" {
			p(" (%s)", scope)
		}
		if q.Description != "" {
			p(": %s", q.Description)
		}
		p("\n")
		if q.CompletionCondition != "" {
			p("      complete when: %s\n", q.CompletionCondition)
		}
		p("      evidence: %s\n", orDash(strings.Join(q.Evidence, ", ")))
	}

	p("\nEvidence (%d)\n", len(r.Evidence))
	for _, e := range r.Evidence {
		var where []string
		for _, s := range []string{e.Ticker, e.Form, e.Period, e.Section} {
			if s != "" {
				where = append(where, s)
			}
		}
		if e.Page > 0 {
			where = append(where, fmt.Sprintf("p. %d", e.Page))
		}
		p("  %s %s %s [%d:%d] via %s\n", e.ID, e.Kind, strings.Join(where, " "), e.Start, e.End, e.ToolCallID)
		p("      %q\n", clip(e.Excerpt, 160))
	}

	p("\nFacts (%d)\n", len(r.Facts))
	for _, f := range r.Facts {
		p("  %s %s = %s %s", f.ID, f.Concept, f.Value.String(), f.Unit)
		if f.Period != "" {
			p(" (%s)", f.Period)
		}
		p(" from %s\n", f.EvidenceID)
	}

	p("\nContradictions (%d)\n", len(r.Contradictions))
	for _, c := range r.Contradictions {
		p("  %s on %s between %s: %s\n", c.ID, c.RequirementID, strings.Join(c.EvidenceIDs, ", "), c.Difference)
	}

	p("\nSearch history (%d)\n", len(r.SearchHistory))
	for i, s := range r.SearchHistory {
		p("  %d. %q: %d candidates, %d new evidence (%s)\n", i+1, s.QueryKey, s.CandidatesSeen, s.NewEvidence, s.ToolCallID)
	}

	p("\nEvents (%d)\n", len(r.Events))
	for _, e := range r.Events {
		p("  %4d %s %s", e.Seq, e.At.UTC().Format("15:04:05.000"), e.Kind)
		if e.Subject != "" {
			p(" %s", e.Subject)
		}
		if e.Duration > 0 {
			p(" (%s)", e.Duration.Round(time.Microsecond))
		}
		if e.Message != "" {
			p(": %s", e.Message)
		}
		p("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// clip shortens s to about n bytes on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }
