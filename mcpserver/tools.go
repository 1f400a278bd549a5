package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/budget"
	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/engine"
	"github.com/ledgerline/research/executor"
	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/tools"
)

// SearchArgs are search_filings' arguments.
type SearchArgs struct {
	Query      string   `json:"query" jsonschema:"the words to search the filings for (at most 500 characters)"`
	Tickers    []string `json:"tickers,omitempty" jsonschema:"ticker symbols of the issuers to search, as the research://corpus resource lists them; empty means every issuer in the corpus"`
	Form       string   `json:"form,omitempty" jsonschema:"10-K or 10-Q; empty means both"`
	FiscalYear int      `json:"fiscal_year,omitempty" jsonschema:"the fiscal year the filings report on, e.g. 2024; 0 means any"`
	Section    string   `json:"section,omitempty" jsonschema:"an item of the filing: 7, 1A, \"Item 7\"; empty means any"`
	K          int      `json:"k,omitempty" jsonschema:"results to return, 1 to 20; 0 means 6"`
}

// LookupArgs are lookup_fact's arguments.
type LookupArgs struct {
	Ticker     string `json:"ticker" jsonschema:"the issuer's ticker symbol, as the research://corpus resource lists it"`
	Metric     string `json:"metric,omitempty" jsonschema:"a metric label such as \"revenue\", \"gross margin\", \"cost of revenue\"; or give concept"`
	Concept    string `json:"concept,omitempty" jsonschema:"an XBRL concept such as us-gaap:Revenues, or a figure key; or give metric"`
	Period     string `json:"period,omitempty" jsonschema:"a fiscal year such as FY2024; empty means the latest annual period"`
	YearToDate bool   `json:"year_to_date,omitempty" jsonschema:"for a quarterly report, its year-to-date column rather than the quarter"`
	Quarter    bool   `json:"quarter,omitempty" jsonschema:"for a quarterly report, its quarter's own column only: nothing when the report prints the figure for its year to date alone"`
	// FiscalQuarter reads one quarter of period's fiscal year from an
	// annual report's table of quarters.
	FiscalQuarter int `json:"fiscal_quarter,omitempty" jsonschema:"1 to 4: that quarter of period's fiscal year, from an annual report's table of quarters (Financial Information by Quarter); needs period"`
}

// ReadArgs are read_passage's arguments.
type ReadArgs struct {
	ID     string `json:"id" jsonschema:"a chunk id (from search_filings) or an evidence id (E followed by 12 hex digits)"`
	RunID  string `json:"run_id,omitempty" jsonschema:"the run whose ledger holds the evidence id; empty means this session's run"`
	Before *int   `json:"before,omitempty" jsonschema:"chunks to read before it, 0 to 3; default 1"`
	After  *int   `json:"after,omitempty" jsonschema:"chunks to read after it, 0 to 3; default 1"`
}

// AskArgs are ask's arguments.
type AskArgs struct {
	Question       string   `json:"question" jsonschema:"the research question, 3 to 2000 characters"`
	Tickers        []string `json:"tickers,omitempty" jsonschema:"issuers to include besides those the question names"`
	BudgetUSD      *float64 `json:"budget_usd,omitempty" jsonschema:"the run's spend limit in USD for model calls; default 0.50, capped by the server"`
	MaxCalls       int      `json:"max_calls,omitempty" jsonschema:"model and tool calls in all; 0 means only the per-kind limits"`
	TimeoutSeconds int      `json:"timeout_seconds,omitempty" jsonschema:"the run's wall-clock budget in seconds; default 60, capped by the server"`
	Mode           string   `json:"mode,omitempty" jsonschema:"auto (default), rules, baseline or model"`
}

// LedgerArgs are ledger_show's arguments.
type LedgerArgs struct {
	RunID string `json:"run_id" jsonschema:"the run id, as ask or a tool result reported it"`
}

// Passage is one piece of evidence a tool returned, as structured output.
type Passage struct {
	EvidenceID string `json:"evidence_id"`
	Kind       string `json:"kind"`
	Ticker     string `json:"ticker"`
	Form       string `json:"form"`
	Period     string `json:"period"`
	Section    string `json:"section,omitempty"`
	Page       int    `json:"page,omitempty"`
	Excerpt    string `json:"excerpt"` // at most tools.MaxExcerpt characters
}

