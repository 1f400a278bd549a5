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
// its schema has every migration this binary holds (for a local server:
// the embedded store can be read), and the server is not shutting down.
// Its problems name what to do, never the causes' internals (those are
// logged).
func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	var problems []string
	if s.isClosing() {
		problems = append(problems, "the server is shutting down")
	}
	ctx, cancel := context.WithTimeout(r.Context(), 3*time.Second)
	defer cancel()
	if s.local != nil {
		if _, err := s.local.t.Store.Stats(ctx); err != nil {
			s.log.Warn("readiness: reading the embedded store failed", slog.String("request_id", info(r.Context()).id), slog.String("error", err.Error()))
			problems = append(problems, "the embedded store cannot be read")
		}
	} else if err := s.pool.Ping(ctx); err != nil {
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

// configView is the JSON of GET /v1/config: what a client needs to know
// of this server before its first request.
type configView struct {
	// Auth is "api_key" (requests carry a tenant's key) or "none" (a
	// local server: every request is its one tenant's).
	Auth string `json:"auth"`
	// Tenant is the local server's tenant; empty with API keys, where the
	// key says.
	Tenant string `json:"tenant,omitempty"`
	// Model says whether model mode is available.
	Model bool `json:"model"`
}

// config answers GET /v1/config, which needs no key: it tells the web app
// whether to ask for one.
func (s *Server) config(w http.ResponseWriter, r *http.Request) {
	v := configView{Auth: "api_key", Model: s.cfg.ModelConfigured}
	if s.local != nil {
		v.Auth, v.Tenant = "none", s.local.tenant.ID
	}
	writeJSON(w, http.StatusOK, v)
}
