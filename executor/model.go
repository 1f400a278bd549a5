package executor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/ledgerline/research/budget"
	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/llm"
)

// Defaults of ModelConfig's token caps.
const (
	defaultPlanTokens   = 8000
	defaultAnswerTokens = 3000
	defaultGradeTokens  = 300
	// synthesisPromptTokens bounds a synthesis prompt: the tools cap the
	// evidence shown at 12,000 characters, and the instructions, question
	// and requirements take the rest.
	synthesisPromptTokens = 8000
)

func (m *ModelConfig) tokens(purpose string) int64 {
	switch purpose {
	case "answer":
		if m.AnswerTokens > 0 {
			return m.AnswerTokens
		}
		return defaultAnswerTokens
	case "grade":
		if m.GradeTokens > 0 {
			return m.GradeTokens
		}
		return defaultGradeTokens
	}
	if m.PlanTokens > 0 {
		return m.PlanTokens
	}
	return defaultPlanTokens
}

// EventModelReply is the ledger event holding a model call's reply; its
// subject is the call's budget key.
const EventModelReply ledger.EventKind = "model_reply"

// budgetedCaller is the llm.Caller planners and synthesizers get: each
// attempt takes a slot of the llm semaphore, reserves its worst case
// (the prompt's estimated tokens and the max_tokens cap) before the call
// and settles the usage the server reports after it. Transient failures
// are retried with backoff; a failed attempt's reservation is released.
type budgetedCaller struct {
	rs      *runState
	purpose string
}

func (rs *runState) caller(purpose string) llm.Caller {
	return &budgetedCaller{rs: rs, purpose: purpose}
}

