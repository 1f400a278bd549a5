package server

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/ledgerline/research/budget"
	"github.com/ledgerline/research/executor"
	"github.com/ledgerline/research/ledger"
)

// Metrics are the Prometheus collectors of the API and of the runs its
// worker executes, registered on a registry the caller owns.
type Metrics struct {
	httpRequests   *prometheus.CounterVec   // route, code
	httpDuration   *prometheus.HistogramVec // route
	runsSubmitted  *prometheus.CounterVec   // mode
	runsFinished   *prometheus.CounterVec   // status, mode
	runsInProgress prometheus.Gauge
	runDuration    *prometheus.HistogramVec // mode
	nodeDuration   *prometheus.HistogramVec // tool
	nodeFailures   *prometheus.CounterVec   // tool
	modelCalls     prometheus.Counter
	tokens         *prometheus.CounterVec // direction
	spend          prometheus.Counter
	budgetRejects  *prometheus.CounterVec   // dimension
	budgetSwept    prometheus.Counter       // unlabelled: /metrics takes no key, so no metric names a tenant
	semaphoreWait  *prometheus.HistogramVec // call: a tool name or "model"
	limitRejects   *prometheus.CounterVec   // limit

	queueDepth  atomic.Pointer[func(context.Context) (int, error)]
	queueErrors prometheus.Counter          // scrapes whose queue depth could not be read
	queueLog    atomic.Pointer[slog.Logger] // where those failures are logged

	mu      sync.Mutex
	started map[string]runStart // guarded by mu: runs this process opened, by tenant/run id
}

type runStart struct {
	at   time.Time
	mode ledger.Mode
}

// NewMetrics creates the collectors and registers them, with the Go
// runtime and process collectors, on reg.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	if reg == nil {
		return nil, errors.New("server: NewMetrics: nil registerer")
	}
	durations := []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120}
	m := &Metrics{
		httpRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "research_http_requests_total", Help: "HTTP requests by route pattern and status code.",
		}, []string{"route", "code"}),
		httpDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "research_http_request_duration_seconds", Help: "Time to answer an HTTP request, by route pattern (event streams excluded).",
			Buckets: durations,
		}, []string{"route"}),
		runsSubmitted: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "research_runs_submitted_total", Help: "Runs queued through the API, by mode.",
		}, []string{"mode"}),
		runsFinished: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "research_runs_total", Help: "Runs finished by this process's worker, by terminal status and mode.",
		}, []string{"status", "mode"}),
		runsInProgress: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "research_runs_in_progress", Help: "Runs this process's worker is executing.",
		}),
		runDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "research_run_duration_seconds", Help: "Wall-clock time of a run from the moment a worker opened it to its verdict, by mode.",
			Buckets: durations,
		}, []string{"mode"}),
		nodeDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "research_node_duration_seconds", Help: "Time a task-graph node's tool call took, by tool.",
			Buckets: durations,
		}, []string{"tool"}),
		nodeFailures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "research_node_failures_total", Help: "Task-graph nodes that failed, by tool.",
		}, []string{"tool"}),
		modelCalls: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "research_model_calls_total", Help: "Model call attempts (planning, synthesis, grading), failed ones included.",
		}),
		tokens: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "research_model_tokens_total", Help: "Model tokens settled, by direction (in, out).",
		}, []string{"direction"}),
		spend: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "research_spend_usd_total", Help: "Money settled for model calls, in USD.",
		}),
		budgetRejects: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "research_budget_rejections_total", Help: "Reservations the budget refused, by the dimension that ran out.",
		}, []string{"dimension"}),
		budgetSwept: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "research_budget_swept_total", Help: "Expired budget reservations (the holds and leases of processes that died) this process's sweeper returned to their budgets.",
		}),
		semaphoreWait: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "research_semaphore_wait_seconds", Help: "Time a call waited for its tenant's and provider's concurrency slots, by tool (or model).",
			Buckets: []float64{0.0001, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5},
		}, []string{"call"}),
		queueErrors: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "research_queue_depth_errors_total", Help: "Scrapes at which the queue's depth could not be read from the database (the depth is then left out).",
		}),
		limitRejects: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "research_limit_rejections_total", Help: "API requests refused with 429, by limit (rate, daily_runs, daily_spend, concurrent_runs, streams, bad_keys).",
		}, []string{"limit"}),
		started: map[string]runStart{},
	}
	queue := prometheus.NewDesc("research_queue_depth", "Runs waiting in the job queue, read from the database at each scrape.", nil, nil)
	cs := []prometheus.Collector{
		m.httpRequests, m.httpDuration, m.runsSubmitted, m.runsFinished, m.runsInProgress, m.runDuration,
		m.nodeDuration, m.nodeFailures, m.modelCalls, m.tokens, m.spend, m.budgetRejects, m.budgetSwept, m.semaphoreWait, m.limitRejects,
		m.queueErrors, &queueCollector{m: m, desc: queue},
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	}
	for _, c := range cs {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// ObserveQueue sets the function that reads the queue's depth at each
// scrape (jobs.QueueDepth over the pool, say). When it fails (the
// database is down), the depth is left out of that scrape, the failure
// counted in research_queue_depth_errors_total and its cause logged to
// log (nil means not logged): every other metric is still served, and
// nothing of the cause (the database's address, user or name) is.
func (m *Metrics) ObserveQueue(f func(context.Context) (int, error), log *slog.Logger) {
	m.queueDepth.Store(&f)
	if log != nil {
		m.queueLog.Store(log)
	}
}

// queueCollector reads the queue depth when Prometheus scrapes.
type queueCollector struct {
	m    *Metrics
	desc *prometheus.Desc
}

func (c *queueCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c *queueCollector) Collect(ch chan<- prometheus.Metric) {
	f := c.m.queueDepth.Load()
	if f == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	n, err := (*f)(ctx)
	if err != nil {
		c.m.queueErrors.Inc()
		if log := c.m.queueLog.Load(); log != nil {
			log.Warn("metrics: the queue's depth could not be read", slog.String("error", err.Error()))
		}
		return
	}
	ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, float64(n))
}

