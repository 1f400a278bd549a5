// Package web is the research web app: one HTML page, a stylesheet and a
// script, embedded in the binary and served by research serve at "/". The
// page drives the JSON API under /v1/ with the tenant's API key, or, when
// GET /v1/config says the server takes none (research serve without
// --db), without one and without a sign-in; it needs no build step, and
// loads nothing from another origin.
package web

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"net/http"
	"strings"
	"time"
)

//go:embed index.html assets
var files embed.FS

// contentSecurityPolicy lets the page load only its own script, styles and
// API: text from a filing or a question that slipped into the markup
// could not run.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// Handler serves the page at "/" and its files under "/assets/". Each file
// has an ETag (a hash of its content), so a browser revalidates it with a
// 304 and downloads it again only when the binary serving it changed.
func Handler() http.Handler {
	etags := map[string]string{}
	_ = fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(files, p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		etags[p] = `"` + hex.EncodeToString(sum[:12]) + `"`
		return nil
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		name := strings.TrimPrefix(r.URL.Path, "/")
		if name == "" {
			name = "index.html"
		}
		etag, ok := etags[name]
		if !ok {
			http.Error(w, "no such file: "+r.URL.Path, http.StatusNotFound)
			return
		}
		b, _ := fs.ReadFile(files, name)
		h.Set("ETag", etag)
		h.Set("Cache-Control", "no-cache")
		http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(b))
	})
}
