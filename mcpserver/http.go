package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
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

// NewHTTPHandler serves the MCP server over streamable HTTP (mount it at
// /mcp). Every request carries an API key as a Bearer token; the tenant
// is the key's, and a session is bound to it: a request for another
// tenant's session is refused. Each session gets a Server of its own,
// built with cfg and the key's tenant.
func NewHTTPHandler(engines TenantEngines, keys KeyFunc, cfg *Config, opts *HTTPOpts) http.Handler {
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
	getServer := func(r *http.Request) *mcp.Server {
		info := auth.TokenInfoFromContext(r.Context())
		if info == nil || info.UserID == "" {
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
	return auth.RequireBearerToken(verify, nil)(h)
}

// ErrUnknownKey is what a KeyFunc may return for a key it does not know.
var ErrUnknownKey = errors.New("mcpserver: unknown API key")
