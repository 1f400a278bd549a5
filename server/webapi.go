package server

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/budget"
	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/engine"
	"github.com/ledgerline/research/executor"
	"github.com/ledgerline/research/ledger"
)

// The endpoints the web app needs beyond running and reading runs, each
// tenant-scoped like the rest of the API:
//
//	GET  /v1/runs                       the tenant's latest runs
//	GET  /v1/runs/{id}/evidence/{eid}   one cited span in its filing's text
//	GET  /v1/corpus                     the tenant's filings
//	POST /v1/plan                       a dry run: the plan and its worst case
//	GET  /v1/runs/{id}/budget           the run's budget audit (budgetaudit.go)
//	GET  /v1/runs/{id}/evidence/{eid}/document
//	                                    the whole filing of a span, a page at a time (document.go)
//	POST /v1/batches, GET /v1/batches/{id}
//	                                    batch submission from JSONL, and its progress (batches.go)

// webRoutes adds the endpoints of the web app's later views.
func (s *Server) webRoutes(mux *http.ServeMux) {
	mux.Handle("GET /v1/runs/{id}/budget", s.authed(s.runBudget))
	mux.Handle("GET /v1/runs/{id}/evidence/{eid}/document", s.authed(s.runDocument))
	mux.Handle("POST /v1/batches", s.authed(s.createBatch))
	mux.Handle("GET /v1/batches/{id}", s.authed(s.getBatch))
}

// sourceContext is how many bytes of the filing's text the source view
// shows on each side of a span; ?context= may ask for 0 to maxSourceContext.
const (
	sourceContext    = 1500
	maxSourceContext = 20000
)

// sourceView is a cited span with the text around it. Before, Span and
// After are consecutive pieces of the document's canonical text; clients
// render them as text.
type sourceView struct {
	EvidenceID  string `json:"evidence_id"`
	DocumentID  string `json:"document_id"`
	Kind        string `json:"kind"`
	Ticker      string `json:"ticker"`
	Company     string `json:"company"`
	Form        string `json:"form"`
	FiscalYear  int    `json:"fiscal_year"`
	PeriodEnd   string `json:"period_end"`
	Period      string `json:"period"`
	Section     string `json:"section"`
	Page        int    `json:"page"` // 0 when the source has no pages
	Start       int    `json:"start"`
	End         int    `json:"end"`
	Before      string `json:"before"`
	Span        string `json:"span"`
	After       string `json:"after"`
	TextStart   int    `json:"text_start"` // offset of Before in the document
	TextEnd     int    `json:"text_end"`   // offset one past After
	DocumentLen int    `json:"document_length"`
}

// runEvidence answers one evidence span of the tenant's run with the
// filing's text around it. Only evidence the run's ledger holds is shown,
// so a client reads no more of a filing than the run found.
func (s *Server) runEvidence(w http.ResponseWriter, r *http.Request) {
	window := sourceContext
	if v := r.URL.Query().Get("context"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > maxSourceContext {
			s.writeFieldError(w, r, badField("context", "want a number of bytes from 0 to %d", maxSourceContext))
			return
		}
		window = n
	}
	ev, doc, ok := s.requestedEvidence(w, r)
	if !ok {
		return
	}
	text := doc.Text
	from, to := runeStart(text, max(0, ev.Start-window)), runeStart(text, min(len(text), ev.End+window))
	writeJSON(w, http.StatusOK, sourceView{
		EvidenceID: ev.ID, DocumentID: ev.DocumentID, Kind: string(ev.Kind),
		Ticker: doc.Ticker, Company: doc.Company, Form: doc.Form, FiscalYear: doc.FiscalYear,
		PeriodEnd: doc.PeriodEnd.Format(time.DateOnly), Period: ev.Period, Section: ev.Section, Page: ev.Page,
		Start: ev.Start, End: ev.End,
		Before: text[from:ev.Start], Span: text[ev.Start:ev.End], After: text[ev.End:to],
		TextStart: from, TextEnd: to, DocumentLen: len(text),
	})
}

