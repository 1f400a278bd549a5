package edgar

import (
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"
)

// Default SEC hosts.
const (
	DefaultBaseURL = "https://www.sec.gov"
	DefaultDataURL = "https://data.sec.gov"
)

// MaxRequestsPerSecond is the SEC's fair-access limit for one client.
const MaxRequestsPerSecond = 10

var (
	// ErrUserAgent is returned by NewClient when the User-Agent does not
	// name an organisation and an email address, as the SEC requires.
	ErrUserAgent = errors.New("edgar: the SEC requires a User-Agent naming your organisation and an email address, such as \"Example Corp research@example.com\"")
	// ErrNotCached is returned offline for a URL the cache lacks.
	ErrNotCached = errors.New("edgar: not in the cache (offline)")
	// ErrNotFound is returned when the SEC has no such resource (404).
	ErrNotFound = errors.New("edgar: not found")
)

// Config configures a Client.
type Config struct {
	// BaseURL is the SEC's main site; "" means DefaultBaseURL.
	BaseURL string
	// DataURL is the SEC's data host; "" means DefaultDataURL.
	DataURL string
	// UserAgent names the user's organisation and an email address;
	// required unless Offline.
	UserAgent string
	// RequestsPerSecond caps requests across all of the client's callers;
	// 0 means MaxRequestsPerSecond, more is an error.
	RequestsPerSecond float64
	// CacheDir holds the raw response cache; required.
	CacheDir string
	// Offline answers from the cache only; a URL it lacks is ErrNotCached.
	Offline bool
	// MaxAttempts bounds the attempts of one request; 0 means 6.
	MaxAttempts int
	// RetryDeadline bounds one request with all its retries; 0 means 2 minutes.
	RetryDeadline time.Duration
	// Backoff is the first retry's base wait, doubled for each further one
	// (with full jitter, capped at 30s); 0 means 1s. Retry-After, when the
	// SEC sends it, is waited for in full.
	Backoff time.Duration
	// HTTPClient sends the requests; nil means one that uses the
	// environment's proxy settings and waits up to 30s for a response's
	// headers.
	HTTPClient *http.Client
	// Logger receives retries and give-ups; nil means none.
	Logger *slog.Logger
}

var userAgentEmail = regexp.MustCompile(`[^\s@<>()]+@[^\s@<>()]+\.[A-Za-z]{2,}`)

// ValidUserAgent reports whether ua names an organisation (or person) and
// an email address, as the SEC asks: "Example Corp research@example.com".
func ValidUserAgent(ua string) bool {
	ua = strings.TrimSpace(ua)
	email := userAgentEmail.FindString(ua)
	org := strings.TrimSpace(strings.Replace(ua, email, "", 1))
	return email != "" && len(org) >= 2
}

func (c *Config) validate() error {
	if !c.Offline && !ValidUserAgent(c.UserAgent) {
		return ErrUserAgent
	}
	for name, raw := range map[string]string{"BaseURL": c.BaseURL, "DataURL": c.DataURL} {
		u, err := url.Parse(raw)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("edgar: Config.%s %q is not an http(s) URL", name, raw)
		}
	}
	if c.RequestsPerSecond < 0 || c.RequestsPerSecond > MaxRequestsPerSecond {
		return fmt.Errorf("edgar: Config.RequestsPerSecond %g is outside (0, %d], the SEC's fair-access limit", c.RequestsPerSecond, MaxRequestsPerSecond)
	}
	if c.CacheDir == "" {
		return errors.New("edgar: Config.CacheDir is required")
	}
	if c.MaxAttempts < 0 || c.RetryDeadline < 0 || c.Backoff < 0 {
		return errors.New("edgar: Config.MaxAttempts, RetryDeadline and Backoff cannot be negative")
	}
	return nil
}

// Client sends requests to the SEC under its fair-access rules and keeps
// every response in the cache. Safe for concurrent use: all callers share
// one rate limiter.
type Client struct {
	cfg     Config
	http    *http.Client
	limiter *rate.Limiter
	cache   *Cache
	log     *slog.Logger
	stats   clientStats
}