// FactOut is one fact lookup_fact returned.
type FactOut struct {
	FactID     string `json:"fact_id"`
	EvidenceID string `json:"evidence_id"`
	Concept    string `json:"concept"`
	Value      string `json:"value"` // exact decimal
	Unit       string `json:"unit"`
	Period     string `json:"period"`
}

// ToolResult is the structured output of search_filings, lookup_fact and
// read_passage: the session run that recorded the call and what it
// returned (the text content holds the same, bounded, for a model).
type ToolResult struct {
	RunID    string    `json:"run_id"`
	Cited    *Passage  `json:"cited,omitempty"` // read_passage of an evidence id: that evidence
	Passages []Passage `json:"passages"`
	Facts    []FactOut `json:"facts,omitempty"`
}

func (s *Server) addTools() {
	ro := &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(false)}
	mcp.AddTool(s.mcp, &mcp.Tool{
		Name: "search_filings",
		Description: "Hybrid (full-text and vector) search over the ingested SEC filings. Returns passages with " +
			"evidence ids and chunk ids (for read_passage), recorded in this session's run ledger.",
		Annotations: ro,
	}, guard(s, s.search))
	mcp.AddTool(s.mcp, &mcp.Tool{
		Name: "lookup_fact",
		Description: "Look up a figure an issuer's filing tags or tabulates (revenue, gross margin, an XBRL concept) " +
			"for a fiscal year, with the span that displays it.",
		Annotations: ro,
	}, guard(s, s.lookup))
	mcp.AddTool(s.mcp, &mcp.Tool{
		Name: "read_passage",
		Description: "Read a chunk, or the passage of an evidence id, with the chunks around it in the same filing " +
			"(at most 3 before and 3 after).",
		Annotations: ro,
	}, guard(s, s.read))
	mcp.AddTool(s.mcp, &mcp.Tool{
		Name: "ask",
		Description: "Research a question with the full engine: plan evidence requirements, gather cited evidence " +
			"under the budget, validate, answer. Returns the JSON result: status (supported, partial, " +
			"insufficient_evidence, conflicting_evidence, budget_exhausted, refused), answer with [n] citations, " +
			"figures, gaps, budget used and run_id.",
		Annotations: &mcp.ToolAnnotations{OpenWorldHint: new(false)},
	}, guard(s, s.ask))
	mcp.AddTool(s.mcp, &mcp.Tool{
		Name: "ledger_show",
		Description: "A run's evidence ledger as JSON: requirements, evidence, facts, contradictions, search " +
			"history, tool calls and events.",
		Annotations: ro,
	}, guard(s, s.ledgerShow))
}

// guard turns a panic into a tool error and keeps internal errors'
// details in the log: a client reads argument and scope errors as they
// are, anything else as "internal error". A call is cancelled when its
// session ends.
func guard[In, Out any](s *Server, h mcp.ToolHandlerFor[In, Out]) mcp.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, req *mcp.CallToolRequest, in In) (res *mcp.CallToolResult, out Out, err error) {
		ctx, end, err := s.begin(ctx)
		if err != nil {
			return nil, out, s.public(req.Params.Name, err)
		}
		defer end()
		defer func() {
			if p := recover(); p != nil {
				s.cfg.Logger.Error("mcp tool panicked", "tool", req.Params.Name, "panic", p, "stack", string(debug.Stack()))
				var zero Out
				res, out, err = nil, zero, fmt.Errorf("%s: internal error", req.Params.Name)
			}
		}()
		res, out, err = h(ctx, req, in)
		if err != nil {
			err = s.public(req.Params.Name, err)
		}
		return res, out, err
	}
}

// clientError is an error whose message is meant for the client.
type clientError struct{ msg string }

func (e *clientError) Error() string { return e.msg }

func errorf(format string, a ...any) error { return &clientError{fmt.Sprintf(format, a...)} }

