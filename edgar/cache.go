package edgar

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Cache is the raw on-disk cache of SEC responses, keyed by URL. A URL's
// body is kept at a path that mirrors it (dir/www.sec.gov/Archives/...), so
// a cached filing keeps its name and extension, and its metadata beside it
// in a ".meta.json" file. Both are written to a temporary file and renamed
// into place, the body first; the metadata holds the body's size and
// sha256, so a body without matching metadata is never taken for a cached
// response. Safe for concurrent use by one or more processes: the last
// writer of a URL wins, and readers see one whole version or none.
type Cache struct {
	dir string
}

// CacheEntry is one cached response.
type CacheEntry struct {
	URL          string    `json:"url"`
	Path         string    `json:"-"` // the body's file
	ETag         string    `json:"etag,omitempty"`
	LastModified string    `json:"last_modified,omitempty"`
	ContentType  string    `json:"content_type,omitempty"`
	Size         int64     `json:"size"`
	SHA256       string    `json:"sha256"`
	Fetched      time.Time `json:"fetched"`   // when the body was downloaded
	Validated    time.Time `json:"validated"` // when the source last confirmed it (a 200 or a 304)
}

// NewCache returns the cache in dir, creating dir when it does not exist.
func NewCache(dir string) (*Cache, error) {
	if dir == "" {
		return nil, errors.New("edgar: cache directory is empty")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("edgar: cache: %w", err)
	}
	return &Cache{dir: dir}, nil
}

// Dir returns the cache's directory.
func (c *Cache) Dir() string { return c.dir }

// Path returns the file a URL's body is cached in (whether or not it is).
func (c *Cache) Path(rawURL string) (string, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "", fmt.Errorf("edgar: cache key: %w", err)
	}
	if u.Host == "" {
		return "", fmt.Errorf("edgar: cache key %q has no host", rawURL)
	}
	parts := []string{c.dir, safeSegment(u.Host)}
	segs := strings.Split(strings.Trim(u.EscapedPath(), "/"), "/")
	for _, s := range segs {
		if s == "" || s == "." || s == ".." {
			continue
		}
		if un, err := url.PathUnescape(s); err == nil {
			s = un
		}
		parts = append(parts, safeSegment(s))
	}
	if len(parts) == 2 {
		parts = append(parts, "index")
	}
	if u.RawQuery != "" {
		sum := sha256.Sum256([]byte(u.RawQuery))
		last := len(parts) - 1
		ext := filepath.Ext(parts[last])
		parts[last] = strings.TrimSuffix(parts[last], ext) + "_" + hex.EncodeToString(sum[:6]) + ext
	}
	return filepath.Join(parts...), nil
}

// safeSegment keeps a path segment to letters, digits, '.', '-' and '_', so
// no URL can name a file outside the cache; a leading dot is replaced too.
func safeSegment(s string) string {
	b := []byte(s)
	for i, ch := range b {
		ok := ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '-' || ch == '_' || ch == '.' && i > 0
		if !ok {
			b[i] = '_'
		}
	}
	return string(b)
}

const metaSuffix = ".meta.json"

// Lookup returns the cached entry of a URL, or false when there is none or
// what is on disk is not one whole response.
func (c *Cache) Lookup(rawURL string) (*CacheEntry, bool) {
	path, err := c.Path(rawURL)
	if err != nil {
		return nil, false
	}
	raw, err := os.ReadFile(path + metaSuffix)
	if err != nil {
		return nil, false
	}
	var e CacheEntry
	if json.Unmarshal(raw, &e) != nil || e.URL != rawURL {
		return nil, false
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil || n != e.Size || hex.EncodeToString(h.Sum(nil)) != e.SHA256 {
		return nil, false
	}
	e.Path = path
	return &e, true
}

// Store reads body into the cache as the response of e.URL and returns the
// entry with Path, Size and SHA256 set. When reading body fails (a
// connection cut mid-body), nothing is cached and a previously cached
// version stays as it was.
func (c *Cache) Store(e CacheEntry, body io.Reader) (*CacheEntry, error) {
	path, err := c.Path(e.URL)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, &cacheError{err}
	}
	h := sha256.New()
	var n int64
	err = writeAtomic(path, func(w io.Writer) error {
		var err error
		n, err = io.Copy(io.MultiWriter(w, h), body)
		return err
	})
	if err != nil {
		return nil, err
	}
	e.Path, e.Size, e.SHA256 = path, n, hex.EncodeToString(h.Sum(nil))
	if err := c.writeMeta(&e); err != nil {
		return nil, err
	}
	return &e, nil
}

// Touch records that the source confirmed e (a 304) at t.
func (c *Cache) Touch(e *CacheEntry, t time.Time) error {
	e.Validated = t
	return c.writeMeta(e)
}

func (c *Cache) writeMeta(e *CacheEntry) error {
	raw, err := json.MarshalIndent(e, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(e.Path+metaSuffix, func(w io.Writer) error {
		_, err := w.Write(append(raw, '\n'))
		return err
	})
}

// cacheError is a failure of the cache's own files (a full disk), as
// opposed to one of the body being read into it.
type cacheError struct{ err error }

func (e *cacheError) Error() string { return "edgar: cache: " + e.err.Error() }
func (e *cacheError) Unwrap() error { return e.err }

// errWriter marks its writer's errors as the cache's.
type errWriter struct{ w io.Writer }

func (w errWriter) Write(p []byte) (int, error) {
	n, err := w.w.Write(p)
	if err != nil {
		err = &cacheError{err}
	}
	return n, err
}

// writeAtomic writes a file through a temporary file in the same directory
// renamed into place, so path holds the old content or the whole new one.
func writeAtomic(path string, write func(io.Writer) error) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return &cacheError{err}
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err = write(errWriter{tmp}); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return &cacheError{err}
	}
	if err = tmp.Close(); err != nil {
		return &cacheError{err}
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return &cacheError{err}
	}
	return nil
}

// WriteFileAtomic writes data to path through a temporary file renamed into
// place, creating path's directory when needed.
func WriteFileAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return writeAtomic(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}