// clientStats are the client's counters, read by Stats.
type clientStats struct {
	requests     atomic.Int64
	downloads    atomic.Int64
	notModified  atomic.Int64
	cacheHits    atomic.Int64
	retries      atomic.Int64
	bytes        atomic.Int64 // bodies as stored
	wireBytes    atomic.Int64 // bodies as received (compressed)
	limiterWait  atomic.Int64 // nanoseconds
	downloadTime atomic.Int64 // nanoseconds, request sent to body stored
}

// Stats counts what a client did.
type Stats struct {
	Requests    int           // HTTP requests sent, retries included
	Downloads   int           // responses downloaded whole (200)
	NotModified int           // conditional requests answered 304
	CacheHits   int           // answered from the cache without a request
	Retries     int           // attempts after a failed one
	Bytes       int64         // bytes downloaded, decompressed
	WireBytes   int64         // bytes downloaded as sent
	LimiterWait time.Duration // summed over callers: time spent waiting for the rate limiter
	Transfer    time.Duration // summed over callers: time from request sent to body stored
}

// NewClient returns a client. A nil config is an error: the User-Agent and
// the cache directory have no defaults.
func NewClient(cfg *Config) (*Client, error) {
	if cfg == nil {
		return nil, ErrUserAgent
	}
	c := *cfg
	if c.BaseURL == "" {
		c.BaseURL = DefaultBaseURL
	}
	if c.DataURL == "" {
		c.DataURL = DefaultDataURL
	}
	c.BaseURL = strings.TrimRight(c.BaseURL, "/")
	c.DataURL = strings.TrimRight(c.DataURL, "/")
	if err := c.validate(); err != nil {
		return nil, err
	}
	if c.RequestsPerSecond == 0 {
		c.RequestsPerSecond = MaxRequestsPerSecond
	}
	if c.MaxAttempts == 0 {
		c.MaxAttempts = 6
	}
	if c.RetryDeadline == 0 {
		c.RetryDeadline = 2 * time.Minute
	}
	if c.Backoff == 0 {
		c.Backoff = time.Second
	}
	hc := c.HTTPClient
	if hc == nil {
		// No overall timeout: a large document may take long on a slow
		// link, and RetryDeadline bounds the whole request anyway. A
		// server that does not answer at all is caught here.
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.ResponseHeaderTimeout = 30 * time.Second
		hc = &http.Client{Transport: tr}
	}
	log := c.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	cache, err := NewCache(c.CacheDir)
	if err != nil {
		return nil, err
	}
	return &Client{cfg: c, http: hc, limiter: newLimiter(c.RequestsPerSecond), cache: cache, log: log}, nil
}

// newLimiter spaces requests 5% wider than 1/rps, with no burst: the SEC
// counts requests as they arrive, and a request delayed on its way must not
// make the next ten arrive inside one second.
func newLimiter(rps float64) *rate.Limiter {
	return rate.NewLimiter(rate.Every(time.Duration(float64(time.Second)/rps*1.05)), 1)
}

// BaseURL returns the SEC main site the client uses.
func (c *Client) BaseURL() string { return c.cfg.BaseURL }

// DataURL returns the SEC data host the client uses.
func (c *Client) DataURL() string { return c.cfg.DataURL }

// Cache returns the client's cache.
func (c *Client) Cache() *Cache { return c.cache }

// Offline reports whether the client answers from the cache only.
func (c *Client) Offline() bool { return c.cfg.Offline }

// Stats returns the client's counters so far.
func (c *Client) Stats() Stats {
	s := &c.stats
	return Stats{
		Requests: int(s.requests.Load()), Downloads: int(s.downloads.Load()), NotModified: int(s.notModified.Load()),
		CacheHits: int(s.cacheHits.Load()), Retries: int(s.retries.Load()), Bytes: s.bytes.Load(),
		WireBytes: s.wireBytes.Load(), LimiterWait: time.Duration(s.limiterWait.Load()),
		Transfer: time.Duration(s.downloadTime.Load()),
	}
}

// GetOpts are per-request options.
type GetOpts struct {
	// Immutable marks a resource that never changes once published (an
	// archived filing document): a cached copy is used without asking.
	Immutable bool
	// Observe, when set, is called once the request is done, with what
	// it did: how a fetch keeps its audit trail.
	Observe func(Access)
}

// Result is a response as cached.
type Result struct {
	*CacheEntry
	// FromCache is true when no body was downloaded: the cache answered
	// alone, or the source answered 304 Not Modified.
	FromCache bool
	// NotModified is true when the source confirmed the cached copy (304).
	NotModified bool
}

