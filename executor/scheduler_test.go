package executor

import (
	"context"
	"errors"
	"fmt"
	"github.com/ledgerline/research/tools"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ledgerline/research/planner"
)

func node(id string, deps ...string) planner.Node {
	return planner.Node{ID: id, Tool: "search_filings", DependsOn: deps}
}

func TestRunGraphOrderAndSkips(t *testing.T) {
	tests := []struct {
		name    string
		nodes   []planner.Node
		fail    map[string]bool
		haltAt  string // halt once this node finished
		ran     []string
		skipped []string
	}{
		{
			name:  "chain runs in order",
			nodes: []planner.Node{node("c", "b"), node("a"), node("b", "a")},
			ran:   []string{"a", "b", "c"},
		},
		{
			name:    "a failed dependency skips its dependents only",
			nodes:   []planner.Node{node("a"), node("b", "a"), node("c", "b"), node("d")},
			fail:    map[string]bool{"a": true},
			ran:     []string{"a", "d"},
			skipped: []string{"b", "c"},
		},
		{
			name:    "halt stops new nodes",
			nodes:   []planner.Node{node("a"), node("b", "a"), node("c", "b")},
			haltAt:  "a",
			ran:     []string{"a"},
			skipped: []string{"b", "c"},
		},
		{
			name:    "a cycle is skipped, not waited on",
			nodes:   []planner.Node{node("a"), node("b", "c"), node("c", "b")},
			ran:     []string{"a"},
			skipped: []string{"b", "c"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			var ran, skipped []string
			halted := false
			finished := map[string]bool{}
			run := func(ctx context.Context, n planner.Node) error {
				mu.Lock()
				defer mu.Unlock()
				for _, d := range n.DependsOn {
					if !finished[d] {
						t.Errorf("%s started before its dependency %s finished", n.ID, d)
					}
				}
				ran = append(ran, n.ID)
				finished[n.ID] = true
				if n.ID == tt.haltAt {
					halted = true
				}
				if tt.fail[n.ID] {
					return errors.New("source down")
				}
				return nil
			}
			skip := func(n planner.Node, reason string) {
				mu.Lock()
				defer mu.Unlock()
				if reason == "" {
					t.Errorf("%s skipped without a reason", n.ID)
				}
				skipped = append(skipped, n.ID)
			}
			halt := func() bool { mu.Lock(); defer mu.Unlock(); return halted }
			if err := runGraph(context.Background(), tt.nodes, run, skip, halt); err != nil {
				t.Fatal(err)
			}
			slices.Sort(ran)
			slices.Sort(skipped)
			if !slices.Equal(ran, tt.ran) || !slices.Equal(skipped, tt.skipped) {
				t.Errorf("ran %v skipped %v; want ran %v skipped %v", ran, skipped, tt.ran, tt.skipped)
			}
		})
	}
}

// TestRunGraphRunsIndependentNodesConcurrently holds every root node until
// all of them have started: it can only pass if they run at once.
func TestRunGraphRunsIndependentNodesConcurrently(t *testing.T) {
	const roots = 5
	nodes := []planner.Node{}
	for i := range roots {
		nodes = append(nodes, node(fmt.Sprintf("r%d", i)))
	}
	nodes = append(nodes, node("join", "r0", "r1", "r2", "r3", "r4"))
	var wg sync.WaitGroup
	wg.Add(roots)
	all := make(chan struct{})
	go func() { wg.Wait(); close(all) }()
	run := func(ctx context.Context, n planner.Node) error {
		if n.ID == "join" {
			return nil
		}
		wg.Done()
		select {
		case <-all:
			return nil
		case <-time.After(10 * time.Second):
			return errors.New("the other roots never started")
		}
	}
	if err := runGraph(context.Background(), nodes, run, func(planner.Node, string) {}, func() bool { return false }); err != nil {
		t.Fatal(err)
	}
}

func TestRunGraphStopsOnFatal(t *testing.T) {
	nodes := []planner.Node{node("a"), node("b", "a")}
	run := func(ctx context.Context, n planner.Node) error {
		return &fatalError{errors.New("ledger down")}
	}
	var skipped []string
	err := runGraph(context.Background(), nodes, run, func(n planner.Node, _ string) { skipped = append(skipped, n.ID) }, func() bool { return false })
	if err == nil || err.Error() != "ledger down" {
		t.Fatalf("err = %v; want the fatal error", err)
	}
	if !slices.Equal(skipped, []string{"b"}) {
		t.Errorf("skipped %v; want [b]", skipped)
	}
}

