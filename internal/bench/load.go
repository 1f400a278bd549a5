package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/ledgerline/research/internal/benchq"
	"io"
	"net"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/corpus/pgstore"
	"github.com/ledgerline/research/executor"
	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/ledger/pgledger"
	"github.com/ledgerline/research/server"
)

// LoadOpts configures RunLoad. Zero fields take the defaults.
type LoadOpts struct {
	Entries  []corpus.ManifestEntry // the filings to ingest; at least one must be ingested
	Embedder corpus.Embedder        // of ingest and of the server's queries; nil means corpus.HashEmbedder{}
	Clients  int                    // concurrent clients; 0 means 8
	Runs     int                    // runs to submit in all; 0 means 200
	// Workers is how many runs the server's worker executes at once (the
	// LoadServer's business): it sizes the pool and is reported. 0 means 4.
	Workers  int
	Duration time.Duration // stop submitting after this long; 0 means 2m
	Drain    time.Duration // how long runs in flight may take to finish after submitting stops; 0 means 2m
}

func loadDefaults(opts *LoadOpts) (LoadOpts, error) {
	var o LoadOpts
	if opts != nil {
		o = *opts
	}
	switch {
	case o.Clients < 0:
		return o, fmt.Errorf("bench: LoadOpts.Clients %d is negative", o.Clients)
	case o.Runs < 0:
		return o, fmt.Errorf("bench: LoadOpts.Runs %d is negative", o.Runs)
	case o.Workers < 0:
		return o, fmt.Errorf("bench: LoadOpts.Workers %d is negative", o.Workers)
	case o.Duration < 0:
		return o, fmt.Errorf("bench: LoadOpts.Duration %s is negative", o.Duration)
	case o.Drain < 0:
		return o, fmt.Errorf("bench: LoadOpts.Drain %s is negative", o.Drain)
	}
	if o.Embedder == nil {
		o.Embedder = corpus.HashEmbedder{}
	}
	if o.Clients == 0 {
		o.Clients = 8
	}
	if o.Runs == 0 {
		o.Runs = 200
	}
	if o.Workers == 0 {
		o.Workers = 4
	}
	if o.Duration == 0 {
		o.Duration = 2 * time.Minute
	}
	if o.Drain == 0 {
		o.Drain = 2 * time.Minute
	}
	return o, nil
}

// A LoadServer is the service under test: it serves the HTTP API on ln
// and runs its worker, over pool, with emb embedding queries, until ctx
// ends; then it stops and returns. research serve's server is the one.
type LoadServer func(ctx context.Context, pool *pgxpool.Pool, ln net.Listener, emb corpus.Embedder) error

// loadQuestions are the rules-mode questions the load test's clients ask,
// in turn, over the sample corpus.
var loadQuestions = benchq.Service

// loadTenant is the tenant the load test creates in its scratch schema.
const loadTenant = "load"

// RunLoad load-tests the HTTP API on loopback, in sch (a migrated schema
// holding nothing, as from CreateSchema): it ingests opts.Entries for a
// tenant it creates, starts serve on 127.0.0.1, and has opts.Clients
// clients each submit rules-mode runs one after another (POST /v1/runs)
// and follow each to its verdict on its event stream, until opts.Runs runs
// were submitted or opts.Duration passed; runs in flight then get
// opts.Drain to finish. Once the server has stopped, it checks in the
// ledger that every accepted run reached a verdict with a recorded answer
// (LoadReport.Lost counts those that did not). Progress lines go to
// progress (nil means none).
func RunLoad(ctx context.Context, sch *Schema, serve LoadServer, opts *LoadOpts, progress io.Writer) (*LoadReport, error) {
	o, err := loadDefaults(opts)
	if err != nil {
		return nil, err
	}
	if progress == nil {
		progress = io.Discard
	}
	// The scratch schema's pool, with room for the worker's runs, the
	// clients' requests and their event streams.
	pcfg := sch.Pool.Config()
	pcfg.MaxConns = int32(4*o.Workers + 2*o.Clients + 16)
	pool, err := pgxpool.NewWithConfig(ctx, pcfg)
	if err != nil {
		return nil, err
	}
	defer pool.Close()
	start := time.Now()
	if err := ingestForLoad(ctx, pool, o.Entries, o.Embedder, progress); err != nil {
		return nil, err
	}
	ts, err := server.NewTenants(pool)
	if err != nil {
		return nil, err
	}
	limits := server.DefaultTenantLimits()
	limits.RequestsPerMinute, limits.DailyRuns, limits.MaxConcurrentRuns = 1_000_000, 1_000_000, o.Runs
	_, key, err := ts.Create(ctx, loadTenant, &limits)
	if err != nil {
		return nil, err
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	base := "http://" + ln.Addr().String()
	sctx, stopServer := context.WithCancel(ctx)
	defer stopServer()
	served := make(chan error, 1)
	go func() {
		served <- serve(sctx, pool, ln, o.Embedder)
	}()
	fmt.Fprintf(progress, "ingested in %s; serving on %s; %d clients submit up to %d runs for at most %s\n", time.Since(start).Round(time.Millisecond), base, o.Clients, o.Runs, o.Duration)

	lt := &loadTest{base: base, key: key, runs: o.Runs, duration: o.Duration, drain: o.Drain,
		client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2 * o.Clients}}}
	rep := lt.run(ctx, o.Clients, progress)
	rep.Workers = o.Workers
	stopped := time.Now()
	stopServer()
	if err := <-served; err != nil {
		return nil, err
	}
	fmt.Fprintf(progress, "server and worker stopped in %s\n", time.Since(stopped).Round(time.Millisecond))
	if err := rep.audit(ctx, pool, lt.accepted()); err != nil {
		return nil, err
	}
	return rep, nil
}