// StatusError is a response with a status the client does not accept.
type StatusError struct {
	URL        string
	StatusCode int
	RetryAfter time.Duration // as the response asked; 0 when it did not
	Attempts   int
}

func (e *StatusError) Error() string {
	msg := fmt.Sprintf("GET %s: %d %s", e.URL, e.StatusCode, http.StatusText(e.StatusCode))
	switch {
	case e.StatusCode == http.StatusForbidden:
		msg += " (the SEC refuses clients without a User-Agent naming an organisation and an email address, and blocks for 10 minutes those above 10 requests a second)"
	case e.Attempts > 1:
		msg += fmt.Sprintf(" after %d attempts", e.Attempts)
	}
	return msg
}

// Retryable reports whether the request may succeed if sent again later:
// 429 Too Many Requests and 5xx.
func (e *StatusError) Retryable() bool {
	return e.StatusCode == http.StatusTooManyRequests || e.StatusCode >= 500
}

// Is makes a 404 match ErrNotFound.
func (e *StatusError) Is(target error) bool {
	return target == ErrNotFound && e.StatusCode == http.StatusNotFound
}

// Get returns the response of rawURL, from the cache when it holds a copy
// the source confirms (or, for an immutable resource, any whole copy),
// downloaded into the cache otherwise.
func (c *Client) Get(ctx context.Context, rawURL string, opts *GetOpts) (*Result, error) {
	if opts == nil {
		opts = &GetOpts{}
	}
	if opts.Observe == nil {
		res, _, err := c.get(ctx, rawURL, opts)
		return res, err
	}
	start := time.Now()
	res, attempts, err := c.get(ctx, rawURL, opts)
	opts.Observe(newAccess(rawURL, start, res, attempts, err))
	return res, err
}

// get is Get; it also returns the number of requests sent.
func (c *Client) get(ctx context.Context, rawURL string, opts *GetOpts) (_ *Result, attempt int, _ error) {
	cached, ok := c.cache.Lookup(rawURL)
	if c.cfg.Offline {
		if !ok {
			return nil, 0, fmt.Errorf("%w: %s", ErrNotCached, rawURL)
		}
		c.stats.cacheHits.Add(1)
		return &Result{CacheEntry: cached, FromCache: true}, 0, nil
	}
	if ok && opts.Immutable {
		c.stats.cacheHits.Add(1)
		return &Result{CacheEntry: cached, FromCache: true}, 0, nil
	}
	ctx, cancel := context.WithTimeout(ctx, c.cfg.RetryDeadline)
	defer cancel()
	deadline, _ := ctx.Deadline()
	for attempt = 1; ; attempt++ {
		res, retryAfter, err := c.try(ctx, rawURL, cached)
		if err == nil {
			return res, attempt, nil
		}
		var se *StatusError
		if errors.As(err, &se) {
			se.Attempts = attempt
		}
		if !retryable(err) || ctx.Err() != nil {
			if ctx.Err() != nil && attempt > 1 {
				return nil, attempt, fmt.Errorf("GET %s: gave up after %d attempts within %s: %w", rawURL, attempt, c.cfg.RetryDeadline, err)
			}
			return nil, attempt, err
		}
		if attempt >= c.cfg.MaxAttempts {
			return nil, attempt, fmt.Errorf("GET %s: gave up after %d attempts: %w", rawURL, attempt, err)
		}
		wait := c.backoff(attempt)
		if retryAfter > wait {
			wait = retryAfter
		}
		if time.Now().Add(wait).After(deadline) {
			return nil, attempt, fmt.Errorf("GET %s: gave up after %d attempts: the next (in %s) would pass the %s deadline: %w",
				rawURL, attempt, wait.Round(time.Millisecond), c.cfg.RetryDeadline, err)
		}
		c.log.Info("edgar: retrying", "url", rawURL, "attempt", attempt, "wait", wait, "err", err)
		c.stats.retries.Add(1)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, attempt, fmt.Errorf("GET %s: %w (last error: %v)", rawURL, ctx.Err(), err)
		case <-t.C:
		}
	}
}

