package engine

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// A process over Postgres sweeps every minute unless told otherwise, and
// not at all with a negative interval; without Postgres it has nothing to
// sweep. The pool never connects: nothing here reaches a database.
func TestSweeperInterval(t *testing.T) {
	pool, err := pgxpool.New(context.Background(), "postgres://nobody@127.0.0.1:1/none")
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	tests := []struct {
		name     string
		cfg      Config
		interval time.Duration // 0: no sweeper
	}{
		{"default", Config{Pool: pool}, DefaultBudgetSweepInterval},
		{"set", Config{Pool: pool, BudgetSweepInterval: 10 * time.Second}, 10 * time.Second},
		{"negative", Config{Pool: pool, BudgetSweepInterval: -1}, 0},
		{"embedded", Config{DataDir: t.TempDir()}, 0},
	}
	for _, tt := range tests {
		p, err := New(&tt.cfg)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		switch {
		case tt.interval == 0 && p.sweeper != nil:
			t.Errorf("%s: a sweeper runs every %s; want none", tt.name, p.sweeper.interval)
		case tt.interval != 0 && p.sweeper == nil:
			t.Errorf("%s: no sweeper; want one every %s", tt.name, tt.interval)
		case tt.interval != 0 && p.sweeper.interval != tt.interval:
			t.Errorf("%s: a sweeper every %s; want %s", tt.name, p.sweeper.interval, tt.interval)
		}
		// Close stops the sweeper and waits for it.
		if err := p.Close(); err != nil {
			t.Fatalf("%s: Close: %v", tt.name, err)
		}
		if p.sweeper != nil {
			select {
			case <-p.sweeper.done:
			default:
				t.Errorf("%s: the sweeper still runs after Close", tt.name)
			}
		}
	}
}

// A sweep that fails (the database unreachable) is logged, and tried
// again at the next tick; the sweeper keeps running until Close.
func TestSweeperRetriesFailures(t *testing.T) {
	pool, err := pgxpool.New(context.Background(), "postgres://nobody@127.0.0.1:1/none?connect_timeout=1")
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	warnings := make(chan slog.Record, 16)
	p, err := New(&Config{Pool: pool, BudgetSweepInterval: time.Millisecond, Logger: slog.New(recordHandler(warnings))})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	timeout := time.After(10 * time.Second)
	for i := range 2 {
		select {
		case r := <-warnings:
			if r.Level != slog.LevelWarn || !strings.Contains(r.Message, "retried at the next sweep") {
				t.Fatalf("logged %s %q; want a warning that the sweep is retried", r.Level, r.Message)
			}
		case <-timeout:
			t.Fatalf("%d failed sweeps logged within 10s; want 2", i)
		}
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
}

// recordHandler sends what is logged to ch, dropping it when ch is full.
type recordHandler chan<- slog.Record

func (h recordHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h recordHandler) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h recordHandler) WithGroup(string) slog.Handler            { return h }
func (h recordHandler) Handle(_ context.Context, r slog.Record) error {
	select {
	case h <- r:
	default:
	}
	return nil
}
