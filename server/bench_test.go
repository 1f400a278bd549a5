package server

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ledgerline/research/internal/pgtest"
	"github.com/ledgerline/research/jobs"
)

// BenchmarkAuthenticate times the key lookup and the rate-limit check every
// authenticated request makes.
func BenchmarkAuthenticate(b *testing.B) {
	pool := pgtest.Pool(b)
	ts, _ := NewTenants(pool)
	l := DefaultTenantLimits()
	l.RequestsPerMinute = 1 << 30
	_, key, err := ts.Create(context.Background(), "acme", &l)
	if err != nil {
		b.Fatal(err)
	}
	s, err := New(pool, nil)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := s.authenticate(context.Background(), key); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCreateRun times POST /v1/runs through the handler: the key, the
// admission under the limits and jobs.Submit, with no worker taking the
// runs. The sub-benchmark "admission" is the limits' share alone.
func BenchmarkCreateRun(b *testing.B) {
	pool := pgtest.Pool(b)
	ingestFixture(b, pool, "acme", acmeFiling)
	ts, _ := NewTenants(pool)
	l := DefaultTenantLimits()
	l.RequestsPerMinute, l.DailyRuns, l.MaxConcurrentRuns = 1<<30, 1<<30, 1<<30
	_, key, err := ts.Create(context.Background(), "acme", &l)
	if err != nil {
		b.Fatal(err)
	}
	s, err := New(pool, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("handler", func(b *testing.B) {
		i := 0
		for b.Loop() {
			i++
			body := fmt.Sprintf(`{"question": %q, "idempotency_key": "b-%d"}`, acmeQuestion, i)
			req, _ := http.NewRequest("POST", "/v1/runs", strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+key)
			w := httptest.NewRecorder()
			s.Handler().ServeHTTP(w, req)
			if w.Code != http.StatusAccepted {
				b.Fatalf("= %d %s", w.Code, w.Body)
			}
		}
	})
	p, err := s.authenticate(context.Background(), key)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("admission", func(b *testing.B) {
		i := 0
		for b.Loop() {
			i++
			a, err := s.admit(context.Background(), p, "rules", fmt.Sprintf("a-%d", i))
			if err != nil {
				b.Fatal(err)
			}
			if err := s.recordAdmission(context.Background(), "acme", a, fmt.Sprintf("run-a-%d", i)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("jobs.Submit", func(b *testing.B) {
		for b.Loop() {
			if _, err := jobs.Submit(context.Background(), pool, "acme", jobs.Submission{Question: acmeQuestion}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
