package web_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/ledgerline/research/corpus/pgstore"
	"github.com/ledgerline/research/engine"
	"github.com/ledgerline/research/internal/corpustest"
	"github.com/ledgerline/research/internal/pgtest"
	"github.com/ledgerline/research/jobs"
	"github.com/ledgerline/research/server"
)

// chromium returns the browser the tests drive. Without one the test is
// skipped with how to run it, or fails under CI (CI non-empty), where a
// skipped browser test must not pass silently.
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("no Chromium: CI installs it (apt-get install -y chromium in .ci/run)")
	}
	t.Skip("browser test: install Chromium (apt-get install -y chromium, or set CHROMIUM to a Chrome binary) and set DATABASE_URL, then run go test ./web/")
	return ""
}

var filings = []corpustest.Filing{{
	Ticker: "ACME", Company: "Acme Corp", Revenue: "1,000", Cost: "600",
	Item7: "Gross margin decreased in 2024 compared to 2023 due to higher component costs and a shift in product mix. " +
		"Our catalogue lists the &lt;img src=x onerror=alert(1)&gt; widget. " +
		"We expect gross margin to remain under pressure in 2025 as component costs stay elevated.",
}}

const question = "What drove Acme's gross margin in fiscal 2024 and does management expect it to persist?"

// app is the API and a worker over a fresh schema, with tenants acme (the
// fixture corpus) and globex (nothing).
type app struct {
	url               string
	acmeKey, otherKey string

	mu sync.Mutex
	// Guarded by mu: the Last-Event-ID of each request for an event
	// stream ("" for none).
	resumes []string
}

func startApp(t *testing.T) *app {
	t.Helper()
	pool := pgtest.Pool(t)
	ctx := context.Background()
	store, err := pgstore.New(pool, &pgstore.Config{Tenant: "acme"})
	if err != nil {
		t.Fatal(err)
	}
	if err := corpustest.Ingest(ctx, store, corpustest.WriteFilings(t, t.TempDir(), filings...)); err != nil {
		t.Fatal(err)
	}
	ts, err := server.NewTenants(pool)
	if err != nil {
		t.Fatal(err)
	}
	limits := server.DefaultTenantLimits()
	limits.RequestsPerMinute = 10_000
	_, acmeKey, err := ts.Create(ctx, "acme", &limits)
	if err != nil {
		t.Fatal(err)
	}
	_, otherKey, err := ts.Create(ctx, "globex", &limits)
	if err != nil {
		t.Fatal(err)
	}
	engines, err := engine.New(&engine.Config{Pool: pool})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { engines.Close() })
	w, err := jobs.NewWorker(pool, engines.Engine, jobs.WorkerOptions{Concurrency: 2, PollInterval: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := w.Stop(sctx); err != nil {
			t.Errorf("stop the worker: %v", err)
		}
	})
	srv, err := server.New(pool, &server.Config{PollInterval: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	a := &app{acmeKey: acmeKey, otherKey: otherKey}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/events") {
			a.mu.Lock()
			a.resumes = append(a.resumes, r.Header.Get("Last-Event-ID"))
			first := len(a.resumes) == 1
			a.mu.Unlock()
			if first {
				// The first stream breaks after three events, as a
				// network blip would: the page must resume after them.
				ctx, cancel := context.WithCancel(r.Context())
				defer cancel()
				w = &cutWriter{ResponseWriter: w, after: 3, cut: cancel}
				r = r.WithContext(ctx)
			}
		}
		srv.Handler().ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	a.url = hs.URL
	return a
}

// cutWriter cancels its request once after progress events were written.
type cutWriter struct {
	http.ResponseWriter
	after int
	cut   context.CancelFunc
}

func (w *cutWriter) Write(b []byte) (int, error) {
	if w.after > 0 {
		w.after -= strings.Count(string(b), "event: progress")
		if w.after <= 0 {
			w.cut()
		}
	}
	return w.ResponseWriter.Write(b)
}