// backoff returns the wait before retry n (from 1): a uniformly random
// duration up to Backoff×2^(n-1), capped at 30s, and at least a tenth of it.
func (c *Client) backoff(n int) time.Duration {
	ceil := c.cfg.Backoff << min(n-1, 16)
	if ceil > 30*time.Second || ceil <= 0 {
		ceil = 30 * time.Second
	}
	return ceil/10 + rand.N(ceil-ceil/10+1)
}

// retryable reports whether err says to try again: a retryable status, or
// a transport error (a refused or cut connection). Anything else (the
// cache's disk is full, the context ended) is final.
func retryable(err error) bool {
	var r interface{ Retryable() bool }
	return errors.As(err, &r) && r.Retryable()
}

// transferError is a failure while sending a request or reading its
// response, which another attempt may not meet.
type transferError struct{ err error }

func (e *transferError) Error() string   { return e.err.Error() }
func (e *transferError) Unwrap() error   { return e.err }
func (e *transferError) Retryable() bool { return true }

// try sends one request, conditional when a cached copy exists. It returns
// the Retry-After the response asked for, if any.
func (c *Client) try(ctx context.Context, rawURL string, cached *CacheEntry) (*Result, time.Duration, error) {
	start := time.Now()
	if err := c.limiter.Wait(ctx); err != nil {
		return nil, 0, err
	}
	sent := time.Now()
	c.stats.limiterWait.Add(int64(sent.Sub(start)))
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, 0, err
	}
	req.Header.Set("User-Agent", c.cfg.UserAgent)
	req.Header.Set("Accept-Encoding", "gzip")
	if cached != nil {
		if cached.ETag != "" {
			req.Header.Set("If-None-Match", cached.ETag)
		}
		if cached.LastModified != "" {
			req.Header.Set("If-Modified-Since", cached.LastModified)
		}
	}
	c.stats.requests.Add(1)
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, 0, &transferError{err}
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotModified && cached != nil:
		c.stats.notModified.Add(1)
		if err := c.cache.Touch(cached, time.Now().UTC()); err != nil {
			return nil, 0, err
		}
		return &Result{CacheEntry: cached, FromCache: true, NotModified: true}, 0, nil
	case resp.StatusCode != http.StatusOK:
		io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		ra := retryAfter(resp.Header.Get("Retry-After"), time.Now())
		return nil, ra, &StatusError{URL: rawURL, StatusCode: resp.StatusCode, RetryAfter: ra}
	}
	wire := &countingReader{r: resp.Body}
	var body io.Reader = wire
	if strings.EqualFold(resp.Header.Get("Content-Encoding"), "gzip") {
		zr, err := gzip.NewReader(wire)
		if err != nil {
			return nil, 0, &transferError{fmt.Errorf("GET %s: gzip: %w", rawURL, err)}
		}
		defer zr.Close()
		body = zr
	}
	entry, err := c.cache.Store(CacheEntry{
		URL: rawURL, ETag: resp.Header.Get("ETag"), LastModified: resp.Header.Get("Last-Modified"),
		ContentType: resp.Header.Get("Content-Type"), Fetched: time.Now().UTC(), Validated: time.Now().UTC(),
	}, body)
	c.stats.wireBytes.Add(wire.n)
	if err != nil {
		var ce *cacheError
		if errors.As(err, &ce) {
			return nil, 0, err
		}
		// A cut connection, a timeout, a corrupt gzip stream: nothing was
		// cached, and another attempt may get it whole.
		return nil, 0, &transferError{fmt.Errorf("GET %s: reading the body: %w", rawURL, err)}
	}
	c.stats.downloads.Add(1)
	c.stats.bytes.Add(entry.Size)
	c.stats.downloadTime.Add(int64(time.Since(sent)))
	return &Result{CacheEntry: entry}, 0, nil
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// retryAfter reads a Retry-After header: seconds, or an HTTP date.
// Anything else, or a time already past, is 0. It is capped at 10 minutes,
// the SEC's longest block.
func retryAfter(h string, now time.Time) time.Duration {
	h = strings.TrimSpace(h)
	if h == "" {
		return 0
	}
	var d time.Duration
	if s, err := strconv.Atoi(h); err == nil {
		d = time.Duration(s) * time.Second
	} else if t, err := http.ParseTime(h); err == nil {
		d = t.Sub(now)
	}
	return max(0, min(d, 10*time.Minute))
}