// progress feeds a run's progress events into the run metrics.
func (m *Metrics) progress(p executor.Progress) {
	switch p.Kind {
	case "node_started":
		m.semaphoreWait.WithLabelValues(p.Tool).Observe(p.Wait.Seconds())
	case "node_finished":
		m.nodeDuration.WithLabelValues(p.Tool).Observe(p.Duration.Seconds())
	case "node_failed":
		m.nodeFailures.WithLabelValues(p.Tool).Inc()
	case "model_call":
		m.modelCalls.Inc()
		m.semaphoreWait.WithLabelValues("model").Observe(p.Wait.Seconds())
	}
}

func (m *Metrics) httpRequest(route string, code int, d time.Duration, stream bool) {
	m.httpRequests.WithLabelValues(route, codeLabel(code)).Inc()
	if !stream {
		m.httpDuration.WithLabelValues(route).Observe(d.Seconds())
	}
}

func codeLabel(code int) string {
	const digits = "0123456789"
	if code < 100 || code > 999 {
		return "other"
	}
	return string([]byte{digits[code/100], digits[code/10%10], digits[code%10]})
}

// runOpened and runFinished time runs and count their verdicts.
func (m *Metrics) runOpened(key string, mode ledger.Mode, now time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.started[key]; !ok {
		m.runsInProgress.Inc()
	}
	m.started[key] = runStart{at: now, mode: mode}
	// A run handed back to the queue never finishes here; forget the ones
	// that cannot still be running.
	for k, s := range m.started {
		if now.Sub(s.at) > 24*time.Hour {
			delete(m.started, k)
			m.runsInProgress.Dec()
		}
	}
}

func (m *Metrics) runFinished(key string, status ledger.RunStatus, now time.Time) {
	m.mu.Lock()
	s, ok := m.started[key]
	if ok {
		delete(m.started, key)
		m.runsInProgress.Dec()
	}
	m.mu.Unlock()
	mode := "unknown" // opened by another process
	if ok {
		mode = string(orRules(s.mode))
		m.runDuration.WithLabelValues(mode).Observe(now.Sub(s.at).Seconds())
	}
	m.runsFinished.WithLabelValues(string(status), mode).Inc()
}

func orRules(m ledger.Mode) ledger.Mode {
	if m == "" {
		return ledger.ModeRules
	}
	return m
}

// meteredAccountant counts what the budget settles and refuses.
type meteredAccountant struct {
	executor.Accountant
	m *Metrics
}

func (a *meteredAccountant) Reserve(ctx context.Context, key string, scopes []budget.Scope, amounts budget.Amounts, opts *budget.ReserveOpts) (budget.Result, error) {
	res, err := a.Accountant.Reserve(ctx, key, scopes, amounts, opts)
	var ex *budget.ExhaustedError
	if errors.As(err, &ex) {
		a.m.budgetRejects.WithLabelValues(string(ex.Dimension)).Inc()
	}
	return res, err
}

func (a *meteredAccountant) Settle(ctx context.Context, key string, actual budget.Amounts) (budget.Result, error) {
	res, err := a.Accountant.Settle(ctx, key, actual)
	if err == nil && !res.Replayed {
		if res.Amounts.InputTokens > 0 {
			a.m.tokens.WithLabelValues("in").Add(float64(res.Amounts.InputTokens))
		}
		if res.Amounts.OutputTokens > 0 {
			a.m.tokens.WithLabelValues("out").Add(float64(res.Amounts.OutputTokens))
		}
		if res.Amounts.SpendUSD.IsPositive() {
			a.m.spend.Add(res.Amounts.SpendUSD.InexactFloat64())
		}
	}
	return res, err
}

// meteredLedger times runs from the moment they are opened to their
// verdict and counts verdicts by status and mode.
type meteredLedger struct {
	ledger.Store
	m      *Metrics
	tenant string
	now    func() time.Time
}

func (l *meteredLedger) OpenRun(ctx context.Context, r ledger.Run) (ledger.Run, bool, error) {
	run, resumed, err := l.Store.OpenRun(ctx, r)
	if err == nil && !run.Status.Terminal() {
		l.m.runOpened(l.tenant+"/"+run.ID, run.Mode, l.now())
	}
	return run, resumed, err
}

func (l *meteredLedger) FinishRun(ctx context.Context, runID string, status ledger.RunStatus) error {
	err := l.Store.FinishRun(ctx, runID, status)
	if err == nil {
		l.m.runFinished(l.tenant+"/"+runID, status, l.now())
	}
	return err
}

// limitRejected counts a 429.
func (m *Metrics) limitRejected(limit string) {
	m.limitRejects.WithLabelValues(strings.ToLower(limit)).Inc()
}
