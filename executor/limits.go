package executor

import (
	"context"
	"sync"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/ledgerline/research/tools"
)

// Providers whose concurrency the executor bounds. Each tool belongs to
// one; model calls belong to ProviderLLM.
const (
	ProviderLLM     = "llm"     // model calls
	ProviderSearch  = "search"  // search_filings, read_chunks, read_surrounding
	ProviderFacts   = "facts"   // lookup_fact
	ProviderCompute = "compute" // calculate
)

// DefaultConcurrency are the per-provider semaphore sizes used when the
// configuration names none.
var DefaultConcurrency = map[string]int{
	ProviderLLM:     4,
	ProviderSearch:  8,
	ProviderFacts:   8,
	ProviderCompute: 8,
}

// DefaultTenantConcurrency bounds the calls one tenant runs at once across
// all of its runs in a process.
const DefaultTenantConcurrency = 16

func providerOf(tool string) string {
	switch tool {
	case tools.LookupFact:
		return ProviderFacts
	case tools.Calculate:
		return ProviderCompute
	}
	return ProviderSearch
}

// Limiter holds the per-provider semaphores and one semaphore per tenant.
// One Limiter shared by the engines of a process (Config.Limiter) bounds
// the calls to each provider for the whole process, with each tenant's
// share on top; an engine without one has a Limiter of its own.
type Limiter struct {
	providers   map[string]*semaphore.Weighted
	tenantLimit int64

	mu      sync.Mutex
	tenants map[string]*semaphore.Weighted
}

// NewLimiter returns a Limiter with the given per-provider sizes (missing
// ones from DefaultConcurrency) and per-tenant size (0 means
// DefaultTenantConcurrency).
func NewLimiter(sizes map[string]int, tenantLimit int) *Limiter {
	l := &Limiter{providers: map[string]*semaphore.Weighted{}, tenants: map[string]*semaphore.Weighted{}}
	for p, n := range DefaultConcurrency {
		if v, ok := sizes[p]; ok && v > 0 {
			n = v
		}
		l.providers[p] = semaphore.NewWeighted(int64(n))
	}
	for p, n := range sizes {
		if _, ok := l.providers[p]; !ok && n > 0 {
			l.providers[p] = semaphore.NewWeighted(int64(n))
		}
	}
	if tenantLimit <= 0 {
		tenantLimit = DefaultTenantConcurrency
	}
	l.tenantLimit = int64(tenantLimit)
	return l
}

func (l *Limiter) tenant(t string) *semaphore.Weighted {
	l.mu.Lock()
	defer l.mu.Unlock()
	s, ok := l.tenants[t]
	if !ok {
		s = semaphore.NewWeighted(l.tenantLimit)
		l.tenants[t] = s
	}
	return s
}

// acquire takes a slot of the tenant's semaphore and then of the
// provider's, and returns how long it waited and the function that gives
// both back.
func (l *Limiter) acquire(ctx context.Context, tenant, provider string) (time.Duration, func(), error) {
	start := time.Now()
	ts := l.tenant(tenant)
	if err := ts.Acquire(ctx, 1); err != nil {
		return time.Since(start), nil, err
	}
	ps := l.providers[provider]
	if ps == nil {
		ps = l.providers[ProviderSearch]
	}
	if err := ps.Acquire(ctx, 1); err != nil {
		ts.Release(1)
		return time.Since(start), nil, err
	}
	return time.Since(start), func() { ps.Release(1); ts.Release(1) }, nil
}
