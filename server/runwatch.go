package server

import (
	"context"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// runWatch is the one poller of a server's event streams: every interval,
// while any stream is open, one read (one query, in Postgres) takes the
// last event and the status of every run a stream follows, and the
// streams whose run changed are woken to read it. An idle stream costs
// the database nothing; N streams cost one query per interval, not N.
type runWatch struct {
	read     marksFunc
	interval time.Duration

	mu sync.Mutex
	// Guarded by mu.
	subs    map[runKey]map[chan struct{}]struct{}
	marks   map[runKey]runMark
	running bool // the polling goroutine is running
}

type runKey struct{ tenant, run string }

// runMark is what a poll reads of a run: when it changes, its streams wake.
type runMark struct {
	lastSeq int64
	status  string
}

// marksFunc reads the marks of the runs of tenants[i] and runs[i].
type marksFunc func(ctx context.Context, tenants, runs []string) (map[runKey]runMark, error)

func newRunWatch(read marksFunc, interval time.Duration) *runWatch {
	return &runWatch{read: read, interval: interval, subs: map[runKey]map[chan struct{}]struct{}{}, marks: map[runKey]runMark{}}
}

// watch returns a channel that receives when the tenant's run has a new
// event or a new status, and the function that stops the watch. The
// polling goroutine runs while any watch is open.
func (w *runWatch) watch(tenant, run string) (<-chan struct{}, func()) {
	k := runKey{tenant, run}
	c := make(chan struct{}, 1)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.subs[k] == nil {
		w.subs[k] = map[chan struct{}]struct{}{}
	}
	w.subs[k][c] = struct{}{}
	if !w.running {
		w.running = true
		go w.poll()
	}
	return c, func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		delete(w.subs[k], c)
		if len(w.subs[k]) == 0 {
			delete(w.subs, k)
			delete(w.marks, k)
		}
	}
}

// marksSQL reads, for each (tenant, run) given, its last event's seq and
// its status.
const marksSQL = `
SELECT k.tenant_id, k.run_id,
	coalesce((SELECT max(e.seq) FROM run_events e WHERE e.tenant_id = k.tenant_id AND e.run_id = k.run_id), 0),
	coalesce((SELECT r.status FROM runs r WHERE r.tenant_id = k.tenant_id AND r.id = k.run_id), '')
FROM unnest($1::text[], $2::text[]) AS k(tenant_id, run_id)`

// poll reads the watched runs' marks every interval and wakes the watches
// of those that changed, until no watch is open.
func (w *runWatch) poll() {
	t := time.NewTicker(w.interval)
	defer t.Stop()
	for range t.C {
		w.mu.Lock()
		if len(w.subs) == 0 {
			w.running = false
			w.mu.Unlock()
			return
		}
		tenants := make([]string, 0, len(w.subs))
		runs := make([]string, 0, len(w.subs))
		for k := range w.subs {
			tenants, runs = append(tenants, k.tenant), append(runs, k.run)
		}
		w.mu.Unlock()

		ctx, cancel := context.WithTimeout(context.Background(), max(w.interval*4, 2*time.Second))
		marks, err := w.read(ctx, tenants, runs)
		cancel()
		if err != nil {
			continue // the streams' own reads report a database that is down
		}
		w.mu.Lock()
		for k, m := range marks {
			if old, ok := w.marks[k]; ok && old == m {
				continue
			}
			if _, watched := w.subs[k]; !watched {
				continue
			}
			w.marks[k] = m
			for c := range w.subs[k] {
				select {
				case c <- struct{}{}:
				default: // already woken
				}
			}
		}
		w.mu.Unlock()
	}
}

// poolMarks reads the marks from Postgres, in one query.
func poolMarks(pool *pgxpool.Pool) marksFunc {
	return func(ctx context.Context, tenants, runs []string) (map[runKey]runMark, error) {
		rows, err := pool.Query(ctx, marksSQL, tenants, runs)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		out := map[runKey]runMark{}
		for rows.Next() {
			var k runKey
			var m runMark
			if err := rows.Scan(&k.tenant, &k.run, &m.lastSeq, &m.status); err != nil {
				return nil, err
			}
			out[k] = m
		}
		return out, rows.Err()
	}
}