// public is err as a client reads it: argument, scope, request and budget
// errors as they are; anything else logged and reported as internal.
func (s *Server) public(tool string, err error) error {
	var ce *clientError
	var ae *tools.ArgError
	var re *executor.RequestError
	var be *budget.ExhaustedError
	var pe *engine.PublicError
	switch {
	case errors.As(err, &ce):
		return ce
	case errors.As(err, &ae):
		// Named after the MCP tool, which may run another of the engine's.
		if ae.Field == "" {
			return fmt.Errorf("%s: %s", tool, ae.Problem)
		}
		return fmt.Errorf("%s: %s: %s", tool, ae.Field, ae.Problem)
	case errors.As(err, &re):
		return fmt.Errorf("%s: %s: %s", tool, re.Field, re.Problem)
	case errors.As(err, &be):
		// Which budget and limit, in the budget's words: no internals.
		return fmt.Errorf("%s: refused, budget exhausted: %s", tool, be.Error())
	case errors.As(err, &pe):
		// Worded for the tenant; the cause is logged.
		s.cfg.Logger.Error("mcp tool failed", "tool", tool, "err", pe.Cause)
		return fmt.Errorf("%s: %s", tool, pe.Message)
	case errors.Is(err, errSessionCalls), errors.Is(err, errSessionClosed):
		return fmt.Errorf("%s: %w", tool, err)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("%s: cancelled before it finished", tool)
	}
	s.cfg.Logger.Error("mcp tool failed", "tool", tool, "err", err)
	return fmt.Errorf("%s: internal error", tool)
}

// call runs one of the engine's tools in the session run, as the
// executor runs a node: it reserves the call's budget in the session run
// and the tenant's day before, and settles what the call used after; a
// call the budget cannot hold is refused. Invalid arguments are recorded
// and cost nothing.
func (s *Server) call(ctx context.Context, tool string, args any) (*tools.Output, string, error) {
	env, id, err := s.toolEnv(ctx)
	if err != nil {
		return nil, "", err
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, "", err
	}
	call := tools.Call{ID: id, Tool: tool, Args: raw}
	kind, candidates, rerr := tools.Reservation(tool, raw, env.Scope)
	if rerr != nil {
		_, err := tools.Run(ctx, env, call)
		if err == nil {
			err = rerr
		}
		return nil, env.RunID, err
	}
	amounts, err := budget.ToolReservation(kind, candidates)
	if err != nil {
		return nil, env.RunID, err
	}
	key := env.RunID + "/" + id
	if _, err := s.budget.Reserve(ctx, key, s.scopes(env.RunID), amounts, nil); err != nil {
		var ex *budget.ExhaustedError
		if errors.As(err, &ex) {
			s.refused(ctx, env.RunID, ex)
		}
		return nil, env.RunID, err
	}
	out, err := tools.Run(ctx, env, call)
	seen := int64(0)
	if out != nil {
		seen = min(int64(out.CandidatesSeen), candidates)
	}
	used, _ := budget.ToolReservation(kind, seen)
	if _, serr := s.budget.Settle(context.WithoutCancel(ctx), key, used); serr != nil {
		// The call ran and is recorded; its reservation holds until it
		// expires.
		s.cfg.Logger.Error("mcp: settle a tool call", "key", key, "err", serr)
		if err == nil {
			err = serr
		}
	}
	return out, env.RunID, err
}

func (s *Server) search(ctx context.Context, _ *mcp.CallToolRequest, in SearchArgs) (*mcp.CallToolResult, ToolResult, error) {
	a := tools.SearchArgs{Query: in.Query, Tickers: in.Tickers, Form: in.Form, Section: in.Section, K: in.K}
	if in.FiscalYear != 0 {
		a.FiscalYears = []int{in.FiscalYear}
	}
	out, runID, err := s.call(ctx, tools.SearchFilings, a)
	if err != nil {
		return nil, ToolResult{}, err
	}
	return textResult(out.Text), ToolResult{RunID: runID, Passages: passages(out.Evidence)}, nil
}

func (s *Server) lookup(ctx context.Context, _ *mcp.CallToolRequest, in LookupArgs) (*mcp.CallToolResult, ToolResult, error) {
	a := tools.LookupFactArgs{Ticker: in.Ticker, Concept: in.Concept, Label: in.Metric, Period: in.Period, YearToDate: in.YearToDate, Quarter: in.Quarter, FiscalQuarter: in.FiscalQuarter}
	out, runID, err := s.call(ctx, tools.LookupFact, a)
	if err != nil {
		return nil, ToolResult{}, err
	}
	res := ToolResult{RunID: runID, Passages: passages(out.Evidence)}
	for _, f := range out.Facts {
		res.Facts = append(res.Facts, FactOut{FactID: f.ID, EvidenceID: f.EvidenceID, Concept: f.Concept,
			Value: f.Value.String(), Unit: f.Unit, Period: f.Period})
	}
	return textResult(out.Text), res, nil
}

