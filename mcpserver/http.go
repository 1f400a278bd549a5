package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ledgerline/research/engine"
)

// TenantEngines returns a tenant's engine and what it runs over;
// *engine.Process is one.
type TenantEngines interface {
	Tenant(ctx context.Context, tenant string) (*engine.Tenant, error)
}

// KeyFunc authenticates an API key and returns the tenant it belongs to;
// an error refuses the request.
type KeyFunc func(ctx context.Context, key string) (tenant string, err error)

// HTTPOpts configure NewHTTPHandler.
type HTTPOpts struct {
	// SessionTimeout closes a session idle that long; 0 means 30 minutes.
	SessionTimeout time.Duration
	// Logger receives the transport's log; nil discards it.
	Logger *slog.Logger
}

// HTTPHandler serves the MCP server over streamable HTTP; NewHTTPHandler
// makes one. Close ends its sessions.
type HTTPHandler struct {
	h http.Handler

	mu sync.Mutex
	// Guarded by mu.
	live   map[*Server]struct{} // sessions that have started and not ended
	closed bool
}

// NewHTTPHandler serves the MCP server over streamable HTTP (mount it at
// /mcp). Every request carries an API key as a Bearer token; the tenant
// is the key's, and a session is bound to it: a request for another
// tenant's session is refused. Each session gets a Server of its own,
// built with cfg and the key's tenant, whose session run is finished when
// the session ends: the client deletes it, it is idle for the session
// timeout, or Close.
func NewHTTPHandler(engines TenantEngines, keys KeyFunc, cfg *Config, opts *HTTPOpts) *HTTPHandler {
	var o HTTPOpts
	if opts != nil {
		o = *opts
	}
	if o.SessionTimeout == 0 {
		o.SessionTimeout = 30 * time.Minute
	}
	var base Config
	if cfg != nil {
		base = *cfg
	}
	logger := base.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	hh := &HTTPHandler{live: map[*Server]struct{}{}}
	getServer := func(r *http.Request) *mcp.Server {
		info := auth.TokenInfoFromContext(r.Context())
		if info == nil || info.UserID == "" {
			return nil
		}
		if hh.isClosed() {
			return nil
		}
		t, err := engines.Tenant(r.Context(), info.UserID)
		if err != nil {
			logger.Error("mcp: the tenant's engine", "tenant", info.UserID, "err", err)
			return nil
		}
		c := base
		c.Tenant = info.UserID
		s, err := New(t, &c)
		if err != nil {
			logger.Error("mcp: new server", "tenant", info.UserID, "err", err)
			return nil
		}
		s.sessions = hh
		return s.MCP()
	}
	h := mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{
		SessionTimeout: o.SessionTimeout, Logger: o.Logger,
	})
	verify := func(ctx context.Context, key string, _ *http.Request) (*auth.TokenInfo, error) {
		tenant, err := keys(ctx, key)
		if err != nil || tenant == "" {
			return nil, fmt.Errorf("%w: the API key is not valid", auth.ErrInvalidToken)
		}
		// The session is bound to UserID; a key is checked on every
		// request, so it expires with its revocation, not a clock.
		return &auth.TokenInfo{UserID: tenant, Expiration: time.Now().Add(time.Hour)}, nil
	}
	hh.h = auth.RequireBearerToken(verify, nil)(h)
	return hh
}

// ServeHTTP serves one request of the MCP transport.
func (h *HTTPHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.h.ServeHTTP(w, r) }

// Close ends every session (their calls in progress are cancelled) and
// finishes their session runs; later sessions are refused. Call it when
// the server shuts down, before or while it drains its requests: an open
// session's event stream would hold the drain.
func (h *HTTPHandler) Close(ctx context.Context) error {
	h.mu.Lock()
	h.closed = true
	live := make([]*Server, 0, len(h.live))
	for s := range h.live {
		live = append(live, s)
	}
	h.mu.Unlock()
	errs := make([]error, len(live))
	var wg sync.WaitGroup
	for i, s := range live {
		wg.Go(func() { errs[i] = s.Close(ctx) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

func (h *HTTPHandler) isClosed() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.closed
}

func (h *HTTPHandler) add(s *Server) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return false
	}
	h.live[s] = struct{}{}
	return true
}

func (h *HTTPHandler) remove(s *Server) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.live, s)
}

// ErrUnknownKey is what a KeyFunc may return for a key it does not know.
var ErrUnknownKey = errors.New("mcpserver: unknown API key")
