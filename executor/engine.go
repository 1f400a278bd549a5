// Package executor runs a research question end to end: route, plan a task
// graph, execute its nodes concurrently under budget, record everything in
// the evidence ledger, synthesize an answer and validate it.
//
// Every model and tool call reserves its budget before it runs and settles
// after; a refused reservation stops gathering and the run ends
// budget_exhausted with an answer over what it gathered. The executor holds
// back what synthesis needs (its model call, and a share of the
// wall-clock), so gathering can never spend it.
package executor

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/budget"
	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/llm"
	"github.com/ledgerline/research/tools"
)

// Accountant is the budget the executor reserves against: the budget
// package's Memory and Postgres implementations satisfy it.
type Accountant interface {
	budget.Accountant
	SetLimits(ctx context.Context, scope budget.Scope, limits budget.Limits) error
	Usage(ctx context.Context, scope budget.Scope) (budget.Usage, error)
}

// ModelConfig configures model mode.
type ModelConfig struct {
	Caller       llm.Caller // one chat call; the executor adds budget and retries
	Model        string     // planner and synthesizer model
	GraderModel  string     // "" means no grader
	PlanTokens   int64      // max_tokens of a planning call; 0 means 8000
	AnswerTokens int64      // max_tokens of a synthesis call; 0 means 3000
	GradeTokens  int64      // max_tokens of a grading call; 0 means 300
}

// RetryPolicy bounds the retries of transient failures (timeouts, 429,
// 5xx, a store that does not answer). Each attempt reserves its own budget.
type RetryPolicy struct {
	Attempts int           // attempts in all; 0 means 3
	Base     time.Duration // first backoff; 0 means 100ms, doubled each retry
	Max      time.Duration // longest backoff; 0 means 2s
	// Rand draws the backoff's jitter: a uniformly random duration in
	// [0, n), n > 0. nil means math/rand/v2's. Runs call it concurrently.
	// Tests set it to make the waits exact.
	Rand func(n time.Duration) time.Duration
}

func (p RetryPolicy) withDefaults() RetryPolicy {
	if p.Attempts <= 0 {
		p.Attempts = 3
	}
	if p.Base <= 0 {
		p.Base = 100 * time.Millisecond
	}
	if p.Max <= 0 {
		p.Max = 2 * time.Second
	}
	return p
}

// backoff is the wait before retry attempt (1 for the first retry). The
// delay is exponential, Base doubled per retry up to Max, with "equal
// jitter": half of it is kept and a random part of up to the other half
// added, so that calls that failed together do not retry together, yet
// none retries at once (as "full jitter", random over the whole delay,
// would let some do) into a provider that is shedding load. A server's
// Retry-After hint is a floor: the wait is never shorter than the hint,
// up to Max, the longest any one wait may hold a run.
func (p RetryPolicy) backoff(attempt int, hint time.Duration) time.Duration {
	d := p.Base
	for i := 1; i < attempt && d < p.Max; i++ {
		if d > p.Max/2 {
			d = p.Max // doubling would pass Max (or overflow)
			break
		}
		d *= 2
	}
	d = min(d, p.Max)
	if d > 1 {
		d = d/2 + p.jitter(d/2+1)
	}
	return min(max(d, hint), p.Max)
}

// jitter is a random duration in [0, n).
func (p RetryPolicy) jitter(n time.Duration) time.Duration {
	if p.Rand == nil {
		return mrand.N(n)
	}
	return min(max(p.Rand(n), 0), n-1) // a source out of range cannot stretch a wait past Max
}

// ToolFunc runs one tool call; tools.Run is the real one.
type ToolFunc func(ctx context.Context, env *tools.Env, call tools.Call) (*tools.Output, error)

// Config is what an Engine runs with.
type Config struct {
	Store    corpus.Store     // the tenant's corpus
	Searcher *corpus.Searcher // over Store
	Ledger   ledger.Store     // the tenant's ledger
	Budget   Accountant       // nil means an in-process budget.Memory
	Prices   budget.Prices    // model prices; needed when spend is limited in model mode
	Tenant   string           // "" means "default"
	// TenantDay, when set, makes every reservation count against the
	// tenant's budget for the day (budget.DayScope) as well as the run's,
	// so a tenant's daily spend cap holds across all its runs. The day
	// scope's limits must have been set (Accountant.SetLimits); a day
	// without a budget refuses every call.
	TenantDay bool

	Model *ModelConfig // nil: no model configured, model mode is refused

	Concurrency       map[string]int // per-provider semaphore sizes; see DefaultConcurrency
	TenantConcurrency int            // calls one tenant runs at once; 0 means DefaultTenantConcurrency
	// Limiter, when set, is the process's semaphores, shared with its
	// other engines (Concurrency and TenantConcurrency are then its own).
	Limiter      *Limiter
	MaxNodes     int // graph size bound; 0 means planner.DefaultMaxNodes
	ReplanRounds int // re-planning rounds; 0 means 2, negative means none
	Retry        RetryPolicy

	// Progress, when set, is told about each step as it happens (the CLI
	// prints these to stderr). Calls are serialized: it is never called
	// from two goroutines at once. It must not block.
	Progress func(Progress)

	// Tool runs tool calls; nil means tools.Run.
	Tool ToolFunc

	// Prepare, when set, runs before a run reads the corpus, within half
	// of the run's wall-clock budget (the run's own clock starts before
	// it, so the run keeps the rest): fetching the filings of issuers the
	// question names that the corpus lacks, say. The event it returns, when
	// it has a kind, is recorded in the run's ledger and its message noted;
	// an error is noted and the run goes on over the corpus as it is. A
	// run already finished is not prepared.
	Prepare func(ctx context.Context, req Request, within time.Duration) (ledger.Event, error)

	Now func() time.Time // nil means time.Now
}