// evidencePattern is an evidence id (ledger.EvidenceID).
var evidencePattern = regexp.MustCompile(`^E[0-9a-f]{12}$`)

// maxAround is read_surrounding's bound on chunks before and after.
const maxAround = 3

func (s *Server) read(ctx context.Context, _ *mcp.CallToolRequest, in ReadArgs) (*mcp.CallToolResult, ToolResult, error) {
	before, after := 1, 1
	if in.Before != nil {
		before = *in.Before
	}
	if in.After != nil {
		after = *in.After
	}
	if before < 0 || before > maxAround || after < 0 || after > maxAround {
		return nil, ToolResult{}, errorf("read_passage: before and after: want 0 to %d each", maxAround)
	}
	id := strings.TrimSpace(in.ID)
	var cited *ledger.Evidence
	chunk := id
	if evidencePattern.MatchString(id) {
		e, err := s.evidence(ctx, in.RunID, id)
		if err != nil {
			return nil, ToolResult{}, err
		}
		cited = e
		if chunk, err = s.chunkAt(ctx, e.DocumentID, e.Start); err != nil {
			return nil, ToolResult{}, err
		}
	} else if in.RunID != "" {
		return nil, ToolResult{}, errorf("read_passage: run_id: only an evidence id is looked up in a run; %q is not one", id)
	}
	out, runID, err := s.call(ctx, tools.ReadSurrounding, tools.ReadSurroundingArgs{ID: chunk, Before: before, After: after})
	if err != nil {
		return nil, ToolResult{}, err
	}
	res := ToolResult{RunID: runID, Passages: passages(out.Evidence)}
	text := out.Text
	if cited != nil {
		p := passage(*cited)
		res.Cited = &p
		text = "read_passage: evidence " + cited.ID + ", then the chunks around it.\n" +
			tools.EvidenceBlock(*cited, 0, nil) + "\n\n" + text
	}
	return textResult(text), res, nil
}

// evidence finds evidence id in the ledger of run runID (the session run
// when "") of the server's tenant.
func (s *Server) evidence(ctx context.Context, runID, id string) (*ledger.Evidence, error) {
	if runID == "" {
		runID = s.sessionRun()
		if runID == "" {
			return nil, errorf("read_passage: evidence %s: this session has recorded no evidence yet; give run_id, the run that recorded it", id)
		}
	}
	if err := ledger.CheckRunID(runID); err != nil {
		return nil, errorf("read_passage: run_id: %q is not a run id", runID)
	}
	l, err := s.t.Ledger.Load(ctx, runID)
	if errors.Is(err, ledger.ErrNotFound) {
		return nil, errorf("read_passage: run %q not found", runID)
	}
	if err != nil {
		return nil, err
	}
	for i := range l.Evidence {
		if l.Evidence[i].ID == id {
			return &l.Evidence[i], nil
		}
	}
	return nil, errorf("read_passage: run %q holds no evidence %s", runID, id)
}

// chunkAt finds the chunk of document docID that holds offset: chunk
// ordinals follow the text, so the last chunk starting at or before the
// offset, found by doubling then bisecting over ordinals.
func (s *Server) chunkAt(ctx context.Context, docID string, offset int) (string, error) {
	starts := func(o int) (bool, error) {
		hits, err := s.t.Store.Chunks(ctx, []string{corpus.ChunkID(docID, o)})
		if err != nil {
			return false, err
		}
		return len(hits) == 1 && hits[0].DocumentID == docID && hits[0].Start <= offset, nil
	}
	if ok, err := starts(0); err != nil || !ok {
		if err == nil {
			err = errorf("read_passage: the evidence's filing has no chunk holding it")
		}
		return "", err
	}
	lo, hi := 0, 1
	for {
		ok, err := starts(hi)
		if err != nil {
			return "", err
		}
		if !ok {
			break
		}
		lo, hi = hi, hi*2
		if hi > 1<<24 {
			return "", errors.New("mcpserver: chunk ordinals do not end")
		}
	}
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		ok, err := starts(mid)
		if err != nil {
			return "", err
		}
		if ok {
			lo = mid
		} else {
			hi = mid
		}
	}
	return corpus.ChunkID(docID, lo), nil
}

