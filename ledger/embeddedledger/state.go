package embeddedledger

import (
	"fmt"
	"slices"
	"time"

	"github.com/ledgerline/research/ledger"
)

// record is one line of a run file: what one write recorded.
type record struct {
	Run           *ledger.Run           `json:"run,omitempty"`    // the run's creation
	Finish        *finish               `json:"finish,omitempty"` // a terminal status
	Requirements  []ledger.Requirement  `json:"requirements,omitempty"`
	Update        *update               `json:"update,omitempty"` // a requirement's status and links
	Call          *ledger.ToolCall      `json:"call,omitempty"`
	Evidence      []ledger.Evidence     `json:"evidence,omitempty"` // new rows only
	Link          *update               `json:"link,omitempty"`     // a tool result's evidence linked to its requirement
	Facts         []ledger.Fact         `json:"facts,omitempty"`    // new rows only
	Search        *ledger.Search        `json:"search,omitempty"`
	Contradiction *ledger.Contradiction `json:"contradiction,omitempty"`
	Events        []ledger.Event        `json:"events,omitempty"`
}

type finish struct {
	Status ledger.RunStatus `json:"status"`
	At     time.Time        `json:"at"`
}

type update struct {
	Requirement string                   `json:"requirement"`
	Status      ledger.RequirementStatus `json:"status,omitempty"` // "" leaves it
	Evidence    []string                 `json:"evidence,omitempty"`
}

// state is a run as its file says, built by replaying records.
type state struct {
	run            *ledger.Run
	reqs           []ledger.Requirement
	reqIdx         map[string]int
	links          map[string]map[string]bool // requirement id → evidence ids linked
	calls          []ledger.ToolCall
	callIdx        map[string]bool
	evidence       []ledger.Evidence
	evIdx          map[string]int
	byDoc          map[string][]ledger.Evidence
	facts          []ledger.Fact
	factIdx        map[string]bool
	contradictions []ledger.Contradiction
	conIdx         map[string]bool
	searches       []ledger.Search
	events         []ledger.Event
}

func newState() *state {
	return &state{
		reqIdx:  map[string]int{},
		links:   map[string]map[string]bool{},
		callIdx: map[string]bool{},
		evIdx:   map[string]int{},
		byDoc:   map[string][]ledger.Evidence{},
		factIdx: map[string]bool{},
		conIdx:  map[string]bool{},
	}
}

// apply replays one record. Records are built from a state, so a record
// that does not fit the state means the file was damaged or edited.
func (st *state) apply(r *record) error {
	if r.Run != nil {
		if st.run != nil {
			return fmt.Errorf("run %s created twice", r.Run.ID)
		}
		run := *r.Run
		st.run = &run
	}
	if st.run == nil {
		return fmt.Errorf("a record before the run's creation")
	}
	if r.Finish != nil {
		st.run.Status, st.run.Finished = r.Finish.Status, r.Finish.At
	}
	for _, q := range r.Requirements {
		if _, ok := st.reqIdx[q.ID]; ok {
			return fmt.Errorf("requirement %s added twice", q.ID)
		}
		q.Evidence = nil
		st.reqIdx[q.ID] = len(st.reqs)
		st.reqs = append(st.reqs, q)
	}
	if r.Call != nil {
		if st.callIdx[r.Call.ID] {
			return fmt.Errorf("tool call %s recorded twice", r.Call.ID)
		}
		st.callIdx[r.Call.ID] = true
		st.calls = append(st.calls, *r.Call)
	}
	for _, e := range r.Evidence {
		if _, ok := st.evIdx[e.ID]; ok {
			return fmt.Errorf("evidence %s recorded twice", e.ID)
		}
		st.evIdx[e.ID] = len(st.evidence)
		st.evidence = append(st.evidence, e)
		st.byDoc[e.DocumentID] = append(st.byDoc[e.DocumentID], e)
	}
	for _, u := range []*update{r.Update, r.Link} {
		if u == nil {
			continue
		}
		i, ok := st.reqIdx[u.Requirement]
		if !ok {
			return fmt.Errorf("requirement %s: %w", u.Requirement, ledger.ErrNotFound)
		}
		if u.Status != "" {
			st.reqs[i].Status = u.Status
		}
		for _, id := range u.Evidence {
			if _, ok := st.evIdx[id]; !ok {
				return fmt.Errorf("evidence %s: %w", id, ledger.ErrNotFound)
			}
			set := st.links[u.Requirement]
			if set == nil {
				set = map[string]bool{}
				st.links[u.Requirement] = set
			}
			if !set[id] {
				set[id] = true
				st.reqs[i].Evidence = append(st.reqs[i].Evidence, id)
			}
		}
	}
	for _, f := range r.Facts {
		if st.factIdx[f.ID] {
			return fmt.Errorf("fact %s recorded twice", f.ID)
		}
		if _, ok := st.evIdx[f.EvidenceID]; !ok {
			return fmt.Errorf("fact %s: evidence %s: %w", f.ID, f.EvidenceID, ledger.ErrNotFound)
		}
		st.factIdx[f.ID] = true
		st.facts = append(st.facts, f)
	}
	if r.Search != nil {
		st.searches = append(st.searches, *r.Search)
	}
	if c := r.Contradiction; c != nil {
		if st.conIdx[c.ID] {
			return fmt.Errorf("contradiction %s recorded twice", c.ID)
		}
		st.conIdx[c.ID] = true
		st.contradictions = append(st.contradictions, *c)
	}
	for _, e := range r.Events {
		if want := int64(len(st.events)) + 1; e.Seq != want {
			return fmt.Errorf("event %d where %d was due", e.Seq, want)
		}
		st.events = append(st.events, e)
	}
	return nil
}

// nextEvent numbers an event to append after the state's and those
// already in rec.
func (st *state) nextEvent(rec *record, e ledger.Event) ledger.Event {
	e.Seq = int64(len(st.events)+len(rec.Events)) + 1
	rec.Events = append(rec.Events, e)
	return e
}

// ledger copies the state out.
func (st *state) ledger() *ledger.RunLedger {
	l := &ledger.RunLedger{
		Run:            *st.run,
		Requirements:   slices.Clone(st.reqs),
		ToolCalls:      slices.Clone(st.calls),
		Evidence:       slices.Clone(st.evidence),
		Facts:          slices.Clone(st.facts),
		Contradictions: slices.Clone(st.contradictions),
		Searches:       slices.Clone(st.searches),
		Events:         slices.Clone(st.events),
	}
	for i := range l.Requirements {
		l.Requirements[i].Evidence = slices.Clone(l.Requirements[i].Evidence)
	}
	for i := range l.Contradictions {
		l.Contradictions[i].EvidenceIDs = slices.Clone(l.Contradictions[i].EvidenceIDs)
	}
	return l
}