// ingestForLoad ingests the filings for the load test's tenant; sources
// that fail (a PDF without pdftotext) are reported and skipped.
func ingestForLoad(ctx context.Context, pool *pgxpool.Pool, entries []corpus.ManifestEntry, emb corpus.Embedder, stderr io.Writer) error {
	store, err := pgstore.New(pool, &pgstore.Config{Tenant: loadTenant})
	if err != nil {
		return err
	}
	in, err := corpus.NewIngester(store, emb)
	if err != nil {
		return err
	}
	rep, err := in.Ingest(ctx, entries, nil)
	if err != nil {
		return err
	}
	if err := rep.Err(); err != nil {
		fmt.Fprintf(stderr, "some sources were not ingested: %v\n", err)
	}
	stats, err := store.Stats(ctx)
	if err != nil {
		return err
	}
	if stats.Documents == 0 {
		return errors.New("no document was ingested: check --manifest")
	}
	fmt.Fprintf(stderr, "ingested %d documents\n", stats.Documents)
	return nil
}

// loadTest is one load test's clients against a server.
type loadTest struct {
	base, key string
	runs      int
	duration  time.Duration
	drain     time.Duration
	client    *http.Client

	next atomic.Int64

	mu       sync.Mutex
	ids      []string        // guarded by mu: accepted runs
	submit   []time.Duration // guarded by mu: POST latencies of accepted runs
	latency  []time.Duration // guarded by mu: submit to verdict
	statuses map[string]int  // guarded by mu
	errs     map[string]int  // guarded by mu: what went wrong, by kind
	first    time.Time       // guarded by mu: first submission
	last     time.Time       // guarded by mu: last verdict
	// streamWaits counts event streams refused because the key held as
	// many as the server allows; guarded by mu.
	streamWaits int
}

// LoadReport is what RunLoad measured.
type LoadReport struct {
	Clients    int            `json:"clients"`
	Workers    int            `json:"workers"`
	Submitted  int            `json:"submitted"`
	Accepted   int            `json:"accepted"`
	Completed  int            `json:"completed"` // verdicts the clients saw
	Errors     int            `json:"errors"`
	ErrorKinds map[string]int `json:"error_kinds,omitempty"`
	Lost       int            `json:"lost"` // accepted runs the ledger holds no verdict (or no answer to a verdict) of
	Duplicates int            `json:"duplicate_run_ids"`
	// StreamWaits counts event streams the server refused (429) because
	// the key held its limit of open streams; the client waited and
	// opened it again.
	StreamWaits int            `json:"stream_waits"`
	WallMS      int64          `json:"wall_ms"` // first submission to last verdict
	RunsPerSec  float64        `json:"runs_per_second"`
	Submit      Latency        `json:"submit_latency"`
	Run         Latency        `json:"run_latency"` // submission to verdict
	Statuses    map[string]int `json:"statuses"`
	Settled     string         `json:"settled_spend_usd"`
}

func (lt *loadTest) accepted() []string {
	lt.mu.Lock()
	defer lt.mu.Unlock()
	return slices.Clone(lt.ids)
}

func (lt *loadTest) fail(kind string) {
	lt.mu.Lock()
	defer lt.mu.Unlock()
	lt.errs[kind]++
}