func (w *cutWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// result reads a run's result from the API.
func (a *app) result(t *testing.T, key, id string) map[string]any {
	t.Helper()
	req, _ := http.NewRequest("GET", a.url+"/v1/runs/"+id, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

// browser opens a headless Chromium; each tab made from it with
// chromedp.NewContext has its own sessionStorage.
func browser(t *testing.T) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium(t)), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.WindowSize(1280, 900), chromedp.UserDataDir(t.TempDir()))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancelTab := chromedp.NewContext(actx)
	t.Cleanup(cancelTab)
	// The browser lives as long as the context of its first run: the
	// whole test is bounded here.
	ctx, cancelTime := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(cancelTime)
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start Chromium: %v", err)
	}
	return ctx
}

// newTab opens a tab of the browser of ctx, with a sessionStorage of its
// own, closed when the test ends.
func newTab(t *testing.T, ctx context.Context) context.Context {
	t.Helper()
	tab, cancel := chromedp.NewContext(ctx)
	t.Cleanup(cancel)
	// The tab lives as long as the context of its first run: this one.
	if err := chromedp.Do(tab); err != nil {
		t.Fatalf("open a tab: %v", err)
	}
	return tab
}

// do runs steps in the tab, failing the test with what was being done.
func do(t *testing.T, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	sctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if err := chromedp.Do(sctx, steps...); err != nil {
		notice, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("notice").textContent`))
		_ = chromedp.Do(ctx, shot(t, t.ArtifactDir(), "failed"))
		t.Fatalf("%s: %v (notice on the page: %q)", what, err, notice)
	}
}

// get runs one action that reads a value.
func get[T any](t *testing.T, ctx context.Context, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func count(t *testing.T, ctx context.Context, css string) int {
	t.Helper()
	return get(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll(`+strconv.Quote(css)+`).length`))
}

func text(t *testing.T, ctx context.Context, css string) string {
	t.Helper()
	return get(t, ctx, chromedp.TextContent(chromedp.CSS(css)))
}

// hash moves the page to a route of the app.
func hash(h string) chromedp.Action[chromedp.Void] {
	return chromedp.Evaluate[chromedp.Void](`void (location.hash = ` + strconv.Quote(h) + `)`)
}

// docScreenshots are the screenshots the README shows: written, as the
// visible part of the page, to $RESEARCH_SCREENSHOTS (make screenshots
// sets it to docs/img) under these names when it is set.
var docScreenshots = map[string]string{
	"2-answer":  "run-view.png",
	"3-source":  "source-viewer.png",
	"4b-budget": "budget-audit.png",
	"4c-doc":    "whole-document.png",
}

// shot saves a full screenshot of the page under dir, and, when name is
// one of docScreenshots and $RESEARCH_SCREENSHOTS is set, the visible
// part of the page there.
func shot(t *testing.T, dir, name string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		buf, err := chromedp.FullScreenshot(100)(ctx, tg)
		if err != nil {
			return err
		}
		p := filepath.Join(dir, name+".png")
		t.Logf("screenshot %s", p)
		if err := os.WriteFile(p, buf, 0o644); err != nil {
			return err
		}
		docs, file := os.Getenv("RESEARCH_SCREENSHOTS"), docScreenshots[name]
		if docs == "" || file == "" {
			return nil
		}
		if buf, err = chromedp.CaptureScreenshot()(ctx, tg); err != nil {
			return err
		}
		p = filepath.Join(docs, file)
		t.Logf("screenshot for the docs %s (%d KiB)", p, len(buf)>>10)
		return os.WriteFile(p, buf, 0o644)
	})
}

// signIn enters key on the sign-in form.
func signIn(url, key string) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(
		chromedp.Navigate(url+"/"),
		chromedp.WaitVisible(chromedp.ID("key")),
		chromedp.SendKeys(chromedp.ID("key"), key),
		chromedp.Click(chromedp.CSS("#signin-form button[type=submit]")),
	)
}

// waitNotice waits until the page's notice holds want.
func waitNotice(want string) chromedp.Action[chromedp.Void] {
	return chromedp.Poll[chromedp.Void](`document.getElementById("notice").textContent.includes(`+strconv.Quote(want)+`)`,
		chromedp.WithPollingTimeout(30*time.Second))
}

