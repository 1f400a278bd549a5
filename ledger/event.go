package ledger

import (
	"encoding/json"
	"time"
)

// EventKind names what an event records.
type EventKind string

// Event kinds the stores append themselves; callers append their own
// (EventDecision, or any other non-empty kind) with AppendEvent.
const (
	EventRunCreated    EventKind = "run_created"
	EventRunResumed    EventKind = "run_resumed"
	EventRunFinished   EventKind = "run_finished"
	EventPlan          EventKind = "plan"        // requirements added
	EventRequirement   EventKind = "requirement" // a requirement's status or evidence changed
	EventToolCall      EventKind = "tool_call"   // a tool result recorded
	EventContradiction EventKind = "contradiction"
	EventDecision      EventKind = "decision" // for callers: a stop rule fired, a gap recorded, ...
)

// Event is one entry of a run's append-only log.
type Event struct {
	Seq      int64           `json:"seq"` // 1, 2, 3, ... in the order appended; set by the store
	At       time.Time       `json:"at"`  // when it was appended; set by the store
	Kind     EventKind       `json:"kind"`
	Subject  string          `json:"subject,omitempty"`     // a requirement or tool call id
	Duration time.Duration   `json:"duration_ns,omitempty"` // how long the call took, for tool calls
	Message  string          `json:"message,omitempty"`
	Data     json.RawMessage `json:"data,omitempty"` // a JSON value, or nothing
}

// Validate checks an event passed to AppendEvent.
func (e *Event) Validate() error {
	if e.Kind == "" {
		return invalid("event.kind", "empty")
	}
	if e.Duration < 0 {
		return invalid("event.duration", "%v is negative", e.Duration)
	}
	if len(e.Data) > 0 && !json.Valid(e.Data) {
		return invalid("event.data", "not valid JSON")
	}
	e.Duration = e.Duration.Truncate(time.Microsecond) // as Postgres keeps it
	return nil
}