// run starts the clients and waits for them.
func (lt *loadTest) run(ctx context.Context, clients int, progress io.Writer) *LoadReport {
	lt.statuses, lt.errs = map[string]int{}, map[string]int{}
	start := time.Now()
	stopSubmitting := start.Add(lt.duration)
	ctx, cancel := context.WithDeadline(ctx, stopSubmitting.Add(lt.drain))
	defer cancel()
	var wg sync.WaitGroup
	var submitted atomic.Int64
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(5 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				lt.mu.Lock()
				fmt.Fprintf(progress, "%s: %d submitted, %d verdicts\n", time.Since(start).Round(time.Second), submitted.Load(), len(lt.latency))
				lt.mu.Unlock()
			}
		}
	}()
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil && time.Now().Before(stopSubmitting) {
				i := lt.next.Add(1) - 1
				if i >= int64(lt.runs) {
					return
				}
				submitted.Add(1)
				lt.one(ctx, int(i))
			}
		}()
	}
	wg.Wait()
	close(done)
	lt.mu.Lock()
	defer lt.mu.Unlock()
	rep := &LoadReport{
		Clients: clients, Submitted: int(submitted.Load()), Accepted: len(lt.ids), Completed: len(lt.latency),
		ErrorKinds: lt.errs, Statuses: lt.statuses, StreamWaits: lt.streamWaits,
		Submit: Summarize(lt.submit), Run: Summarize(lt.latency),
	}
	for _, n := range lt.errs {
		rep.Errors += n
	}
	if !lt.first.IsZero() && lt.last.After(lt.first) {
		wall := lt.last.Sub(lt.first)
		rep.WallMS = wall.Milliseconds()
		rep.RunsPerSec = float64(rep.Completed) / wall.Seconds()
	}
	return rep
}

// one submits run i and follows it to its verdict.
func (lt *loadTest) one(ctx context.Context, i int) {
	body, _ := json.Marshal(map[string]any{
		"question": loadQuestions[i%len(loadQuestions)], "mode": "rules", "idempotency_key": fmt.Sprintf("load-%d", i),
	})
	t0 := time.Now()
	lt.mu.Lock()
	if lt.first.IsZero() {
		lt.first = t0
	}
	lt.mu.Unlock()
	req, err := http.NewRequestWithContext(ctx, "POST", lt.base+"/v1/runs", bytes.NewReader(body))
	if err != nil {
		lt.fail("request")
		return
	}
	req.Header.Set("Authorization", "Bearer "+lt.key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := lt.client.Do(req)
	if err != nil {
		lt.fail("submit: " + errKind(ctx, err))
		return
	}
	var acc struct {
		RunID string `json:"run_id"`
	}
	err = json.NewDecoder(resp.Body).Decode(&acc)
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted || err != nil || acc.RunID == "" {
		lt.fail(fmt.Sprintf("submit: HTTP %d", resp.StatusCode))
		return
	}
	took := time.Since(t0)
	lt.mu.Lock()
	lt.ids = append(lt.ids, acc.RunID)
	lt.submit = append(lt.submit, took)
	lt.mu.Unlock()

	status, err := lt.follow(ctx, acc.RunID)
	if err != nil {
		lt.fail("follow: " + errKind(ctx, err))
		return
	}
	now := time.Now()
	lt.mu.Lock()
	lt.latency = append(lt.latency, now.Sub(t0))
	lt.statuses[status]++
	if now.After(lt.last) {
		lt.last = now
	}
	lt.mu.Unlock()
}

// follow reads the run's event stream until its result, reconnecting
// after the last event seen if the stream ends early, and returns the
// run's status.
func (lt *loadTest) follow(ctx context.Context, id string) (string, error) {
	last := ""
	for attempt := 0; ; attempt++ {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return "", ctx.Err()
			case <-time.After(100 * time.Millisecond):
			}
		}
		req, err := http.NewRequestWithContext(ctx, "GET", lt.base+"/v1/runs/"+id+"/events", nil)
		if err != nil {
			return "", err
		}
		req.Header.Set("Authorization", "Bearer "+lt.key)
		if last != "" {
			req.Header.Set("Last-Event-ID", last)
		}
		resp, err := lt.client.Do(req)
		if err != nil {
			if ctx.Err() != nil {
				return "", err
			}
			continue
		}
		if resp.StatusCode == http.StatusTooManyRequests {
			// The key holds as many streams as the server allows it
			// (server.Config.MaxStreamsPerKey): wait for one to close, as
			// a well-behaved client does.
			resp.Body.Close()
			lt.mu.Lock()
			lt.streamWaits++
			lt.mu.Unlock()
			continue
		}
		if resp.StatusCode != http.StatusOK {
			resp.Body.Close()
			return "", fmt.Errorf("events: HTTP %d", resp.StatusCode)
		}
		// A stream that ends early (a read error, a server closing it) is
		// resumed after the last event read.
		status, lastRead, _ := readResult(resp.Body, last)
		resp.Body.Close()
		if status != "" {
			return status, nil
		}
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		last = lastRead
	}
}

