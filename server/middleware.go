package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"time"
)

// requestInfo is what a request's log line and metrics need, filled in as
// the request is handled.
type requestInfo struct {
	id     string
	tenant string
	runID  string
	stream bool
}

type ctxKey int

const (
	infoKey ctxKey = iota
	principalKey
)

func info(ctx context.Context) *requestInfo {
	if ri, ok := ctx.Value(infoKey).(*requestInfo); ok {
		return ri
	}
	return &requestInfo{}
}

func principalOf(ctx context.Context) principal {
	p, _ := ctx.Value(principalKey).(principal)
	return p
}

// statusWriter records the status code; Unwrap lets http.ResponseController
// reach the connection's Flush and deadlines.
type statusWriter struct {
	http.ResponseWriter
	code int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// observe gives each request an id (the client's X-Request-Id when it is
// a short token, else a fresh one), recovers panics into a 500 that says
// nothing of them, and logs and counts the request by route and status.
func (s *Server) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		ri := &requestInfo{id: requestID(r.Header.Get("X-Request-Id"))}
		w.Header().Set("X-Request-Id", ri.id)
		sw := &statusWriter{ResponseWriter: w}
		r = r.WithContext(context.WithValue(r.Context(), infoKey, ri))
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.log.Error("panic serving a request", slog.String("request_id", ri.id), slog.Any("panic", v), slog.String("stack", string(debug.Stack())))
				if sw.code == 0 {
					s.writeError(sw, r, http.StatusInternalServerError, "internal error")
				}
			}
			code := sw.code
			if code == 0 {
				code = http.StatusOK
			}
			route := r.Pattern
			if route == "" || route == "/" {
				route = "other"
			}
			took := time.Since(start)
			s.metrics.httpRequest(route, code, took, ri.stream)
			attrs := []slog.Attr{
				slog.String("request_id", ri.id), slog.String("method", r.Method), slog.String("route", route),
				slog.String("path", r.URL.Path), slog.Int("status", code), slog.Duration("duration", took),
			}
			if ri.tenant != "" {
				attrs = append(attrs, slog.String("tenant", ri.tenant))
			}
			if ri.runID != "" {
				attrs = append(attrs, slog.String("run_id", ri.runID))
			}
			level := slog.LevelInfo
			if code >= 500 {
				level = slog.LevelError
			}
			s.log.LogAttrs(r.Context(), level, "http request", attrs...)
		}()
		next.ServeHTTP(sw, r)
	})
}

// requestID keeps a client's id when it is a short token of safe
// characters, and makes one otherwise.
func requestID(given string) string {
	if n := len(given); n > 0 && n <= 64 && strings.Trim(given, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") == "" {
		return given
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// authed requires a valid API key, admits the request under the key's rate
// limit and hands the handler the key's tenant. A local server takes no
// keys (localRequest).
func (s *Server) authed(h http.HandlerFunc) http.Handler {
	if s.local != nil {
		return s.localRequest(h)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if len(r.Header.Values("Authorization")) > 1 {
			// Which one a proxy or a client library meant is anyone's
			// guess: refuse rather than pick.
			w.Header().Set("WWW-Authenticate", `Bearer realm="research", error="invalid_request"`)
			s.writeError(w, r, http.StatusBadRequest, "more than one Authorization header: send exactly one, Authorization: Bearer KEY")
			return
		}
		auth := r.Header.Get("Authorization")
		scheme, key, ok := strings.Cut(auth, " ")
		if auth == "" || !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(key) == "" {
			w.Header().Set("WWW-Authenticate", `Bearer realm="research"`)
			s.writeError(w, r, http.StatusUnauthorized, "missing API key: send the header Authorization: Bearer KEY (research tenant create NAME issues one)")
			return
		}
		key = strings.TrimSpace(key)
		addr := clientAddr(r)
		if wellFormedKey(key) && !s.knownKeys.has(key) {
			// A key not seen valid here lately, from an address that sent
			// too many keys no tenant holds: refused before any query.
			if full, wait := s.badKeys.full(addr); full {
				s.writeLimit(w, r, &LimitError{Limit: "bad_keys", RetryAfter: wait,
					Message: "too many requests with API keys that are not valid came from this address; retry after the Retry-After seconds"})
				return
			}
		}
		p, err := s.authenticate(r.Context(), key)
		var le *LimitError
		switch {
		case errors.Is(err, errBadKey):
			if wellFormedKey(key) {
				s.badKeys.add(addr)
				s.knownKeys.forget(key)
			}
			w.Header().Set("WWW-Authenticate", `Bearer realm="research", error="invalid_token"`)
			s.writeError(w, r, http.StatusUnauthorized, "the API key is not valid: it is unknown or was revoked")
			return
		case errors.As(err, &le):
			info(r.Context()).tenant = p.tenant.ID
			s.writeLimit(w, r, le)
			return
		case err != nil:
			s.internalError(w, r, "authenticate", err)
			return
		}
		s.knownKeys.add(key)
		info(r.Context()).tenant = p.tenant.ID
		h(w, r.WithContext(context.WithValue(r.Context(), principalKey, p)))
	})
}

// errorBody is every error's JSON.
type errorBody struct {
	Error     string `json:"error"`
	Field     string `json:"field,omitempty"`
	RequestID string `json:"request_id"`
}

// writeError answers with status and a message for the client; the message
// must hold nothing internal.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, status int, format string, args ...any) {
	writeJSON(w, status, errorBody{Error: fmt.Sprintf(format, args...), RequestID: info(r.Context()).id})
}

// writeFieldError is a 400 about one field of the request.
func (s *Server) writeFieldError(w http.ResponseWriter, r *http.Request, fe *fieldError) {
	writeJSON(w, http.StatusBadRequest, errorBody{Error: fe.Error(), Field: fe.field, RequestID: info(r.Context()).id})
}

// writeLimit is a 429 with Retry-After.
func (s *Server) writeLimit(w http.ResponseWriter, r *http.Request, le *LimitError) {
	s.metrics.limitRejected(le.Limit)
	w.Header().Set("Retry-After", strconv.FormatInt(le.retryAfterSeconds(), 10))
	s.writeError(w, r, http.StatusTooManyRequests, "%s", le.Message)
}

// internalError logs the cause with the request id and answers 500 with a
// message that holds none of it. A request whose client went away is not
// an internal error.
func (s *Server) internalError(w http.ResponseWriter, r *http.Request, op string, err error) {
	ri := info(r.Context())
	if r.Context().Err() != nil {
		s.log.Info("request ended by the client", slog.String("request_id", ri.id), slog.String("op", op), slog.String("error", err.Error()))
		s.writeError(w, r, 499, "the request was cancelled")
		return
	}
	attrs := []any{slog.String("request_id", ri.id), slog.String("op", op), slog.String("error", err.Error())}
	if ri.tenant != "" {
		attrs = append(attrs, slog.String("tenant", ri.tenant))
	}
	if ri.runID != "" {
		attrs = append(attrs, slog.String("run_id", ri.runID))
	}
	s.log.Error("request failed", attrs...)
	s.writeError(w, r, http.StatusInternalServerError, "internal error: the server could not complete the request; quote request id %s when reporting it", ri.id)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}