func TestCriticalPath(t *testing.T) {
	nodes := []planner.Node{node("a"), node("b", "a"), node("c", "a"), node("d", "b", "c"), node("e")}
	if got := criticalPath(nodes, func(planner.Node) float64 { return 1 }); got != 3 {
		t.Errorf("critical path = %v; want 3", got)
	}
}

// layeredGraph returns a random DAG of n nodes in about sqrt(n) layers,
// each node depending on one to three nodes of earlier layers.
func layeredGraph(n int, seed uint64) []planner.Node {
	r := rand.New(rand.NewPCG(seed, seed))
	width := 1
	for width*width < n {
		width++
	}
	nodes := make([]planner.Node, 0, n)
	for i := range n {
		nd := node(fmt.Sprintf("n%d", i))
		layer := i / width
		if layer > 0 {
			for range 1 + r.IntN(3) {
				d := r.IntN(layer * width)
				id := fmt.Sprintf("n%d", d)
				if !slices.Contains(nd.DependsOn, id) {
					nd.DependsOn = append(nd.DependsOn, id)
				}
			}
		}
		nodes = append(nodes, nd)
	}
	return nodes
}

// BenchmarkGraphSchedule runs task graphs of 10, 50 and 200 nodes against
// a simulated provider whose every call takes a fixed latency, twice: with
// semaphores wide enough for the graph ("concurrent") and with one slot
// ("serial", the nodes one after another as a tool-loop agent runs them).
// It reports wall time over the graph's critical path (1.0 is perfect).
func BenchmarkGraphSchedule(b *testing.B) {
	const latency = 20 * time.Millisecond
	for _, n := range []int{10, 50, 200} {
		nodes := layeredGraph(n, uint64(n))
		critical := time.Duration(criticalPath(nodes, func(planner.Node) float64 { return 1 })) * latency
		for _, mode := range []struct {
			name  string
			slots int
		}{{"concurrent", n}, {"serial", 1}} {
			b.Run(fmt.Sprintf("nodes=%d/%s", n, mode.name), func(b *testing.B) {
				lim := NewLimiter(map[string]int{ProviderSearch: mode.slots}, mode.slots)
				run := func(ctx context.Context, nd planner.Node) error {
					_, release, err := lim.acquire(ctx, "bench", ProviderSearch)
					if err != nil {
						return err
					}
					defer release()
					time.Sleep(latency)
					return nil
				}
				var total time.Duration
				for b.Loop() {
					start := time.Now()
					if err := runGraph(context.Background(), nodes, run, func(planner.Node, string) {}, func() bool { return false }); err != nil {
						b.Fatal(err)
					}
					total += time.Since(start)
				}
				wall := total / time.Duration(b.N)
				b.ReportMetric(float64(wall)/float64(critical), "wall/critical")
				b.ReportMetric(float64(critical)/float64(time.Millisecond), "critical-ms")
				b.ReportMetric(float64(wall)/float64(time.Millisecond), "wall-ms")
			})
		}
	}
}

// Retries wait Base doubled per retry, at most Max, with the upper half
// random; a Retry-After hint is waited for whole, up to Max.
func TestRetryBackoffJitter(t *testing.T) {
	p := RetryPolicy{Base: 100 * time.Millisecond, Max: 2 * time.Second}.withDefaults()
	seen := map[time.Duration]bool{}
	for range 200 {
		for attempt, full := range map[int]time.Duration{1: 100 * time.Millisecond, 2: 200 * time.Millisecond, 3: 400 * time.Millisecond, 10: 2 * time.Second} {
			d := p.backoff(attempt, 0)
			if d < full/2 || d > full {
				t.Fatalf("backoff(%d) = %s; want within [%s, %s]", attempt, d, full/2, full)
			}
			if attempt == 1 {
				seen[d] = true
			}
		}
		if d := p.backoff(1, time.Second); d != time.Second {
			t.Fatalf("backoff with a 1s hint = %s; want the hint", d)
		}
		if d := p.backoff(1, time.Minute); d != 2*time.Second {
			t.Fatalf("backoff with a 1m hint = %s; want Max", d)
		}
	}
	if len(seen) < 10 {
		t.Errorf("%d distinct first backoffs in 200 tries: no jitter", len(seen))
	}
}

