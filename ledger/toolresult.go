package ledger

import (
	"encoding/json"
	"fmt"
	"time"
)

// ToolCall is one call of a tool during a run.
type ToolCall struct {
	// ID identifies the call within the run. Give a replayed call (after a
	// resume) the same id and recording it again changes nothing.
	ID            string          `json:"id"`
	Tool          string          `json:"tool"`                  // "search_filings", "read_chunks", ...
	RequirementID string          `json:"requirement,omitempty"` // the requirement it served; its evidence is linked to it
	Arguments     json.RawMessage `json:"arguments,omitempty"`   // a JSON value, or nothing
	Started       time.Time       `json:"started"`
	Finished      time.Time       `json:"finished"`
	Error         string          `json:"error,omitempty"` // why the call failed; "" when it did not
}

// Duration is how long the call took; 0 when its times are unknown.
func (c *ToolCall) Duration() time.Duration {
	if c.Started.IsZero() || c.Finished.Before(c.Started) {
		return 0
	}
	return c.Finished.Sub(c.Started)
}

// ToolResult is what one tool call returned, recorded in one transaction.
type ToolResult struct {
	Call     ToolCall
	Evidence []Evidence // spans found, in the tool's order
	Facts    []Fact     // facts read; each EvidenceID names evidence of this result or one held
	Search   *Search    // the search the call ran; nil when it ran none
}

// Validate checks a tool result and fills in the ids of its evidence and
// facts, the tool call id of each and its search's query key.
func (r *ToolResult) Validate() error {
	if err := checkKey("call.id", r.Call.ID); err != nil {
		return err
	}
	if r.Call.Tool == "" {
		return invalid("call.tool", "empty")
	}
	if r.Call.RequirementID != "" {
		if err := checkKey("call.requirement", r.Call.RequirementID); err != nil {
			return err
		}
	}
	if len(r.Call.Arguments) > 0 && !json.Valid(r.Call.Arguments) {
		return invalid("call.arguments", "not valid JSON")
	}
	if !r.Call.Started.IsZero() && r.Call.Finished.Before(r.Call.Started) {
		return invalid("call.finished", "before started")
	}
	// Kept to the microsecond, as Postgres keeps them.
	r.Call.Started = micro(r.Call.Started)
	r.Call.Finished = micro(r.Call.Finished)
	for i := range r.Evidence {
		if err := r.Evidence[i].Validate(fmt.Sprintf("evidence[%d]", i)); err != nil {
			return err
		}
		r.Evidence[i].ToolCallID = r.Call.ID
	}
	for i := range r.Facts {
		if err := r.Facts[i].Validate(fmt.Sprintf("facts[%d]", i)); err != nil {
			return err
		}
		r.Facts[i].ToolCallID = r.Call.ID
	}
	if s := r.Search; s != nil {
		if s.CandidatesSeen < 0 {
			return invalid("search.candidates_seen", "%d is negative", s.CandidatesSeen)
		}
		s.ToolCallID = r.Call.ID
		s.QueryKey = QueryKey(s.Query, s.Filters)
	}
	return nil
}

// RecordResult says what RecordToolResult did.
type RecordResult struct {
	Evidence    []EvidenceOutcome // one per evidence item, in order
	NewEvidence int               // items with OutcomeNew: what the stop rule counts
	NewFacts    int               // facts not held before
	Replayed    bool              // the call id was recorded already; nothing changed
}

// ReplayResult is the RecordResult of a call recorded already: every
// evidence item a duplicate, nothing new.
func ReplayResult(res *ToolResult) *RecordResult {
	out := &RecordResult{Replayed: true, Evidence: make([]EvidenceOutcome, len(res.Evidence))}
	for i, e := range res.Evidence {
		out.Evidence[i] = EvidenceOutcome{ID: e.ID, Outcome: OutcomeDuplicate}
	}
	return out
}

// Classify decides the outcome of each evidence item of a validated
// result against the spans held (held(documentID) lists the run's evidence
// in that document) and returns the items to record, each once. Items
// earlier in the same result count as held for later ones. Both stores use
// it, so they agree on what is new.
func Classify(items []Evidence, held func(documentID string) []Evidence) (outcomes []EvidenceOutcome, fresh []Evidence) {
	outcomes = make([]EvidenceOutcome, len(items))
	added := map[string][]Evidence{}
	for i, e := range items {
		o := EvidenceOutcome{ID: e.ID, Outcome: OutcomeNew}
		check := func(h *Evidence) bool {
			if h.ID == e.ID {
				o.Outcome, o.Within = OutcomeDuplicate, ""
				return true
			}
			if o.Within == "" && h.Contains(e.DocumentID, e.Start, e.End) {
				o.Outcome, o.Within = OutcomeContained, h.ID
			}
			return false
		}
	scan:
		for _, list := range [][]Evidence{held(e.DocumentID), added[e.DocumentID]} {
			for j := range list {
				if check(&list[j]) {
					break scan
				}
			}
		}
		outcomes[i] = o
		if o.Outcome != OutcomeDuplicate {
			fresh = append(fresh, e)
			added[e.DocumentID] = append(added[e.DocumentID], e)
		}
	}
	return outcomes, fresh
}

// Count returns how many outcomes are OutcomeNew.
func Count(outcomes []EvidenceOutcome, o Outcome) int {
	n := 0
	for _, x := range outcomes {
		if x.Outcome == o {
			n++
		}
	}
	return n
}

// ToolCallMessage is the message of the tool_call event both stores append.
func ToolCallMessage(res *ToolResult, rec *RecordResult) string {
	msg := fmt.Sprintf("%s: %d new, %d duplicate, %d contained evidence; %d new facts",
		res.Call.Tool, Count(rec.Evidence, OutcomeNew), Count(rec.Evidence, OutcomeDuplicate),
		Count(rec.Evidence, OutcomeContained), rec.NewFacts)
	if res.Call.Error != "" {
		msg += "; error: " + res.Call.Error
	}
	return msg
}

func micro(t time.Time) time.Time {
	if t.IsZero() {
		return t
	}
	return t.UTC().Truncate(time.Microsecond)
}