func (c *budgetedCaller) Call(ctx context.Context, req llm.ChatRequest) (*llm.ChatResponse, error) {
	rs, e := c.rs, c.rs.e
	if req.MaxTokens <= 0 {
		req.MaxTokens = e.cfg.Model.tokens(c.purpose)
	}
	if req.Model == "" {
		req.Model = e.cfg.Model.Model
	}
	var lastErr error
	for attempt := 1; attempt <= e.cfg.Retry.Attempts; attempt++ {
		if c.purpose != "answer" && c.purpose != "grade" && rs.halted() {
			return nil, fmt.Errorf("%w: the run stopped gathering", budget.ErrExhausted)
		}
		rs.mu.Lock()
		rs.seq++
		key := fmt.Sprintf("%s/model/%s/%d", rs.runID, c.purpose, rs.seq)
		recorded, ok := rs.replies[key]
		rs.mu.Unlock()
		if ok {
			// A resumed run: this call was made and paid for before the
			// interruption; its reply is in the ledger.
			rs.progress(ctx, Progress{Kind: "model_call", Node: c.purpose, Message: fmt.Sprintf("%s: reply replayed from the ledger", recorded.Model)})
			return recorded, nil
		}
		baseKey := key
		prompt := llm.EstimateRequestTokens(req)
		amounts, err := budget.ModelReservation(e.cfg.Prices, req.Model, prompt, req.MaxTokens)
		if err != nil && !e.spendLimited(rs) {
			// Without a spend limit an unpriced model is counted, not priced.
			amounts = budget.Amounts{ModelCalls: 1, InputTokens: prompt, OutputTokens: req.MaxTokens}
		} else if err != nil {
			return nil, err
		}
		if c.purpose != "answer" && c.purpose != "grade" && !rs.takeCall() {
			rs.markExhausted(ctx, "calls", fmt.Sprintf("the run's cap of %d calls was reached", rs.req.MaxCalls))
			return nil, fmt.Errorf("%w: the run's call cap was reached", budget.ErrExhausted)
		}
		wait, release, err := e.limiter.acquire(ctx, e.cfg.Tenant, ProviderLLM)
		if err != nil {
			return nil, err
		}
		key, err = rs.reserveFresh(ctx, key, amounts)
		if err != nil {
			release()
			var ex *budget.ExhaustedError
			if errors.As(err, &ex) {
				rs.markExhausted(ctx, string(ex.Dimension), ex.Error())
			}
			return nil, err
		}
		started := time.Now()
		resp, err := e.cfg.Model.Caller.Call(ctx, req)
		took := time.Since(started)
		if err != nil {
			rs.release(ctx, key)
			release()
			lastErr = err
			rs.progress(ctx, Progress{Kind: "model_call", Node: c.purpose, Duration: took, Wait: wait, Message: fmt.Sprintf("%s attempt %d failed: %v", req.Model, attempt, err)})
			if !llm.IsTransient(err) || ctx.Err() != nil {
				return nil, err
			}
			if attempt < e.cfg.Retry.Attempts {
				d := e.cfg.Retry.backoff(attempt, llm.RetryAfterHint(err))
				select {
				case <-time.After(d):
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
			continue
		}
		in := min(resp.Usage.InputTokens, amounts.InputTokens)
		out := min(resp.Usage.OutputTokens, amounts.OutputTokens)
		if in < resp.Usage.InputTokens || out < resp.Usage.OutputTokens {
			rs.note(fmt.Sprintf("%s reported %d/%d tokens, above the %d/%d reserved; settled at the reservation", req.Model, resp.Usage.InputTokens, resp.Usage.OutputTokens, amounts.InputTokens, amounts.OutputTokens))
		}
		used, err := budget.ModelUsage(e.cfg.Prices, req.Model, in, out)
		if err != nil {
			used = budget.Amounts{ModelCalls: 1, InputTokens: in, OutputTokens: out}
		}
		settled, err := e.cfg.Budget.Settle(context.WithoutCancel(ctx), key, used)
		if err != nil {
			release()
			return nil, fmt.Errorf("executor: settle %s: %w", key, err)
		}
		rs.addSettled(settled)
		release()
		// The reply goes to the ledger, so that a resumed run replays it
		// instead of paying for the call again.
		if data, err := json.Marshal(resp); err == nil {
			rs.event(ctx, EventModelReply, baseKey, took, req.Model, data)
		}
		rs.progress(ctx, Progress{Kind: "model_call", Node: c.purpose, Duration: took, Wait: wait,
			Message: fmt.Sprintf("%s: %d tokens in, %d out", req.Model, resp.Usage.InputTokens, resp.Usage.OutputTokens)})
		return resp, nil
	}
	return nil, fmt.Errorf("executor: model call failed after %d attempts: %w", e.cfg.Retry.Attempts, lastErr)
}

func (e *Engine) spendLimited(rs *runState) bool {
	return rs.req.Limits.Limited(budget.SpendUSD)
}

// holdback is what gathering may not use so that synthesis can still run:
// model calls (synthesis and grading in model mode) and a share of the
// wall-clock.
func (rs *runState) holdback(l budget.Limits) (calls int, wall time.Duration) {
	if rs.useModel() {
		calls = 1
		if rs.e.cfg.Model.GraderModel != "" {
			calls = 2
		}
	}
	if l.WallClock > 0 {
		wall = rs.synthesisTimeout()
		if wall > l.WallClock/2 {
			wall = l.WallClock / 2
		}
	}
	return calls, wall
}

// synthesisTimeout bounds synthesis and validation.
func (rs *runState) synthesisTimeout() time.Duration {
	if rs.useModel() {
		return 30 * time.Second
	}
	return 5 * time.Second
}

// reserveSynthesis holds the synthesis (and grading) model calls' budget
// for the whole of gathering, under its own key; the returned function
// releases it just before synthesis reserves for real.
func (rs *runState) reserveSynthesis(ctx context.Context) (func(), error) {
	if !rs.useModel() {
		return func() {}, nil
	}
	e := rs.e
	m := e.cfg.Model
	total, err := budget.ModelReservation(e.cfg.Prices, m.Model, synthesisPromptTokens, m.tokens("answer"))
	if err != nil {
		if e.spendLimited(rs) {
			return nil, err
		}
		total = budget.Amounts{ModelCalls: 1, InputTokens: synthesisPromptTokens, OutputTokens: m.tokens("answer")}
	}
	if m.GraderModel != "" {
		g, err := budget.ModelReservation(e.cfg.Prices, m.GraderModel, synthesisPromptTokens, m.tokens("grade"))
		if err != nil {
			g = budget.Amounts{ModelCalls: 1, InputTokens: synthesisPromptTokens, OutputTokens: m.tokens("grade")}
		}
		total = total.Add(g)
	}
	key := rs.runID + "/holdback"
	if _, err := e.cfg.Budget.Reserve(ctx, key, rs.scopes, total, nil); err != nil {
		var ex *budget.ExhaustedError
		if errors.As(err, &ex) {
			// Not even the answer fits: gather nothing and answer with the
			// rules synthesizer.
			rs.markExhausted(ctx, string(ex.Dimension), "the budget cannot hold the synthesis call: "+ex.Error())
			return func() {}, nil
		}
		return nil, fmt.Errorf("executor: hold back the synthesis budget: %w", err)
	}
	return func() { rs.release(ctx, key) }, nil
}

// reserveFresh reserves amounts under key, or, when a resumed run finds
// key's reservation closed already (settled before a crash, or released
// after a failed attempt, or held for a different prompt), under key#2,
// key#3, ...: the call is made again
// and must be paid for again, once. A reservation still open under the key
// is taken over as it is. It returns the key it reserved under.
func (rs *runState) reserveFresh(ctx context.Context, key string, amounts budget.Amounts) (string, error) {
	for i := 1; ; i++ {
		k := key
		if i > 1 {
			k = fmt.Sprintf("%s#%d", key, i)
		}
		res, err := rs.e.cfg.Budget.Reserve(ctx, k, rs.scopes, amounts, nil)
		if errors.Is(err, budget.ErrKeyReused) {
			continue // the resumed call's prompt differs from the first one's
		}
		if err != nil {
			return "", err
		}
		if !res.Replayed || res.State == budget.StateReserved {
			return k, nil
		}
	}
}

// release gives back a reservation that will not be settled. A release
// that fails leaves the hold to expire with its TTL (the budget's sweep
// returns it); the run says so rather than failing.
func (rs *runState) release(ctx context.Context, key string) {
	if _, err := rs.e.cfg.Budget.Release(context.WithoutCancel(ctx), key); err != nil {
		rs.note(fmt.Sprintf("could not release the reservation %s (%v); it is returned when it expires", key, err))
	}
}
