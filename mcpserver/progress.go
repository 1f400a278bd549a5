package mcpserver

import (
	"context"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ledgerline/research/executor"
)

// ProgressRelay passes the engine's progress steps (the process's
// engine.Hooks.Progress) to the ask calls that wait for them, by tenant
// and run, so each call sends its client MCP progress notifications. The
// zero value is ready to use. It is safe for concurrent use.
type ProgressRelay struct {
	mu sync.Mutex
	// Guarded by mu.
	runs map[runKey]chan executor.Progress
}

type runKey struct{ tenant, runID string }

// progressBuffer is how many steps a call's relay holds for it; past it,
// steps are dropped rather than slow the engine.
const progressBuffer = 256

// NewProgressRelay returns a relay with no calls waiting.
func NewProgressRelay() *ProgressRelay {
	return &ProgressRelay{runs: map[runKey]chan executor.Progress{}}
}

// Hook returns a progress hook for engine.Hooks.Progress that relays
// each step, then calls next (the process's other hook) when it is not
// nil. It never blocks.
func (r *ProgressRelay) Hook(next func(tenant string, p executor.Progress)) func(tenant string, p executor.Progress) {
	return func(tenant string, p executor.Progress) {
		r.relay(tenant, p)
		if next != nil {
			next(tenant, p)
		}
	}
}

func (r *ProgressRelay) relay(tenant string, p executor.Progress) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if ch, ok := r.runs[runKey{tenant, p.RunID}]; ok {
		select {
		case ch <- p:
		default:
		}
	}
}

// subscribe returns the steps of tenant's run runID as they happen;
// stop ends them (the channel is closed once what it holds is read).
func (r *ProgressRelay) subscribe(tenant, runID string) (steps <-chan executor.Progress, stop func()) {
	k := runKey{tenant, runID}
	ch := make(chan executor.Progress, progressBuffer)
	r.mu.Lock()
	if r.runs == nil {
		r.runs = map[runKey]chan executor.Progress{}
	}
	r.runs[k] = ch
	r.mu.Unlock()
	return ch, func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.runs[k] == ch {
			delete(r.runs, k)
			close(ch)
		}
	}
}

// sendProgress sends each step as a progress notification for token,
// numbered from 1, until steps is closed. A step that cannot be sent (the
// client left) is dropped.
func (s *Server) sendProgress(ctx context.Context, ss *mcp.ServerSession, token any, steps <-chan executor.Progress) {
	n := 0
	for p := range steps {
		n++
		if ss == nil || ctx.Err() != nil {
			continue
		}
		err := ss.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
			ProgressToken: token, Progress: float64(n), Message: progressMessage(p),
		})
		if err != nil {
			s.cfg.Logger.Debug("mcp: progress notification", "run_id", p.RunID, "err", err)
		}
	}
}

// progressMessage is the step as the CLI prints it, without the time.
func progressMessage(p executor.Progress) string {
	_, msg, _ := strings.Cut(p.Line(), " ")
	return msg
}