// TestRetryBackoff holds the backoff exactly, with the jitter drawn from
// a fixed source: "low" draws nothing (the delay's kept half), "high" the
// most it may (the whole delay).
func TestRetryBackoff(t *testing.T) {
	low := func(time.Duration) time.Duration { return 0 }
	high := func(n time.Duration) time.Duration { return n - 1 }
	const ms = time.Millisecond
	tests := []struct {
		name    string
		policy  RetryPolicy
		attempt int
		hint    time.Duration
		want    time.Duration
	}{
		{"first retry, low", RetryPolicy{Rand: low}, 1, 0, 50 * ms},
		{"first retry, high", RetryPolicy{Rand: high}, 1, 0, 100 * ms},
		{"third retry doubles twice", RetryPolicy{Rand: high}, 3, 0, 400 * ms},
		{"third retry, low", RetryPolicy{Rand: low}, 3, 0, 200 * ms},
		{"capped at Max, high", RetryPolicy{Rand: high}, 10, 0, 2 * time.Second},
		{"capped at Max, low", RetryPolicy{Rand: low}, 10, 0, time.Second},
		{"no overflow far out", RetryPolicy{Rand: high}, 200, 0, 2 * time.Second},
		{"no overflow far out, low", RetryPolicy{Rand: low}, 70, 0, time.Second},
		{"Base above Max", RetryPolicy{Base: 5 * time.Second, Rand: high}, 1, 0, 2 * time.Second},
		{"own Base and Max", RetryPolicy{Base: 10 * ms, Max: 25 * ms, Rand: high}, 2, 0, 20 * ms},
		{"own Base and Max, capped", RetryPolicy{Base: 10 * ms, Max: 25 * ms, Rand: low}, 3, 0, 12500 * time.Microsecond},
		{"a nanosecond has no jitter", RetryPolicy{Base: 1, Rand: high}, 1, 0, 1},
		{"Retry-After above the jittered wait is the floor", RetryPolicy{Rand: low}, 1, 700 * ms, 700 * ms},
		{"Retry-After below the jittered wait", RetryPolicy{Rand: high}, 2, 10 * ms, 200 * ms},
		{"Retry-After is cut to Max", RetryPolicy{Rand: low}, 1, time.Minute, 2 * time.Second},
		{"a source below range", RetryPolicy{Rand: func(time.Duration) time.Duration { return -time.Hour }}, 1, 0, 50 * ms},
		{"a source above range", RetryPolicy{Rand: func(time.Duration) time.Duration { return time.Hour }}, 1, 0, 100 * ms},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.policy.withDefaults().backoff(tt.attempt, tt.hint); got != tt.want {
				t.Errorf("backoff(%d, %s) = %s, want %s", tt.attempt, tt.hint, got, tt.want)
			}
		})
	}

	var asked []time.Duration
	p := RetryPolicy{Rand: func(n time.Duration) time.Duration { asked = append(asked, n); return 0 }}.withDefaults()
	p.backoff(1, 0)
	p.backoff(3, 0)
	if want := []time.Duration{50*ms + 1, 200*ms + 1}; !slices.Equal(asked, want) {
		t.Errorf("the source was asked for %v, want %v: up to half the delay, inclusive", asked, want)
	}
}

// Engines sharing a Limiter (one process's engines for several tenants)
// share each provider's slots: two tenants' runs together never call a
// provider more often at once than its size.
func TestSharedLimiterBoundsProviders(t *testing.T) {
	for _, shared := range []bool{true, false} {
		var mu sync.Mutex
		inFlight, most := map[string]int{}, map[string]int{}
		count := func(next ToolFunc) ToolFunc {
			return func(ctx context.Context, env *tools.Env, call tools.Call) (*tools.Output, error) {
				p := providerOf(call.Tool)
				mu.Lock()
				inFlight[p]++
				most[p] = max(most[p], inFlight[p])
				mu.Unlock()
				time.Sleep(5 * time.Millisecond)
				defer func() { mu.Lock(); inFlight[p]--; mu.Unlock() }()
				return next(ctx, env, call)
			}
		}
		sizes := map[string]int{ProviderSearch: 1, ProviderFacts: 1, ProviderCompute: 1, ProviderLLM: 1}
		lim := NewLimiter(sizes, 8)
		var engines []*Engine
		for _, tenant := range []string{"acme", "globex"} {
			eng, _ := newEngine(t, func(c *Config) {
				c.Tenant, c.Concurrency, c.Tool = tenant, sizes, count(tools.Run)
				if shared {
					c.Limiter = lim
				}
			})
			engines = append(engines, eng)
		}
		var wg sync.WaitGroup
		for _, eng := range engines {
			wg.Go(func() {
				if _, err := eng.Run(context.Background(), Request{Question: threeIssuers}); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		for p, n := range most {
			if shared && n > 1 {
				t.Errorf("shared limiter: %d %s calls at once across two tenants; want at most 1", n, p)
			}
		}
		if !shared && most[ProviderSearch] < 2 && most[ProviderFacts] < 2 {
			t.Logf("separate limiters happened not to overlap: %v", most)
		}
	}
}