// readResult reads an event stream until its result event and returns the
// result's status, or the id of the last event read when the stream ended
// first.
func readResult(body io.Reader, last string) (status, lastID string, err error) {
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 64<<10), 8<<20)
	event, data := "", ""
	lastID = last
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if event == "result" {
				var r struct {
					Status string `json:"status"`
				}
				if err := json.Unmarshal([]byte(data), &r); err != nil {
					return "", lastID, err
				}
				return r.Status, lastID, nil
			}
			event, data = "", ""
		case strings.HasPrefix(line, "id: "):
			lastID = strings.TrimPrefix(line, "id: ")
		case strings.HasPrefix(line, "event: "):
			event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			data += strings.TrimPrefix(line, "data: ")
		}
	}
	return "", lastID, sc.Err()
}

func errKind(ctx context.Context, err error) string {
	switch {
	case ctx.Err() != nil:
		return "out of time"
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	}
	return "connection"
}

// audit checks in the ledger that every accepted run reached a verdict and
// recorded its answer, once, and sums the tenant's settled spend.
func (rep *LoadReport) audit(ctx context.Context, pool *pgxpool.Pool, ids []string) error {
	led, err := pgledger.New(pool, &pgledger.Config{Tenant: loadTenant})
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			rep.Duplicates++
			continue
		}
		seen[id] = true
		run, err := led.Run(ctx, id)
		if err != nil {
			rep.Lost++
			continue
		}
		if !run.Status.Terminal() {
			rep.Lost++
			continue
		}
		// A failed run stopped on an error and has no answer; any other
		// verdict must have recorded one.
		if _, ok, err := executor.RecordedResult(ctx, led, id); run.Status != ledger.StatusFailed && (err != nil || !ok) {
			rep.Lost++
		}
	}
	var spend decimal.Decimal
	if err := pool.QueryRow(ctx, `SELECT coalesce(sum(settled_spend_usd), 0) FROM budgets WHERE tenant_id = $1 AND scope_kind = 'run'`, loadTenant).Scan(&spend); err != nil {
		return err
	}
	rep.Settled = spend.String()
	return nil
}

// WriteText writes the report as text: counts, throughput and a table of
// latency percentiles.
func (rep *LoadReport) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "Load test: rules mode, %d clients, %d worker slots, loopback\n\n", rep.Clients, rep.Workers)
	fmt.Fprintf(w, "submitted %d, accepted %d, verdicts %d, errors %d, lost %d, duplicate run ids %d, streams waited for %d\n",
		rep.Submitted, rep.Accepted, rep.Completed, rep.Errors, rep.Lost, rep.Duplicates, rep.StreamWaits)
	if len(rep.ErrorKinds) > 0 {
		kinds := make([]string, 0, len(rep.ErrorKinds))
		for k, n := range rep.ErrorKinds {
			kinds = append(kinds, fmt.Sprintf("%s: %d", k, n))
		}
		sort.Strings(kinds)
		fmt.Fprintf(w, "errors by kind: %s\n", strings.Join(kinds, ", "))
	}
	fmt.Fprintf(w, "wall %.1f s (first submission to last verdict), %.2f runs/s\n", float64(rep.WallMS)/1000, rep.RunsPerSec)
	fmt.Fprintf(w, "settled spend %s USD\n\n", rep.Settled)
	fmt.Fprintln(w, "| latency | n | p50 ms | p95 ms | p99 ms | max ms |")
	fmt.Fprintln(w, "| --- | --- | --- | --- | --- | --- |")
	for _, row := range []struct {
		name string
		l    Latency
	}{{"submit (POST /v1/runs)", rep.Submit}, {"run (submit to verdict)", rep.Run}} {
		fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %s |\n", row.name, row.l.N, msText(row.l.P50), msText(row.l.P95), msText(row.l.P99), msText(row.l.Max))
	}
	statuses := make([]string, 0, len(rep.Statuses))
	for s, n := range rep.Statuses {
		statuses = append(statuses, fmt.Sprintf("%s %d", s, n))
	}
	sort.Strings(statuses)
	fmt.Fprintf(w, "\nverdicts: %s\n", strings.Join(statuses, ", "))
	return nil
}

// msText writes d in milliseconds with one decimal.
func msText(d time.Duration) string {
	return strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 1, 64)
}
