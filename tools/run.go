package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/ledgerline/research/ledger"
)

// Run runs one tool call against env and records it in the run's ledger.
//
// The arguments are checked first (CheckArgs, then what only the stores
// can tell, such as whose a chunk is). Whatever happens, exactly one
// ledger.ToolResult is recorded for the call: on success with every
// evidence item and fact the call returns, so that only registered
// evidence can be cited; on failure with the call's error and nothing
// else. The record is written even when ctx has ended.
//
// A failed call returns its error (an *ArgError for bad arguments, reach
// it with errors.As) together with an Output whose Text tells a model what
// went wrong and whose Record says what was recorded; a call that failed
// because ctx ended is not recorded at all (no Output), so that resuming the
// run makes it again. When the record
// itself cannot be written, Run returns that error and no Output. A call
// id the run has recorded already is not recorded again (Record.Replayed);
// the output is returned as computed, keeping only what the ledger holds.
func Run(ctx context.Context, env *Env, call Call) (*Output, error) {
	if err := env.validate(); err != nil {
		return nil, err
	}
	started := env.now()
	res, callErr := execute(ctx, env, call)
	if callErr != nil && ctx.Err() != nil {
		// Cut short by the caller (a cancelled or timed-out run): nothing
		// is recorded, so a resumed run makes the call again under the same
		// id instead of replaying a failure.
		return nil, fmt.Errorf("tools: %s call %q: %w", call.Tool, call.ID, callErr)
	}
	finished := env.now()
	if finished.Before(started) {
		finished = started
	}
	tr := &ledger.ToolResult{Call: ledger.ToolCall{
		ID:            call.ID,
		Tool:          call.Tool,
		RequirementID: call.RequirementID,
		Arguments:     recordableArgs(call.Args),
		Started:       started,
		Finished:      finished,
	}}
	if callErr != nil {
		tr.Call.Error = env.describe(callErr)
	} else {
		tr.Evidence = slices.Clone(res.evidence)
		tr.Facts = slices.Clone(res.facts)
		if res.search != nil {
			s := *res.search
			s.Filters = maps.Clone(s.Filters)
			tr.Search = &s
		}
	}
	rec, err := env.Ledger.RecordToolResult(context.WithoutCancel(ctx), env.RunID, tr)
	if err != nil {
		if callErr != nil {
			return nil, fmt.Errorf("tools: %s call %q failed (%v) and could not be recorded: %w", call.Tool, call.ID, callErr, err)
		}
		return nil, fmt.Errorf("tools: %s call %q: recording its result: %w", call.Tool, call.ID, err)
	}
	if callErr != nil {
		return &Output{Record: rec, Text: Shorten(Defuse(env.describe(callErr)), MaxResponse)},
			fmt.Errorf("call %s: %w", call.ID, callErr)
	}
	if rec.Replayed {
		if err := keepRegistered(ctx, env, res); err != nil {
			return nil, fmt.Errorf("tools: %s call %q: %w", call.Tool, call.ID, err)
		}
	}
	return &Output{
		Evidence:       res.evidence,
		Facts:          res.facts,
		Calculation:    res.calc,
		CandidatesSeen: res.candidates,
		Record:         rec,
		Text:           res.render(res),
	}, nil
}

// result is what a tool computed, before it is recorded.
type result struct {
	evidence   []ledger.Evidence
	facts      []ledger.Fact
	search     *ledger.Search
	calc       *Calculation
	candidates int
	chunks     map[string]string    // evidence id -> the chunk a passage came from
	notes      map[string]string    // fact id -> how the response describes it
	render     func(*result) string // the response a model is shown
}

// addEvidence appends e unless the result holds its span already.
func (r *result) addEvidence(e ledger.Evidence, chunk string) {
	e.ID = ledger.EvidenceID(e.DocumentID, e.Start, e.End)
	if chunk != "" {
		if r.chunks == nil {
			r.chunks = map[string]string{}
		}
		if _, ok := r.chunks[e.ID]; !ok {
			r.chunks[e.ID] = chunk
		}
	}
	for _, held := range r.evidence {
		if held.ID == e.ID {
			return
		}
	}
	r.evidence = append(r.evidence, e)
}

// addFact appends f unless the result holds it already.
func (r *result) addFact(f ledger.Fact, note string) {
	f.ID = ledger.FactID(f.EvidenceID, f.Concept, f.Period, f.Unit)
	for _, held := range r.facts {
		if held.ID == f.ID {
			return
		}
	}
	r.facts = append(r.facts, f)
	if r.notes == nil {
		r.notes = map[string]string{}
	}
	r.notes[f.ID] = note
}

// execute checks the arguments and runs the tool; a panic becomes an error.
func execute(ctx context.Context, env *Env, call Call) (res *result, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, fmt.Errorf("tools: %s: internal error: %v", call.Tool, p)
		}
	}()
	parsed, err := checkArgs(call.Tool, call.Args, env.Scope)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("tools: %s: %w", call.Tool, err)
	}
	switch a := parsed.(type) {
	case *SearchArgs:
		return runSearch(ctx, env, a)
	case *ReadChunksArgs:
		return runReadChunks(ctx, env, a)
	case *ReadSurroundingArgs:
		return runReadSurrounding(ctx, env, a)
	case *lookupCall:
		if len(a.Stated) > 0 {
			return runStated(ctx, env, a)
		}
		return runLookup(ctx, env, a)
	default:
		return runCalculate(ctx, env, parsed.(*calculateCall))
	}
}

// recordableArgs returns the arguments as the ledger keeps them: a JSON
// value; arguments that are not valid JSON are kept as a JSON string, so
// the failed call they caused is still recorded with what was sent.
func recordableArgs(args json.RawMessage) json.RawMessage {
	if len(args) == 0 {
		return nil
	}
	if json.Valid(args) {
		return slices.Clone(args)
	}
	b, _ := json.Marshal(string(args))
	return b
}

// keepRegistered drops from a replayed call's result what the ledger does
// not hold (the call was first recorded with other results), so the
// output never offers unregistered evidence.
func keepRegistered(ctx context.Context, env *Env, res *result) error {
	l, err := env.Ledger.Load(context.WithoutCancel(ctx), env.RunID)
	if err != nil {
		return fmt.Errorf("checking a replayed call against the ledger: %w", err)
	}
	evidence := map[string]bool{}
	for _, e := range l.Evidence {
		evidence[e.ID] = true
	}
	facts := map[string]bool{}
	for _, f := range l.Facts {
		facts[f.ID] = true
	}
	res.evidence = slices.DeleteFunc(res.evidence, func(e ledger.Evidence) bool { return !evidence[e.ID] })
	res.facts = slices.DeleteFunc(res.facts, func(f ledger.Fact) bool { return !facts[f.ID] || !evidence[f.EvidenceID] })
	return nil
}
