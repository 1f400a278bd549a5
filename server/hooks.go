package server

import (
	"context"
	"log/slog"
	"time"

	"github.com/ledgerline/research/engine"
	"github.com/ledgerline/research/executor"
	"github.com/ledgerline/research/ledger"
)

// RunHooks are the hooks a process's engines (engine.Config.Hooks) feed
// the API's metrics and logs with: run durations and verdicts, spend,
// tokens, budget refusals and swept reservations counted in m, and each
// step of a run logged to log with its run id and tenant. A nil m counts
// nothing; a nil log logs nothing.
func RunHooks(m *Metrics, log *slog.Logger) engine.Hooks {
	var h engine.Hooks
	if m != nil {
		h.Ledger = func(tenant string, l ledger.Store) ledger.Store {
			return &meteredLedger{Store: l, m: m, tenant: tenant, now: time.Now}
		}
		h.Budget = func(_ string, a executor.Accountant) executor.Accountant {
			return &meteredAccountant{Accountant: a, m: m}
		}
		h.Swept = func(_ string, n int) { m.budgetSwept.Add(float64(n)) }
	}
	if m != nil || log != nil {
		h.Progress = func(tenant string, p executor.Progress) {
			if m != nil {
				m.progress(p)
			}
			if log != nil {
				logProgress(log, tenant, p)
			}
		}
	}
	return h
}

// logProgress writes one progress step: steps of the run as a whole at
// info, node and model calls at debug, failures and retries at warn.
func logProgress(log *slog.Logger, tenant string, p executor.Progress) {
	level := slog.LevelDebug
	switch p.Kind {
	case "route", "plan", "replan", "synthesis", "finished":
		level = slog.LevelInfo
	case "node_failed", "retry":
		level = slog.LevelWarn
	}
	ctx := context.Background()
	if !log.Enabled(ctx, level) {
		return
	}
	attrs := []slog.Attr{slog.String("run_id", p.RunID), slog.String("tenant", tenant), slog.String("kind", p.Kind)}
	if p.Node != "" {
		attrs = append(attrs, slog.String("node", p.Node))
	}
	if p.Tool != "" {
		attrs = append(attrs, slog.String("tool", p.Tool))
	}
	if p.Duration > 0 {
		attrs = append(attrs, slog.Duration("duration", p.Duration))
	}
	if p.Wait > 0 {
		attrs = append(attrs, slog.Duration("wait", p.Wait))
	}
	if p.Message != "" {
		attrs = append(attrs, slog.String("detail", p.Message))
	}
	log.LogAttrs(ctx, level, "run progress", attrs...)
}