// Engine runs research questions. It is safe for concurrent use; its
// semaphores are shared by all the runs it executes.
type Engine struct {
	cfg     Config
	limiter *Limiter

	progressMu sync.Mutex // serializes cfg.Progress calls
	figures    figureCache
	stats      textStatsCache
	texts      *tools.TextCache // the filings' text the lookups cite, kept across runs
}

// New returns an engine, or an error naming what the configuration lacks.
func New(cfg Config) (*Engine, error) {
	if cfg.Store == nil || cfg.Searcher == nil || cfg.Ledger == nil {
		return nil, errors.New("executor: Config needs Store, Searcher and Ledger")
	}
	if cfg.Tenant == "" {
		cfg.Tenant = budget.DefaultTenant
	}
	if cfg.Budget == nil {
		m, err := budget.NewMemory(&budget.Config{Tenant: cfg.Tenant})
		if err != nil {
			return nil, err
		}
		cfg.Budget = m
	}
	if cfg.Model != nil && (cfg.Model.Caller == nil || cfg.Model.Model == "") {
		return nil, errors.New("executor: ModelConfig needs a Caller and a Model")
	}
	if cfg.Tool == nil {
		cfg.Tool = tools.Run
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.ReplanRounds == 0 {
		cfg.ReplanRounds = 2
	}
	cfg.Retry = cfg.Retry.withDefaults()
	l := cfg.Limiter
	if l == nil {
		l = NewLimiter(cfg.Concurrency, cfg.TenantConcurrency)
	}
	return &Engine{cfg: cfg, limiter: l, texts: tools.NewTextCache(0)}, nil
}

// Request is one research question.
type Request struct {
	RunID    string         // "" means a new id; an existing run's id resumes it
	Question string         // 3..2000 characters
	Tickers  []string       // issuers to include besides those the question names
	Mode     ledger.Mode    // rules (default), model, baseline or auto (ModeAuto)
	Limits   *budget.Limits // the run's budget; nil means DefaultLimits
	MaxCalls int            // model and tool calls in all; 0 means no cap beyond Limits
}

// DefaultLimits is the budget of a run when the caller sets none: enough
// for a three-issuer comparison with re-planning, bounded in every
// dimension.
func DefaultLimits() budget.Limits {
	return budget.Limits{
		ModelCalls: 12, SearchCalls: 60, ReadCalls: 40, FactCalls: 80, CalculateCalls: 40,
		InputTokens: 200_000, OutputTokens: 40_000, Candidates: 40_000,
		SpendUSD:  decimal.RequireFromString("0.50"),
		WallClock: 60 * time.Second,
	}
}

// Question length bounds.
const (
	MinQuestion = 3
	MaxQuestion = 2000
)

// RequestError is a request the engine refuses before recording anything.
type RequestError struct{ Field, Problem string }

func (e *RequestError) Error() string { return fmt.Sprintf("executor: %s: %s", e.Field, e.Problem) }

func (e *Engine) checkRequest(req *Request) error {
	n := len([]rune(req.Question))
	if n < MinQuestion || n > MaxQuestion {
		return &RequestError{"question", fmt.Sprintf("%d characters; want %d to %d", n, MinQuestion, MaxQuestion)}
	}
	switch req.Mode {
	case "":
		req.Mode = ledger.ModeRules
	case ledger.ModeRules, ledger.ModeBaseline, ModeAuto:
	case ledger.ModeModel:
		if e.cfg.Model == nil {
			return &RequestError{"mode", "model mode needs a configured model (set OPENAI_BASE_URL and RESEARCH_MODEL); use rules or baseline"}
		}
	default:
		return &RequestError{"mode", fmt.Sprintf("%q is not rules, model, baseline or auto", req.Mode)}
	}
	if req.RunID == "" {
		req.RunID = NewRunID(e.cfg.Now())
	} else if err := ledger.CheckRunID(req.RunID); err != nil {
		return &RequestError{"run id", err.Error()}
	}
	if req.MaxCalls < 0 {
		return &RequestError{"max calls", fmt.Sprintf("%d is negative", req.MaxCalls)}
	}
	if req.Limits == nil {
		l := DefaultLimits()
		req.Limits = &l
	}
	for _, t := range req.Tickers {
		if !corpus.ValidTicker(t) {
			return &RequestError{"tickers", fmt.Sprintf("%q is not a ticker (upper-case letters and digits, with a share class after a dot or dash where there is one)", t)}
		}
	}
	return nil
}

// NewRunID returns a fresh run id: "run-", the UTC date and time, and 8
// random hex digits.
func NewRunID(now time.Time) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return "run-" + now.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}