func (s *Server) ask(ctx context.Context, req *mcp.CallToolRequest, in AskArgs) (*mcp.CallToolResult, any, error) {
	limits := executor.DefaultLimits()
	limits.SpendUSD = DefaultSpendUSD
	if in.BudgetUSD != nil {
		spend := decimal.NewFromFloat(*in.BudgetUSD)
		if spend.IsNegative() || budget.CheckUSD(spend) != nil {
			return nil, nil, errorf("ask: budget_usd %v: want a non-negative amount such as 0.50", *in.BudgetUSD)
		}
		if spend.GreaterThan(s.cfg.MaxSpendUSD) {
			return nil, nil, errorf("ask: budget_usd %s: this server allows at most %s", spend, s.cfg.MaxSpendUSD.StringFixed(2))
		}
		limits.SpendUSD = spend
	}
	limits.WallClock = DefaultWallClock
	if in.TimeoutSeconds < 0 {
		return nil, nil, errorf("ask: timeout_seconds %d: want a positive number of seconds", in.TimeoutSeconds)
	}
	if in.TimeoutSeconds > 0 {
		limits.WallClock = time.Duration(in.TimeoutSeconds) * time.Second
	}
	limits.WallClock = min(limits.WallClock, s.cfg.MaxWallClock)
	if in.MaxCalls < 0 {
		return nil, nil, errorf("ask: max_calls %d: want 0 (no cap) or more", in.MaxCalls)
	}
	mode := ledger.Mode(strings.TrimSpace(in.Mode))
	if mode == "" {
		mode = executor.ModeAuto
	}
	tickers := make([]string, len(in.Tickers))
	for i, t := range in.Tickers {
		tickers[i] = strings.ToUpper(strings.TrimSpace(t))
	}
	// With a progress token, the run's id is chosen here, so that its
	// steps can be relayed to this call as they happen.
	runID := ""
	if token := req.Params.GetProgressToken(); token != nil && s.cfg.Progress != nil {
		runID = executor.NewRunID(s.cfg.Now())
		steps, stop := s.cfg.Progress.subscribe(s.cfg.Tenant, runID)
		var sender sync.WaitGroup
		sender.Go(func() { s.sendProgress(ctx, req.Session, token, steps) })
		defer func() {
			stop()
			sender.Wait() // every step is sent before the result
		}()
	}
	res, err := s.t.Engine.Run(ctx, executor.Request{
		RunID: runID, Question: in.Question, Tickers: tickers, Mode: mode, Limits: &limits, MaxCalls: in.MaxCalls,
	})
	if err != nil {
		return nil, nil, err
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(res); err != nil {
		return nil, nil, err
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: b.String()}}, StructuredContent: json.RawMessage(b.Bytes())}, nil, nil
}

func (s *Server) ledgerShow(ctx context.Context, _ *mcp.CallToolRequest, in LedgerArgs) (*mcp.CallToolResult, any, error) {
	text, err := s.ledgerJSON(ctx, in.RunID)
	if err != nil {
		return nil, nil, err
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: json.RawMessage(text)}, nil, nil
}

// ledgerJSON is run runID's ledger export as JSON (research ledger show
// --format json), or a client error naming the run.
func (s *Server) ledgerJSON(ctx context.Context, runID string) (string, error) {
	runID = strings.TrimSpace(runID)
	if err := ledger.CheckRunID(runID); err != nil {
		return "", errorf("ledger_show: run_id: %q is not a run id", runID)
	}
	rep, err := ledger.Export(ctx, s.t.Ledger, runID)
	if errors.Is(err, ledger.ErrNotFound) {
		return "", errorf("ledger_show: run %q not found", runID)
	}
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	if err := rep.WriteJSON(&b); err != nil {
		return "", err
	}
	return b.String(), nil
}

func textResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

func passages(ev []ledger.Evidence) []Passage {
	out := make([]Passage, 0, len(ev))
	for _, e := range ev {
		out = append(out, passage(e))
	}
	return out
}

func passage(e ledger.Evidence) Passage {
	return Passage{
		EvidenceID: e.ID, Kind: string(e.Kind), Ticker: e.Ticker, Form: e.Form, Period: e.Period,
		Section: e.Section, Page: e.Page, Excerpt: tools.Shorten(e.Excerpt, tools.MaxExcerpt),
	}
}
