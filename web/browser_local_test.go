package web_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/ledgerline/research/corpus/embedded"
	"github.com/ledgerline/research/engine"
	"github.com/ledgerline/research/internal/corpustest"
	"github.com/ledgerline/research/server"
)

// localApp is the API of research serve without --db: the embedded store
// holding the fixture filings, one tenant, no keys.
type localApp struct {
	url string

	mu sync.Mutex
	// Guarded by mu: the Authorization headers the page sent to the API.
	auth []string
}

func startLocalApp(t *testing.T) *localApp {
	t.Helper()
	dataDir := t.TempDir()
	store, err := embedded.Open(dataDir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := corpustest.Ingest(context.Background(), store, corpustest.WriteFilings(t, t.TempDir(), filings...)); err != nil {
		t.Fatal(err)
	}
	store.Close()
	engines, err := engine.New(&engine.Config{DataDir: dataDir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { engines.Close() })
	srv, err := server.NewLocal(engines, &server.Config{PollInterval: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	a := &localApp{}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/v1/") {
			a.mu.Lock()
			a.auth = append(a.auth, r.Header.Get("Authorization"))
			a.mu.Unlock()
		}
		srv.Handler().ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	a.url = hs.URL
	return a
}

func TestBrowserLocalServerNeedsNoKey(t *testing.T) {
	chromium(t)
	a := startLocalApp(t)
	ctx := browser(t)
	dir := t.ArtifactDir()

	do(t, ctx, "open the page",
		chromedp.Navigate(a.url+"/"),
		chromedp.WaitVisible(chromedp.ID("ask-view")),
		chromedp.WaitVisible(chromedp.ID("local-note")),
		shot(t, dir, "local-1-ask"),
	)
	signIn := func() string {
		return get(t, ctx, chromedp.Evaluate[string](`[!document.getElementById("signin-view").hidden, !document.getElementById("signout").hidden].join()`))
	}
	if shown := signIn(); shown != "false,false" {
		t.Errorf("sign-in view, sign-out button shown: %s; want neither", shown)
	}

	do(t, ctx, "ask and read the answer",
		chromedp.SendKeys(chromedp.ID("question"), question),
		chromedp.SetValue(chromedp.ID("mode"), "rules"),
		chromedp.Click(chromedp.ID("run")),
		chromedp.WaitVisible(chromedp.ID("run-view")),
		chromedp.WaitVisible(chromedp.CSS("#answer a.cite")),
		shot(t, dir, "local-2-answer"),
	)
	if met := count(t, ctx, "#requirements li.met"); met == 0 {
		t.Error("the run view shows no requirement met")
	}
	do(t, ctx, "open a citation",
		chromedp.Click(chromedp.CSS("#answer a.cite")),
		chromedp.WaitVisible(chromedp.ID("source-span")),
		shot(t, dir, "local-3-source"),
	)
	id := runID(t, ctx)
	if span := text(t, ctx, "#source-span"); span == "" {
		t.Error("the source viewer highlights nothing")
	}
	do(t, ctx, "the ledger and the lists",
		chromedp.Click(chromedp.ID("source-close")),
		chromedp.Click(chromedp.ID("ledger-link")),
		chromedp.WaitVisible(chromedp.CSS("#ledger-tables table")),
		hash("#/runs"),
		chromedp.WaitVisible(chromedp.CSS("#runs-table tbody tr")),
		hash("#/corpus"),
		chromedp.WaitVisible(chromedp.CSS("#corpus-table tbody tr")),
		shot(t, dir, "local-4-corpus"),
	)
	// The runs view is hidden now; its table still holds its rows.
	if runs, docs := count(t, ctx, "#runs-table tbody tr"), count(t, ctx, "#corpus-table tbody tr"); runs != 1 || docs != len(filings) {
		t.Errorf("runs list %d rows, corpus %d rows; want 1 and %d", runs, docs, len(filings))
	}
	if shown := signIn(); shown != "false,false" {
		t.Errorf("after a run, sign-in view, sign-out button shown: %s; want neither", shown)
	}
	do(t, ctx, "budget, whole document and batch",
		hash("#/run/"+id+"/budget"),
		chromedp.WaitVisible(chromedp.CSS(`#budget-scopes table[data-scope="run"] tbody tr`)),
		chromedp.WaitVisible(chromedp.ID("budget-note")),
		hash("#/run/"+id),
		chromedp.WaitVisible(chromedp.CSS("#answer a.cite")),
		chromedp.Click(chromedp.CSS("#answer a.cite")),
		chromedp.WaitVisible(chromedp.ID("source-span")),
		chromedp.Click(chromedp.ID("source-doc")),
		chromedp.WaitVisible(chromedp.ID("doc-span")),
		hash("#/batch"),
		chromedp.WaitVisible(chromedp.ID("batch-local")),
		shot(t, dir, "local-5-batch"),
	)
	if disabled := get(t, ctx, chromedp.Evaluate[bool](`document.getElementById("batch-submit").disabled`)); !disabled {
		t.Error("a local server's batch form can be submitted")
	}
	if n := text(t, ctx, "#notice"); strings.Contains(n, "The page failed") {
		t.Errorf("the page's script failed: %q", n)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.auth) == 0 {
		t.Fatal("the page made no API request")
	}
	for _, h := range a.auth {
		if h != "" {
			t.Errorf("the page sent Authorization %q to a server that takes no key", h)
			break
		}
	}
}

// runID is the run the page shows, from its location.
func runID(t *testing.T, ctx context.Context) string {
	loc := get(t, ctx, chromedp.Location())
	return loc[strings.LastIndex(loc, "/")+1:]
}
