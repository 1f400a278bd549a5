package server

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ledgerline/research/internal/pgtest"
)

func TestTenants(t *testing.T) {
	t.Parallel()
	pool := pgtest.Pool(t)
	ts, err := NewTenants(pool)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	tenant, key, err := ts.Create(ctx, "acme-research", nil)
	if err != nil {
		t.Fatal(err)
	}
	if tenant.ID != "acme-research" || !limitsEqual(tenant.Limits, DefaultTenantLimits()) || !wellFormedKey(key) {
		t.Errorf("tenant %+v key %q", tenant, key)
	}
	got, err := ts.Get(ctx, "acme-research")
	if err != nil || !limitsEqual(got.Limits, DefaultTenantLimits()) || got.Created.IsZero() {
		t.Errorf("Get = %+v, %v", got, err)
	}
	if got.Limits.RequestsPerMinute != 10 || got.Limits.DailyRuns != 50 {
		t.Errorf("defaults %+v; the issue asks for 10 requests a minute and 50 runs a day", got.Limits)
	}

	// Only the hash is kept.
	var stored int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM api_keys WHERE key_hash = $1 AND prefix = $2`, hashOf(key), key[:keyPrefixLen]).Scan(&stored); err != nil || stored != 1 {
		t.Errorf("hash rows %d (%v)", stored, err)
	}
	var leaked bool
	if err := pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM api_keys WHERE position($1 in encode(key_hash, 'escape')) > 0 OR prefix = $1)`, key).Scan(&leaked); err != nil || leaked {
		t.Errorf("the key itself is stored (%v)", err)
	}

	if _, _, err := ts.Create(ctx, "acme-research", nil); !errors.Is(err, ErrTenantExists) {
		t.Errorf("a second acme-research: %v", err)
	}
	for _, bad := range []string{"", "-acme", "acme corp", "acme/1", strings.Repeat("a", 65)} {
		if _, _, err := ts.Create(ctx, bad, nil); err == nil {
			t.Errorf("tenant %q created", bad)
		}
	}
	badLimits := DefaultTenantLimits()
	badLimits.MaxRunDuration = 1500 * time.Millisecond
	if _, _, err := ts.Create(ctx, "fractional", &badLimits); err == nil || !strings.Contains(err.Error(), "whole seconds") {
		t.Errorf("a fractional run duration: %v", err)
	}

	// Limits change in place.
	l := DefaultTenantLimits()
	l.RequestsPerMinute, l.DailySpendUSD = 120, mustDecimal("12.5")
	if err := ts.SetLimits(ctx, "acme-research", l); err != nil {
		t.Fatal(err)
	}
	if got, _ := ts.Get(ctx, "acme-research"); !limitsEqual(got.Limits, l) {
		t.Errorf("limits after SetLimits %+v", got.Limits)
	}
	if err := ts.SetLimits(ctx, "nobody", l); !errors.Is(err, ErrTenantNotFound) {
		t.Errorf("SetLimits of nobody: %v", err)
	}

	// Keys: a second one, listed by prefix, revoked by prefix.
	key2, err := ts.IssueKey(ctx, "acme-research")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ts.IssueKey(ctx, "nobody"); !errors.Is(err, ErrTenantNotFound) {
		t.Errorf("IssueKey for nobody: %v", err)
	}
	keys, err := ts.Keys(ctx, "acme-research")
	if err != nil || len(keys) != 2 {
		t.Fatalf("Keys = %v, %v", keys, err)
	}
	if err := ts.RevokeKey(ctx, "acme-research", key2[:keyPrefixLen]); err != nil {
		t.Fatal(err)
	}
	if err := ts.RevokeKey(ctx, "acme-research", key); err != nil {
		t.Fatal(err)
	}
	keys, _ = ts.Keys(ctx, "acme-research")
	for _, k := range keys {
		if k.Revoked.IsZero() {
			t.Errorf("key %s not revoked", k.Prefix)
		}
	}
	// Another tenant cannot revoke acme's keys, and nothing matches a
	// fragment.
	if _, _, err := ts.Create(ctx, "globex", nil); err != nil {
		t.Fatal(err)
	}
	if err := ts.RevokeKey(ctx, "globex", key); !errors.Is(err, ErrKeyNotFound) {
		t.Errorf("globex revoked acme's key: %v", err)
	}
	if err := ts.RevokeKey(ctx, "acme-research", "rk_"); !errors.Is(err, ErrKeyNotFound) {
		t.Errorf("a fragment matched: %v", err)
	}
	all, err := ts.List(ctx)
	if err != nil || len(all) != 2 || all[0].Name != "acme-research" {
		t.Errorf("List = %v, %v", all, err)
	}
}

