package web

import (
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

func get(t *testing.T, h http.Handler, path string) *http.Response {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
	return rec.Result()
}

func TestHandlerServesThePageAndAssets(t *testing.T) {
	h := Handler()
	for _, tc := range []struct{ path, ctype, holds string }{
		{"/", "text/html", `<script src="/assets/app.js" defer></script>`},
		{"/assets/app.js", "javascript", "textContent"},
		{"/assets/app.css", "text/css", "@media"},
	} {
		resp := get(t, h, tc.path)
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s = %d", tc.path, resp.StatusCode)
			continue
		}
		if ct := resp.Header.Get("Content-Type"); !strings.Contains(ct, tc.ctype) {
			t.Errorf("GET %s: Content-Type %q, want %s", tc.path, ct, tc.ctype)
		}
		if !strings.Contains(string(body), tc.holds) {
			t.Errorf("GET %s does not hold %q", tc.path, tc.holds)
		}
		csp := resp.Header.Get("Content-Security-Policy")
		if !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe") {
			t.Errorf("GET %s: Content-Security-Policy %q", tc.path, csp)
		}
		if resp.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("GET %s: no nosniff", tc.path)
		}
	}
	if resp := get(t, h, "/assets/nope.js"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET /assets/nope.js = %d, want 404", resp.StatusCode)
	}
}

// externalRef finds a reference to another origin: a URL with a scheme or
// a protocol-relative one in an attribute, a CSS url() or an @import.
var externalRef = regexp.MustCompile(`(?i)(https?:|wss?:|ftp:)//|(src|href|action)\s*=\s*["']?//|url\(\s*["']?(https?:)?//|@import`)

func TestNoExternalResources(t *testing.T) {
	err := fs.WalkDir(files, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(files, path)
		if err != nil {
			return err
		}
		if m := externalRef.Find(b); m != nil {
			t.Errorf("%s refers to another origin: %q", path, m)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestScriptRendersText keeps the script off the APIs that parse HTML:
// everything from a filing or a question is set as text.
func TestScriptRendersText(t *testing.T) {
	b, err := fs.ReadFile(files, "assets/app.js")
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function", "DOMParser", "createContextualFragment"} {
		if strings.Contains(string(b), bad) {
			t.Errorf("app.js uses %s", bad)
		}
	}
	page, _ := fs.ReadFile(files, "index.html")
	if regexp.MustCompile(`(?i)<script>|\son[a-z]+\s*=`).Match(page) {
		t.Error("index.html has an inline script or event handler, which the Content-Security-Policy refuses")
	}
}

// TestFormControlsHaveLabels checks every input, select and textarea of the
// page has a label.
func TestFormControlsHaveLabels(t *testing.T) {
	page, _ := fs.ReadFile(files, "index.html")
	ids := regexp.MustCompile(`<(?:input|select|textarea)[^>]*\sid="([^"]+)"`).FindAllSubmatch(page, -1)
	if len(ids) == 0 {
		t.Fatal("no form controls found")
	}
	for _, m := range ids {
		if !strings.Contains(string(page), `<label for="`+string(m[1])+`"`) {
			t.Errorf("#%s has no label", m[1])
		}
	}
}

func TestRevalidatedWithETag(t *testing.T) {
	h := Handler()
	for _, p := range []string{"/", "/assets/app.js"} {
		resp := get(t, h, p)
		etag := resp.Header.Get("ETag")
		if etag == "" {
			t.Fatalf("GET %s: no ETag", p)
		}
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("GET", p, nil)
		req.Header.Set("If-None-Match", etag)
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusNotModified || rec.Body.Len() != 0 {
			t.Errorf("GET %s with its ETag = %d, %d bytes; want 304 and none", p, rec.Code, rec.Body.Len())
		}
	}
}
