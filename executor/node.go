package executor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/ledgerline/research/budget"
	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/planner"
	"github.com/ledgerline/research/tools"
	"github.com/ledgerline/research/validator"
)

// errStopped is a node's error when the run stopped gathering before or
// while it ran (budget exhausted, gathering deadline).
var errStopped = errors.New("executor: the run stopped gathering")

// halted reports whether gathering must stop: a budget dimension ran out.
func (rs *runState) halted() bool { return rs.exhaustedDim() != "" }

func (rs *runState) exhaustedDim() string {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.exhausted
}

// markExhausted records the first dimension that ran out.
func (rs *runState) markExhausted(ctx context.Context, dim, detail string) {
	rs.mu.Lock()
	first := rs.exhausted == ""
	if first {
		rs.exhausted = dim
	}
	rs.mu.Unlock()
	if first {
		msg := "budget exhausted: " + detail + "; gathering stopped, the answer covers what was gathered"
		rs.note(msg)
		rs.event(context.WithoutCancel(ctx), ledger.EventDecision, "", 0, msg, nil)
	}
}

// takeCall counts a call against --max-calls; false when the cap is
// reached.
func (rs *runState) takeCall() bool {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.callCap > 0 && rs.calls >= rs.callCap {
		return false
	}
	rs.calls++
	return true
}

// skipNode records a node that will not run and a gap for what it served.
func (rs *runState) skipNode(n planner.Node, reason string) {
	ctx := context.Background()
	rs.progress(ctx, Progress{Kind: "node_skipped", Node: n.ID, Tool: n.Tool, Message: reason})
	for _, id := range n.Serves {
		if r, ok := rs.reqs[id]; ok {
			rs.gap(validator.Gap{RequirementID: id, Issuer: r.Issuer, What: r.Need, Why: fmt.Sprintf("node %s (%s) did not run: %s", n.ID, n.Tool, reason)})
		}
	}
}

// runNode runs one tool node: it waits for a slot of the tenant's and the
// provider's semaphores, reserves the call's budget, runs the tool,
// settles what it used and links the evidence to the requirements the
// node serves. Transient failures are retried with backoff, each attempt
// reserving anew; a source that stays down leaves a gap.
func (rs *runState) runNode(ctx context.Context, n planner.Node) error {
	e := rs.e
	args := n.Args
	if n.Tool == tools.Calculate {
		var err error
		if args, err = rs.rebind(ctx, args); err != nil {
			return err
		}
	}
	reqID := ""
	if len(n.Serves) > 0 {
		reqID = n.Serves[0]
	}
	kind, candidates, rerr := tools.Reservation(n.Tool, args, rs.env.Scope)
	var lastErr error
	seq := 0 // call ids of this node: n, n~2, n~3, ...
	for attempt := 1; attempt <= e.cfg.Retry.Attempts; attempt++ {
		if ctx.Err() != nil {
			return rs.stop(ctx, n, ctx.Err())
		}
		if rs.halted() {
			return errStopped
		}
		// A resumed run skips the ids of attempts that failed before: a
		// recorded failure would only be replayed.
		var callID string
		for {
			seq++
			callID = n.ID
			if seq > 1 {
				callID = fmt.Sprintf("%s~%d", n.ID, seq)
			}
			if !rs.failedBefore[callID] {
				break
			}
		}
		call := tools.Call{ID: callID, Tool: n.Tool, Args: args, RequirementID: reqID}
		if rerr != nil {
			// Invalid arguments: the tool records the refused call; it
			// costs nothing and is not retried.
			_, err := e.cfg.Tool(ctx, rs.env, call)
			return rs.failed(ctx, n, cmpErr(err, rerr))
		}
		if !rs.takeCall() {
			rs.markExhausted(ctx, "calls", fmt.Sprintf("the run's cap of %d calls was reached", rs.req.MaxCalls))
			return errStopped
		}
		wait, release, err := e.limiter.acquire(ctx, e.cfg.Tenant, providerOf(n.Tool))
		if err != nil {
			return rs.stop(ctx, n, err)
		}
		key := rs.runID + "/" + callID
		amounts, err := budget.ToolReservation(kind, candidates)
		if err != nil {
			release()
			return rs.failed(ctx, n, err)
		}
		if _, err := e.cfg.Budget.Reserve(ctx, key, rs.scopes, amounts, nil); err != nil {
			release()
			var ex *budget.ExhaustedError
			if errors.As(err, &ex) {
				rs.markExhausted(ctx, string(ex.Dimension), ex.Error())
				return errStopped
			}
			return rs.stop(ctx, n, err)
		}
		rs.progress(ctx, Progress{Kind: "node_started", Node: n.ID, Tool: n.Tool, Wait: wait})
		started := time.Now()
		out, err := e.cfg.Tool(ctx, rs.env, call)
		took := time.Since(started)
		used := budget.Amounts{}
		if out != nil {
			used, _ = budget.ToolReservation(kind, min(int64(out.CandidatesSeen), candidates))
		} else {
			used, _ = budget.ToolReservation(kind, 0)
		}
		settled, serr := e.cfg.Budget.Settle(context.WithoutCancel(ctx), key, used)
		if serr != nil {
			release()
			return &fatalError{fmt.Errorf("executor: settle %s: %w", key, serr)}
		}
		rs.addSettled(settled)
		release()
		if err == nil {
			rs.finished(ctx, n, out, took)
			return nil
		}
		lastErr = err
		var ae *tools.ArgError
		if errors.As(err, &ae) || errors.Is(err, tools.ErrUnknownTool) {
			return rs.failed(ctx, n, err)
		}
		if ctx.Err() != nil {
			return rs.stop(ctx, n, ctx.Err())
		}
		if attempt < e.cfg.Retry.Attempts {
			d := e.cfg.Retry.backoff(attempt, 0)
			rs.progress(ctx, Progress{Kind: "retry", Node: n.ID, Tool: n.Tool, Message: fmt.Sprintf("attempt %d failed (%v); retrying in %s", attempt, err, d)})
			select {
			case <-time.After(d):
			case <-ctx.Done():
				return rs.stop(ctx, n, ctx.Err())
			}
		}
	}
	return rs.failed(ctx, n, fmt.Errorf("the source stayed down after %d attempts: %w", e.cfg.Retry.Attempts, lastErr))
}

func cmpErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// stop handles a node cut short by the run's context: past the gathering
// deadline that is the wall-clock budget running out.
func (rs *runState) stop(ctx context.Context, n planner.Node, err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		rs.markExhausted(ctx, "wall_clock", "the run's wall-clock budget for gathering ran out")
		return errStopped
	}
	return rs.failed(ctx, n, err)
}

// failed records a node's failure as a gap for each requirement it serves.
func (rs *runState) failed(ctx context.Context, n planner.Node, err error) error {
	rs.mu.Lock()
	rs.failedNodes[n.ID] = err.Error()
	rs.mu.Unlock()
	rs.progress(context.WithoutCancel(ctx), Progress{Kind: "node_failed", Node: n.ID, Tool: n.Tool, Message: err.Error()})
	for _, id := range n.Serves {
		if r, ok := rs.reqs[id]; ok {
			rs.gap(validator.Gap{RequirementID: id, Issuer: r.Issuer, What: r.Need, Why: fmt.Sprintf("%s failed: %v", n.Tool, err)})
		}
	}
	return err
}

// finished links a node's evidence to the requirements it serves and keeps
// what the stop rule and the synthesizer need.
func (rs *runState) finished(ctx context.Context, n planner.Node, out *tools.Output, took time.Duration) {
	ids := make([]string, 0, len(out.Evidence))
	for _, ev := range out.Evidence {
		ids = append(ids, ev.ID)
	}
	newEv := 0
	if out.Record != nil {
		newEv = out.Record.NewEvidence
	}
	rs.mu.Lock()
	for _, id := range n.Serves {
		// A replayed search (a resumed run) tells nothing new about
		// whether searching helps; only searches made now count.
		if n.Tool == tools.SearchFilings && (out.Record == nil || !out.Record.Replayed) {
			rs.searchNew[id] = append(rs.searchNew[id], newEv)
		}
		if out.Calculation != nil {
			if r, ok := rs.reqs[id]; ok && r.Completion.Kind == planner.CondCalculation {
				rs.calcs[id] = out.Calculation
			}
		}
	}
	rs.mu.Unlock()
	if len(ids) > 0 {
		for _, id := range n.Serves {
			if _, ok := rs.reqs[id]; !ok {
				continue
			}
			if err := rs.e.cfg.Ledger.UpdateRequirement(ctx, rs.runID, id, ledger.RequirementPending, ids); err != nil {
				rs.note(fmt.Sprintf("could not link evidence of %s to %s: %v", n.ID, id, err))
			}
		}
	}
	if out.Calculation != nil {
		data, _ := json.Marshal(out.Calculation)
		rs.event(ctx, "calculation", n.ID, 0, out.Calculation.Expression+" = "+out.Calculation.Result.String(), data)
	}
	rs.progress(ctx, Progress{Kind: "node_finished", Node: n.ID, Tool: n.Tool, Duration: took, Results: len(out.Evidence), New: newEv})
}

// rebind points a calculation's fact references at the concepts the run's
// lookups actually found: issuers tag one metric with different concepts
// (revenue is us-gaap:Revenues at NVIDIA and
// RevenueFromContractWithCustomerExcludingAssessedTax at Apple), and the
// plan was written before the lookups ran.
func (rs *runState) rebind(ctx context.Context, args json.RawMessage) (json.RawMessage, error) {
	var ca tools.CalculateArgs
	if err := json.Unmarshal(args, &ca); err != nil {
		return args, nil // the tool reports the bad arguments
	}
	led, err := rs.e.cfg.Ledger.Load(ctx, rs.runID)
	if err != nil {
		return nil, &fatalError{fmt.Errorf("executor: load the run's ledger: %w", err)}
	}
	tickerOf := map[string]string{}
	for _, ev := range led.Evidence {
		tickerOf[ev.ID] = ev.Ticker
	}
	has := map[string]bool{} // ticker|concept
	for _, f := range led.Facts {
		has[tickerOf[f.EvidenceID]+"|"+f.Concept] = true
	}
	for name, ref := range ca.Facts {
		concept := tools.QualifyConcept(ref.Concept)
		if has[ref.Ticker+"|"+concept] {
			continue
		}
		for _, m := range tools.Metrics {
			if !containsString(m.Concepts, concept) {
				continue
			}
			for _, c := range m.Concepts {
				if has[ref.Ticker+"|"+c] {
					ref.Concept = c
					ca.Facts[name] = ref
					break
				}
			}
		}
	}
	out, err := json.Marshal(ca)
	if err != nil {
		return args, nil
	}
	return out, nil
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