func hashOf(key string) []byte {
	h := HashKey(key)
	return h[:]
}

func limitsEqual(a, b TenantLimits) bool {
	return a.RequestsPerMinute == b.RequestsPerMinute && a.DailyRuns == b.DailyRuns && a.DailySpendUSD.Equal(b.DailySpendUSD) &&
		a.MaxConcurrentRuns == b.MaxConcurrentRuns && a.MaxRunSpendUSD.Equal(b.MaxRunSpendUSD) &&
		a.MaxRunDuration == b.MaxRunDuration && a.MaxRunCalls == b.MaxRunCalls
}

// TestRecreatedTenantSeesNothing deletes a tenant that has filings, a run
// and budgets (with Tenants.Delete, and another with SQL), creates a
// tenant of the same name, and checks the new one reads nothing of the
// old: no run, no ledger, no search result, no budget.
func TestRecreatedTenantSeesNothing(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{})
	ctx := t.Context()
	ingestFixture(t, h.pool, "globex", acmeFiling)
	acmeRun := h.submit(h.acmeKey, map[string]any{"question": acmeQuestion, "mode": "rules"})
	globexRun := h.submit(h.otherKey, map[string]any{"question": acmeQuestion, "mode": "rules"})
	h.waitDone(h.acmeKey, acmeRun)
	h.waitDone(h.otherKey, globexRun)
	if r := h.do("POST", "/v1/search", h.acmeKey, `{"query": "gross margin"}`); !contains(r.body, "ACME") {
		t.Fatalf("the fixture is not searchable: %s", r.body)
	}

	if err := h.tenants.Delete(ctx, "acme"); err != nil {
		t.Fatal(err)
	}
	if err := h.tenants.Delete(ctx, "acme"); !errors.Is(err, ErrTenantNotFound) {
		t.Errorf("deleting a deleted tenant: %v", err)
	}
	if _, err := h.pool.Exec(ctx, `DELETE FROM tenants WHERE id = 'globex'`); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ name, run string }{{"acme", acmeRun}, {"globex", globexRun}} {
		t.Run(tt.name, func(t *testing.T) {
			if r := h.do("GET", "/v1/runs/"+tt.run, map[string]string{"acme": h.acmeKey, "globex": h.otherKey}[tt.name], nil); r.code != http.StatusUnauthorized {
				t.Errorf("the deleted tenant's key = %d, want 401", r.code)
			}
			_, key, err := h.tenants.Create(ctx, tt.name, generous())
			if err != nil {
				t.Fatal(err)
			}
			for _, path := range []string{"/v1/runs/" + tt.run, "/v1/runs/" + tt.run + "/ledger"} {
				if r := h.do("GET", path, key, nil); r.code != http.StatusNotFound {
					t.Errorf("GET %s by the new %s = %d, want 404\n%.300s", path, tt.name, r.code, r.body)
				}
			}
			r := h.do("POST", "/v1/search", key, `{"query": "gross margin"}`)
			if r.code != http.StatusOK || contains(r.body, "ACME") {
				t.Errorf("the new %s search = %d\n%.300s", tt.name, r.code, r.body)
			}
			for _, table := range []string{"documents", "runs", "evidence", "run_events", "budgets", "reservations", "settlements", "run_admissions"} {
				var n int
				if err := h.pool.QueryRow(ctx, `SELECT count(*) FROM `+table+` WHERE tenant_id = $1`, tt.name).Scan(&n); err != nil {
					t.Fatal(err)
				}
				if n != 0 {
					t.Errorf("%d rows of the old %s left in %s", n, tt.name, table)
				}
			}
		})
	}
}