// requestedEvidence resolves the evidence span a request's path names,
// within the tenant's run, and the filing it lies in. When it cannot (no
// such run, evidence or filing, or a span outside the filing's text: 404;
// a store error: 500) it has answered the request and ok is false.
func (s *Server) requestedEvidence(w http.ResponseWriter, r *http.Request) (ev *ledger.Evidence, doc *corpus.Document, ok bool) {
	led, run, ok := s.requestedRun(w, r)
	if !ok {
		return nil, nil, false
	}
	info(r.Context()).runID = run.ID
	eid := r.PathValue("eid")
	l, err := led.Load(r.Context(), run.ID)
	if err != nil {
		s.internalError(w, r, "load a ledger", err)
		return nil, nil, false
	}
	for i := range l.Evidence {
		if l.Evidence[i].ID == eid {
			ev = &l.Evidence[i]
			break
		}
	}
	if ev == nil {
		s.writeError(w, r, http.StatusNotFound, "run %s holds no evidence %q", run.ID, truncate(eid, 64))
		return nil, nil, false
	}
	store, err := s.corpusOf(principalOf(r.Context()).tenant.ID)
	if err != nil {
		s.internalError(w, r, "open the corpus", err)
		return nil, nil, false
	}
	doc, err = store.Document(r.Context(), ev.DocumentID)
	if errors.Is(err, corpus.ErrNotFound) {
		s.writeError(w, r, http.StatusNotFound, "the filing of evidence %s is no longer in the corpus", ev.ID)
		return nil, nil, false
	}
	if err != nil {
		s.internalError(w, r, "read a document", err)
		return nil, nil, false
	}
	if ev.Start < 0 || ev.End > len(doc.Text) || ev.Start >= ev.End {
		s.writeError(w, r, http.StatusNotFound, "evidence %s lies outside its filing's text", ev.ID)
		return nil, nil, false
	}
	return ev, doc, true
}

// runeStart moves i back to the start of the rune it falls in.
func runeStart(s string, i int) int {
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}

// runListLimit bounds GET /v1/runs.
const runListLimit = 100

// runListItem is one run of GET /v1/runs.
type runListItem struct {
	RunID    string     `json:"run_id"`
	Question string     `json:"question"`
	Mode     string     `json:"mode"`
	Status   string     `json:"status"`
	Created  time.Time  `json:"created"`
	Finished *time.Time `json:"finished,omitempty"`
	SpendUSD string     `json:"spend_usd"`
}

// listRuns answers the tenant's latest runs, newest first, each with what
// it spent.
func (s *Server) listRuns(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	tenant := principalOf(ctx).tenant.ID
	led, err := s.ledgerOf(tenant)
	if err != nil {
		s.internalError(w, r, "open the ledger", err)
		return
	}
	runs, err := led.Runs(ctx, runListLimit)
	if err != nil {
		s.internalError(w, r, "list runs", err)
		return
	}
	spend, err := s.runSpend(ctx, tenant, led, runs)
	if err != nil {
		s.internalError(w, r, "read the runs' spend", err)
		return
	}
	out := make([]runListItem, 0, len(runs))
	for _, run := range runs {
		it := runListItem{RunID: run.ID, Question: run.Question, Mode: string(run.Mode), Status: string(run.Status),
			Created: run.Created, SpendUSD: spend[run.ID].String()}
		if !run.Finished.IsZero() {
			f := run.Finished
			it.Finished = &f
		}
		out = append(out, it)
	}
	writeJSON(w, http.StatusOK, struct {
		Runs []runListItem `json:"runs"`
	}{out})
}

// runSpend is what each of runs spent, by run id. In Postgres it is what
// the run's budget settled, read for all of them at once, so a run still
// going shows its spend so far. The embedded ledger keeps no settlements:
// there a finished run's spend is what its answer reports, and a run
// without an answer has spent nothing the server can show.
func (s *Server) runSpend(ctx context.Context, tenant string, led runReader, runs []ledger.Run) (map[string]decimal.Decimal, error) {
	out := make(map[string]decimal.Decimal, len(runs))
	if s.local != nil {
		for _, run := range runs {
			if !run.Status.Terminal() {
				continue
			}
			res, ok, err := executor.RecordedResult(ctx, led, run.ID)
			if err != nil {
				return nil, err
			}
			if ok {
				out[run.ID] = res.Budget.UsedAmount(string(budget.SpendUSD))
			}
		}
		return out, nil
	}
	budgets, err := s.budgetsOf(tenant)
	if err != nil {
		return nil, err
	}
	scopes := make([]budget.Scope, len(runs))
	for i, run := range runs {
		scopes[i] = budget.RunScope(run.ID)
	}
	settled, err := budgets.Settled(ctx, scopes)
	if err != nil {
		return nil, err
	}
	for _, sc := range scopes {
		out[sc.ID] = settled[sc].SpendUSD
	}
	return out, nil
}