func TestBrowserAskWatchAndReadTheSource(t *testing.T) {
	chromium(t)
	a := startApp(t)
	ctx := browser(t)
	dir := t.ArtifactDir()

	do(t, ctx, "dry run",
		signIn(a.url, a.acmeKey),
		chromedp.WaitVisible(chromedp.ID("ask-view")),
		chromedp.SendKeys(chromedp.ID("question"), question),
		chromedp.SetValue(chromedp.ID("mode"), "rules"),
		chromedp.Click(chromedp.ID("dryrun")),
		chromedp.WaitVisible(chromedp.CSS("#plan-reqs li")),
		shot(t, dir, "1-plan"),
	)
	if n := count(t, ctx, "#plan-reqs li"); n == 0 {
		t.Error("the plan lists no requirements")
	}

	start := time.Now()
	do(t, ctx, "run",
		chromedp.Click(chromedp.ID("run")),
		chromedp.WaitVisible(chromedp.ID("run-view")),
		chromedp.WaitVisible(chromedp.CSS("#answer a.cite")),
		shot(t, dir, "2-answer"),
	)
	t.Logf("answer with citations shown %s after Run", time.Since(start).Round(time.Millisecond))
	if met, calls := count(t, ctx, "#requirements li.met"), count(t, ctx, "#calls-table tbody tr"); met == 0 || calls == 0 {
		t.Errorf("the run view shows %d requirements met and %d tool calls", met, calls)
	}
	// Each event shows once, in order, across the stream's reconnection.
	// (The answer's entry is sent as the result, not as progress.)
	seqs := get(t, ctx, chromedp.Evaluate[[]int](`[...document.querySelectorAll("#events li")].map(li => +li.dataset.seq)`))
	for i, s := range seqs {
		if s < 1 || i > 0 && s <= seqs[i-1] || i < 3 && s != i+1 {
			t.Errorf("event log seqs %v: want 1, 2, 3, ... each once, in order", seqs)
			break
		}
	}
	a.mu.Lock()
	resumes := a.resumes
	a.mu.Unlock()
	t.Logf("event stream requests, by Last-Event-ID: %q", resumes)
	if len(resumes) < 2 || resumes[0] != "" || resumes[1] == "" || resumes[1] == "0" {
		t.Errorf("after the first stream broke, the page reconnected with Last-Event-ID %q; want the last event's id", resumes)
	}
	loc := get(t, ctx, chromedp.Location())
	id := loc[strings.LastIndex(loc, "/")+1:]
	res := a.result(t, a.acmeKey, id)
	cites, _ := res["citations"].([]any)
	if len(cites) == 0 {
		t.Fatalf("run %s has no citations", id)
	}
	if status := text(t, ctx, "#run-status"); status != res["status"] {
		t.Errorf("status badge %q, the API says %v", status, res["status"])
	}

	index := get(t, ctx, chromedp.AttributeValue(chromedp.CSS("#answer a.cite"), "data-index")).Value
	do(t, ctx, "open a citation",
		chromedp.Click(chromedp.CSS("#answer a.cite")),
		chromedp.WaitVisible(chromedp.ID("source-span")),
		shot(t, dir, "3-source"),
	)
	var excerpt string
	for _, c := range cites {
		c := c.(map[string]any)
		if n, _ := c["index"].(float64); strconv.Itoa(int(n)) == index {
			excerpt, _ = c["excerpt"].(string)
		}
	}
	if highlighted := text(t, ctx, "#source-span"); excerpt == "" || highlighted != excerpt {
		t.Errorf("citation [%s]: highlighted %q, want its excerpt %q", index, highlighted, excerpt)
	}
	// The filing's markup-like text is shown as text, and made no element.
	source := text(t, ctx, "#source-text")
	if !strings.Contains(source, "<img src=x onerror=alert(1)>") || count(t, ctx, "#source-text img") != 0 {
		t.Errorf("the source viewer did not show the filing's text as text: %q", source)
	}

	// The run's ledger.
	do(t, ctx, "open the ledger",
		chromedp.Click(chromedp.ID("source-close")),
		chromedp.Click(chromedp.ID("ledger-link")),
		chromedp.WaitVisible(chromedp.CSS("#ledger-tables table")),
		shot(t, dir, "4-ledger"),
	)
	if ev, _ := res["citations"].([]any); count(t, ctx, "#ledger-tables table:nth-of-type(1) tbody tr") == 0 || len(ev) == 0 {
		t.Error("the ledger view shows no requirements")
	}

	// The run's budget audit, from the ledger view.
	do(t, ctx, "open the budget audit",
		chromedp.Click(chromedp.ID("ledger-budget")),
		chromedp.WaitVisible(chromedp.CSS(`#budget-scopes table[data-scope="run"] tbody tr`)),
		shot(t, dir, "4b-budget"),
	)
	if n := count(t, ctx, `#budget-scopes table[data-scope="tenant_day"] tbody tr`); n == 0 {
		t.Error("the budget audit shows no tenant day")
	}
	audit := text(t, ctx, "#budget-scopes")
	for _, want := range []string{"Spend (USD)", "Search calls", "All calls", "Reserved", "Released", "Reservations:"} {
		if !strings.Contains(audit, want) {
			t.Errorf("the budget audit lacks %q:\n%s", want, audit)
		}
	}

	// The whole filing, from the source viewer, with the span highlighted.
	do(t, ctx, "open the whole document",
		hash("#/run/"+id),
		chromedp.WaitVisible(chromedp.CSS("#answer a.cite")),
		chromedp.Click(chromedp.CSS("#answer a.cite")),
		chromedp.WaitVisible(chromedp.ID("source-span")),
		chromedp.Click(chromedp.ID("source-doc")),
		chromedp.WaitVisible(chromedp.ID("doc-span")),
		shot(t, dir, "4c-doc"),
	)
	if open := get(t, ctx, chromedp.Evaluate[bool](`document.getElementById("source").open`)); open {
		t.Error("the source viewer stayed open over the whole document")
	}
	if span := text(t, ctx, "#doc-span"); excerpt == "" || !strings.Contains(span, excerpt) {
		t.Errorf("the whole document highlights %q, want the cited span holding %q", span, excerpt)
	}
	// The fixture's filings are short: the whole document is one part,
	// and holds all the source viewer showed, as text.
	if whole := text(t, ctx, "#doc-text"); !strings.Contains(whole, strings.Trim(source, "\u2026")) || count(t, ctx, "#doc-text img") != 0 {
		t.Errorf("the whole document does not hold the source view's text as text:\n%s", whole)
	}
	if part := text(t, ctx, "#doc-part"); !strings.HasPrefix(part, "Part 1 of 1") {
		t.Errorf("the document's pager says %q", part)
	}

	if n := text(t, ctx, "#notice"); strings.Contains(n, "The page failed") {
		t.Errorf("the page's script failed: %q", n)
	}

	// The runs list and the corpus, at phone width.
	do(t, ctx, "lists",
		chromedp.EmulateViewport(390, 844),
		hash("#/runs"),
		chromedp.WaitVisible(chromedp.CSS("#runs-table tbody tr")),
		shot(t, dir, "5-runs-phone"),
		hash("#/corpus"),
		chromedp.WaitVisible(chromedp.CSS("#corpus-table tbody tr")),
	)
	if runs, docs := count(t, ctx, "#runs-table tbody tr"), count(t, ctx, "#corpus-table tbody tr"); runs != 1 || docs != len(filings) {
		t.Errorf("runs list %d rows, corpus %d rows; want 1 and %d", runs, docs, len(filings))
	}
	// The new views fit a phone's width: wide tables scroll in their box,
	// the page does not.
	for _, route := range []string{"#/run/" + id + "/budget", "#/run/" + id + "/doc/" + url.PathEscape(cites[0].(map[string]any)["evidence_id"].(string)), "#/batch"} {
		do(t, ctx, "open "+route+" at phone width",
			hash(route),
			chromedp.Poll[chromedp.Void](`!!document.querySelector("#budget-scopes table, #doc-span, #batch-form:not([hidden])")`, chromedp.WithPollingTimeout(10*time.Second)),
		)
		if over := get(t, ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth`)); over {
			t.Errorf("%s is wider than a phone's screen", route)
		}
	}
	do(t, ctx, "phone screenshots", hash("#/run/"+id+"/budget"), chromedp.WaitVisible(chromedp.CSS("#budget-scopes table")), shot(t, dir, "5b-budget-phone"))

	t.Run("batch", func(t *testing.T) {
		tab := newTab(t, ctx)
		line := `{"question": ` + strconv.Quote(question) + `, "mode": "rules"}`
		do(t, tab, "submit a batch with a bad line",
			signIn(a.url, a.acmeKey),
			chromedp.WaitVisible(chromedp.ID("ask-view")),
			hash("#/batch"),
			chromedp.WaitVisible(chromedp.ID("batch-form")),
			chromedp.SetValue(chromedp.ID("batch-text"), line+"\n{\"question\": \"too short\""),
			chromedp.Click(chromedp.ID("batch-submit")),
			waitNotice("Line 2"),
		)
		if errs := text(t, tab, "#batch-errors"); !strings.Contains(errs, "Line 2: not valid JSON") {
			t.Errorf("the refused lines say %q", errs)
		}
		do(t, tab, "submit a batch the server refuses",
			chromedp.SetValue(chromedp.ID("batch-text"), line+"\n"+`{"question": "x"}`),
			chromedp.Click(chromedp.ID("batch-submit")),
			waitNotice("Line 2: question"),
		)
		do(t, tab, "submit a batch and watch it",
			chromedp.SetValue(chromedp.ID("batch-text"), line+"\n"+line),
			chromedp.Click(chromedp.ID("batch-submit")),
			chromedp.WaitVisible(chromedp.CSS("#batch-table tbody tr")),
			chromedp.Poll[chromedp.Void](`document.getElementById("batch-summary").textContent.startsWith("2 of 2 runs done")`, chromedp.WithPollingTimeout(90*time.Second)),
			shot(t, dir, "9-batch"),
		)
		if rows := count(t, tab, "#batch-table tbody tr a"); rows != 2 {
			t.Errorf("the batch shows %d runs, want 2", rows)
		}
	})
	t.Run("wrong key", func(t *testing.T) {
		tab := newTab(t, ctx)
		do(t, tab, "sign in with a wrong key",
			signIn(a.url, "rk_not_a_key_of_anyone"),
			waitNotice("not valid"),
			chromedp.WaitVisible(chromedp.ID("signin-view")),
			shot(t, dir, "6-wrong-key"),
		)
	})
	t.Run("another tenant", func(t *testing.T) {
		tab := newTab(t, ctx)
		do(t, tab, "open another tenant's run",
			signIn(a.url, a.otherKey),
			chromedp.WaitVisible(chromedp.ID("ask-view")),
			hash("#/run/"+id),
			waitNotice("No run"),
			shot(t, dir, "7-other-tenant"),
		)
		if answer := get(t, tab, chromedp.Evaluate[string](`document.getElementById("answer").textContent`)); answer != "" {
			t.Errorf("another tenant sees the answer %q", answer)
		}
	})
	t.Run("bad input", func(t *testing.T) {
		tab := newTab(t, ctx)
		do(t, tab, "submit bad input",
			signIn(a.url, a.acmeKey),
			chromedp.WaitVisible(chromedp.ID("ask-view")),
			chromedp.Click(chromedp.ID("run")),
			waitNotice("Enter a question."),
			chromedp.SendKeys(chromedp.ID("question"), question),
			chromedp.SendKeys(chromedp.ID("calls"), "100000"),
			chromedp.Click(chromedp.ID("run")),
			waitNotice("out of range"),
			shot(t, dir, "8-bad-input"),
		)
		n := text(t, tab, "#notice")
		if !strings.HasPrefix(n, "Tool calls: 100000 is out of range") {
			t.Errorf("notice %q, want the API's refusal as a sentence", n)
		}
		if inv := get(t, tab, chromedp.Evaluate[string](`document.getElementById("calls").getAttribute("aria-invalid") || ""`)); inv != "true" {
			t.Errorf("the calls field is not marked invalid")
		}
	})
}
