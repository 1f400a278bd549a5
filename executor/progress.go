package executor

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/ledgerline/research/budget"
)

// Progress is one step of a run as it happens: what the CLI prints to
// stderr and what the ledger's event log keeps.
type Progress struct {
	At       time.Time      `json:"at"`
	RunID    string         `json:"run_id"`
	Kind     string         `json:"kind"` // "route", "plan", "node_started", "node_finished", "node_skipped", "model_call", "replan", "decision", "synthesis", "finished"
	Node     string         `json:"node,omitempty"`
	Tool     string         `json:"tool,omitempty"`
	Duration time.Duration  `json:"duration_ns,omitempty"`
	Results  int            `json:"results,omitempty"` // evidence items a tool returned
	New      int            `json:"new_evidence,omitempty"`
	Wait     time.Duration  `json:"wait_ns,omitempty"` // time spent waiting for a semaphore
	Message  string         `json:"message,omitempty"`
	Used     budget.Amounts `json:"-"` // the run's settled usage after the step
}

// Line formats p as a timestamped line for a terminal.
func (p Progress) Line() string {
	var b strings.Builder
	b.WriteString(p.At.Format("15:04:05.000"))
	b.WriteString(" ")
	b.WriteString(p.Kind)
	if p.Node != "" {
		fmt.Fprintf(&b, " %s", p.Node)
	}
	if p.Tool != "" {
		fmt.Fprintf(&b, " %s", p.Tool)
	}
	if p.Duration > 0 {
		fmt.Fprintf(&b, " in %s", p.Duration.Round(time.Millisecond/10))
	}
	if p.Kind == "node_finished" {
		fmt.Fprintf(&b, ": %d results, %d new", p.Results, p.New)
	}
	if p.Wait >= time.Millisecond {
		fmt.Fprintf(&b, " (waited %s)", p.Wait.Round(time.Millisecond))
	}
	if p.Message != "" {
		b.WriteString(": ")
		b.WriteString(p.Message)
	}
	if !p.Used.IsZero() {
		b.WriteString(" [used ")
		b.WriteString(p.Used.String())
		b.WriteString("]")
	}
	return b.String()
}

// data is the event's JSON payload in the ledger.
func (p Progress) data() json.RawMessage {
	b, err := json.Marshal(p)
	if err != nil {
		return nil
	}
	return b
}