// corpusItem is one filing of GET /v1/corpus.
type corpusItem struct {
	DocumentID string `json:"document_id"`
	Ticker     string `json:"ticker"`
	Company    string `json:"company"`
	Form       string `json:"form"`
	FiscalYear int    `json:"fiscal_year"`
	PeriodEnd  string `json:"period_end"`
	Filed      string `json:"filed,omitempty"`
	Pages      int    `json:"pages"`
}

// listCorpus answers the tenant's filings, by ticker and period.
func (s *Server) listCorpus(w http.ResponseWriter, r *http.Request) {
	store, err := s.corpusOf(principalOf(r.Context()).tenant.ID)
	if err != nil {
		s.internalError(w, r, "open the corpus", err)
		return
	}
	docs, err := store.Documents(r.Context())
	if err != nil {
		s.internalError(w, r, "list the corpus", err)
		return
	}
	out := make([]corpusItem, 0, len(docs))
	for _, d := range docs {
		it := corpusItem{DocumentID: d.ID, Ticker: d.Ticker, Company: d.Company, Form: d.Form,
			FiscalYear: d.FiscalYear, PeriodEnd: d.PeriodEnd.Format(time.DateOnly), Pages: d.Pages}
		if !d.Filed.IsZero() {
			it.Filed = d.Filed.Format(time.DateOnly)
		}
		out = append(out, it)
	}
	writeJSON(w, http.StatusOK, struct {
		Documents []corpusItem `json:"documents"`
	}{out})
}

// planEngine is an engine that plans the tenant's runs without spending
// or recording: a local server's own, or one built over the pool that
// leaves the tenant's day alone. done releases it.
func (s *Server) planEngine(ctx context.Context, tenant string) (eng *executor.Engine, done func(), err error) {
	if s.local != nil {
		return s.local.t.Engine, func() {}, nil
	}
	proc, err := engine.New(&engine.Config{Pool: s.pool, Embedder: s.cfg.Embedder, NoTenantDay: true})
	if err != nil {
		return nil, nil, err
	}
	if eng, err = proc.Engine(ctx, tenant); err != nil {
		proc.Close()
		return nil, nil, err
	}
	return eng, func() { proc.Close() }, nil
}

// planRun answers a dry run of a run request: the route, the task graph
// and the worst-case budget, with nothing spent and nothing recorded. It
// takes the body of POST /v1/runs and checks it the same way.
func (s *Server) planRun(w http.ResponseWriter, r *http.Request) {
	p := principalOf(r.Context())
	var req runRequest
	if fe := decodeJSON(w, r, s.cfg.MaxBodyBytes, &req, runFields); fe != nil {
		s.writeFieldError(w, r, fe)
		return
	}
	spec, fe := validateRun(&req, "", p.tenant.Limits)
	if fe != nil {
		s.writeFieldError(w, r, fe)
		return
	}
	eng, done, err := s.planEngine(r.Context(), p.tenant.ID)
	if err != nil {
		s.internalError(w, r, "build an engine", err)
		return
	}
	defer done()
	limits := executor.DefaultLimits()
	limits.SpendUSD, limits.WallClock = spec.limits.spend, spec.limits.wall
	plan, err := eng.DryRun(r.Context(), executor.Request{
		Question: spec.question, Tickers: spec.tickers, Mode: spec.mode, Limits: &limits, MaxCalls: spec.limits.maxCalls,
	})
	var re *executor.RequestError
	switch {
	case errors.As(err, &re):
		s.writeFieldError(w, r, badField(re.Field, "%s", safeMessage(re.Problem)))
		return
	case err != nil:
		s.internalError(w, r, "plan a run", err)
		return
	}
	writeJSON(w, http.StatusOK, plan)
}
