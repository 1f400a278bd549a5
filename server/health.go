package server

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/ledgerline/research/migrations"
)

// healthz says the process answers; it touches nothing else.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// readyz says whether the server can do its work: the database answers,
// its schema has every migration this binary holds, and the server is not
// shutting down. Its problems name what to do, never the causes' internals
// (those are logged).
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	var problems []string
	if s.isClosing() {
		problems = append(problems, "the server is shutting down")
	}
	ctx, cancel := context.WithTimeout(r.Context(), 3*time.Second)
	defer cancel()
	if err := s.pool.Ping(ctx); err != nil {
		s.log.Warn("readiness: database ping failed", slog.String("request_id", info(r.Context()).id), slog.String("error", err.Error()))
		problems = append(problems, "the database does not answer")
	} else if pending, err := migrations.Pending(ctx, s.pool); err != nil {
		s.log.Warn("readiness: reading the migrations failed", slog.String("request_id", info(r.Context()).id), slog.String("error", err.Error()))
		problems = append(problems, "the database schema cannot be read")
	} else if river, err := migrations.RiverPending(ctx, s.pool); err != nil {
		s.log.Warn("readiness: reading the job queue's migrations failed", slog.String("request_id", info(r.Context()).id), slog.String("error", err.Error()))
		problems = append(problems, "the job queue's schema cannot be read")
	} else if len(pending)+len(river) > 0 {
		problems = append(problems, fmt.Sprintf("the database schema is behind (%d migrations and %d of the job queue pending): run research migrate", len(pending), len(river)))
	}
	if len(problems) > 0 {
		writeJSON(w, http.StatusServiceUnavailable, map[string]any{"status": "not ready", "problems": problems})
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
}
