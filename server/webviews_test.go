package server

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// budgetReply is the JSON of GET /v1/runs/{id}/budget.
type budgetReply struct {
	RunID  string `json:"run_id"`
	Source string `json:"source"`
	Note   string `json:"note"`
	Scopes []struct {
		Kind         string           `json:"kind"`
		ID           string           `json:"id"`
		Reservations map[string]int64 `json:"reservations"`
		Dimensions   []struct {
			Dimension string  `json:"dimension"`
			Limit     *string `json:"limit"`
			Reserved  *string `json:"reserved"`
			Settled   string  `json:"settled"`
			Released  *string `json:"released"`
			Remaining *string `json:"remaining"`
		} `json:"dimensions"`
	} `json:"scopes"`
}

func decodeBudget(t *testing.T, r reply) budgetReply {
	t.Helper()
	if r.code != http.StatusOK {
		t.Fatalf("GET budget = %d\n%s", r.code, r.body)
	}
	var b budgetReply
	if err := json.Unmarshal(r.body, &b); err != nil {
		t.Fatal(err)
	}
	return b
}

func TestRunBudgetAudit(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{})
	id, _ := answeredRun(t, h, h.acmeKey)
	b := decodeBudget(t, h.do("GET", "/v1/runs/"+id+"/budget", h.acmeKey, nil))
	if b.RunID != id || b.Source != auditFromStore || len(b.Scopes) != 2 {
		t.Fatalf("audit = %+v, want the run's and the day's scopes from the budget store", b)
	}
	if b.Scopes[0].Kind != "run" || b.Scopes[0].ID != id || b.Scopes[1].Kind != "tenant_day" || b.Scopes[1].ID != time.Now().UTC().Format(time.DateOnly) {
		t.Errorf("scopes %s %s, %s %s", b.Scopes[0].Kind, b.Scopes[0].ID, b.Scopes[1].Kind, b.Scopes[1].ID)
	}
	run := b.Scopes[0]
	if run.Reservations["settled"] == 0 {
		t.Errorf("the run settled no reservations: %v", run.Reservations)
	}
	seen := map[string]bool{}
	for _, d := range run.Dimensions {
		seen[d.Dimension] = true
		switch d.Dimension {
		case "spend_usd":
			if d.Limit == nil || d.Reserved == nil || d.Released == nil || d.Remaining == nil {
				t.Errorf("spend_usd row %+v: want a limit, reserved, released and remaining", d)
			}
		case "search_calls":
			if d.Settled == "0" {
				t.Errorf("search_calls settled 0 after a run that searched")
			}
		case "calls":
			if d.Settled == "0" || d.Reserved != nil {
				t.Errorf("calls row %+v: want the run's calls, with no reservation figures", d)
			}
		}
	}
	for _, want := range []string{"spend_usd", "search_calls", "calls", "wall_clock_ms"} {
		if !seen[want] {
			t.Errorf("the run scope has no %s row", want)
		}
	}

	t.Run("tenant scoped", func(t *testing.T) {
		r := h.do("GET", "/v1/runs/"+id+"/budget", h.otherKey, nil)
		if r.code != http.StatusNotFound {
			t.Errorf("another tenant's run: %d, want 404\n%s", r.code, r.body)
		}
		assertNoInternals(t, r.body)
		if r := h.do("GET", "/v1/runs/no-such-run/budget", h.acmeKey, nil); r.code != http.StatusNotFound {
			t.Errorf("no such run: %d, want 404", r.code)
		}
		if r := h.do("GET", "/v1/runs/"+id+"/budget", "", nil); r.code != http.StatusUnauthorized {
			t.Errorf("no key: %d, want 401", r.code)
		}
	})
	t.Run("queued", func(t *testing.T) {
		q := newHarness(t, harnessOpts{noWorker: true})
		qid := q.submit(q.acmeKey, map[string]any{"question": acmeQuestion, "mode": "rules"})
		b := decodeBudget(t, q.do("GET", "/v1/runs/"+qid+"/budget", q.acmeKey, nil))
		if len(b.Scopes) != 0 || !strings.Contains(b.Note, "no budget") {
			t.Errorf("a queued run's audit = %+v, want no scopes and a note", b)
		}
	})
}

func TestLocalRunBudgetAudit(t *testing.T) {
	t.Parallel()
	lh := newLocalHarness(t, localOpts{})
	id := lh.submit("", map[string]any{"question": acmeQuestion, "mode": "rules"})
	lh.waitDone("", id)
	b := decodeBudget(t, lh.do("GET", "/v1/runs/"+id+"/budget", "", nil))
	if b.Source != auditFromResult || b.Note == "" || len(b.Scopes) != 1 || b.Scopes[0].Kind != "run" {
		t.Fatalf("local audit = %+v, want the run scope from its result, with a note", b)
	}
	for _, d := range b.Scopes[0].Dimensions {
		if d.Reserved != nil || d.Released != nil {
			t.Errorf("%s: a local audit claims reservation figures it does not have", d.Dimension)
		}
		if d.Dimension == "calls" && d.Settled == "0" {
			t.Error("the local audit counts no calls")
		}
	}
	if r := lh.do("GET", "/v1/runs/nope/budget", "", nil); r.code != http.StatusNotFound {
		t.Errorf("no such run: %d", r.code)
	}
}

// documentReply is the JSON of GET /v1/runs/{id}/evidence/{eid}/document.
type documentReply struct {
	EvidenceID  string `json:"evidence_id"`
	Ticker      string `json:"ticker"`
	Form        string `json:"form"`
	Start       int    `json:"start"`
	End         int    `json:"end"`
	SpanPart    int    `json:"span_part"`
	Part        int    `json:"part"`
	Parts       int    `json:"parts"`
	Text        string `json:"text"`
	TextStart   int    `json:"text_start"`
	TextEnd     int    `json:"text_end"`
	DocumentLen int    `json:"document_length"`
}

func TestRunDocumentShowsTheWholeFiling(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{})
	id, cites := answeredRun(t, h, h.acmeKey)
	eid := cites[0]["evidence_id"].(string)
	path := "/v1/runs/" + id + "/evidence/" + eid + "/document"
	r := h.do("GET", path, h.acmeKey, nil)
	if r.code != http.StatusOK {
		t.Fatalf("GET document = %d\n%s", r.code, r.body)
	}
	var d documentReply
	if err := json.Unmarshal(r.body, &d); err != nil {
		t.Fatal(err)
	}
	if d.EvidenceID != eid || d.Ticker != "ACME" || d.Part != d.SpanPart || d.Parts < 1 {
		t.Errorf("document = %+v", d)
	}
	if d.TextStart > d.Start || d.TextEnd < d.Start || d.TextEnd-d.TextStart != len(d.Text) {
		t.Fatalf("the part %d-%d does not hold the span's start %d", d.TextStart, d.TextEnd, d.Start)
	}
	span := d.Text[d.Start-d.TextStart : min(d.End, d.TextEnd)-d.TextStart]
	if excerpt := cites[0]["excerpt"].(string); !strings.Contains(excerpt, span) && !strings.Contains(span, excerpt) {
		t.Errorf("the span in the document %q is not the citation's excerpt %q", span, excerpt)
	}
	if d.Parts == 1 && (d.TextStart != 0 || d.TextEnd != d.DocumentLen) {
		t.Errorf("one part should be the whole document: %d-%d of %d", d.TextStart, d.TextEnd, d.DocumentLen)
	}

	for _, q := range []string{"?part=0", "?part=x", "?part=999"} {
		r := h.do("GET", path+q, h.acmeKey, nil)
		if r.code != http.StatusBadRequest || r.json(t)["field"] != "part" {
			t.Errorf("%s: %d %s, want 400 about part", q, r.code, r.body)
		}
	}
	if r := h.do("GET", path, h.otherKey, nil); r.code != http.StatusNotFound {
		t.Errorf("another tenant's run: %d, want 404\n%s", r.code, r.body)
	}
	if r := h.do("GET", "/v1/runs/"+id+"/evidence/no-such/document", h.acmeKey, nil); r.code != http.StatusNotFound {
		t.Errorf("no such evidence: %d, want 404", r.code)
	}
}

func TestDocumentParts(t *testing.T) {
	line := strings.Repeat("é", 49) + "\n" // 99 bytes, two-byte runes
	text := strings.Repeat(line, 1000) + strings.Repeat("x", 3*documentPart)
	parts := documentParts(text)
	for i, s := range parts {
		end := len(text)
		if i+1 < len(parts) {
			end = parts[i+1]
		}
		if end <= s || end-s > documentPart {
			t.Fatalf("part %d is %d-%d", i+1, s, end)
		}
		if i > 0 && s < len(strings.Repeat(line, 1000)) && text[s-1] != '\n' {
			t.Errorf("part %d starts mid-line at %d", i+1, s)
		}
		if s > 0 && s < len(text) && text[s]&0xc0 == 0x80 {
			t.Errorf("part %d starts mid-rune at %d", i+1, s)
		}
	}
	if got := partOf(parts, len(text)-1); got != len(parts) {
		t.Errorf("partOf(last byte) = %d, want %d", got, len(parts))
	}
	if p := documentParts("short"); len(p) != 1 || p[0] != 0 {
		t.Errorf("documentParts(short) = %v", p)
	}
}

func TestBatchUpload(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{})
	good := `{"question": "` + acmeQuestion + `", "mode": "rules"}`

	t.Run("bad lines", func(t *testing.T) {
		body := good + "\n" + `{"question": "hi"}` + "\n\n" + `{"question": "` + acmeQuestion + `", "budget_usd": 5}` + "\nnot json\n"
		r := h.do("POST", "/v1/batches", h.acmeKey, body)
		if r.code != http.StatusBadRequest {
			t.Fatalf("POST a batch with bad lines = %d, want 400\n%s", r.code, r.body)
		}
		var ref batchRefusal
		if err := json.Unmarshal(r.body, &ref); err != nil {
			t.Fatal(err)
		}
		lines := map[int]string{}
		for _, l := range ref.Lines {
			lines[l.Line] = l.Error
		}
		if len(lines) != 3 || lines[2] == "" || !strings.Contains(lines[4], "budget_usd") || lines[5] == "" {
			t.Errorf("refused lines %v, want 2, 4 (budget) and 5", lines)
		}
		if !strings.Contains(ref.Error, "line 2") || !strings.Contains(ref.Error, "nothing was queued") {
			t.Errorf("message %q", ref.Error)
		}
		if runs := h.do("GET", "/v1/runs", h.acmeKey, nil).json(t)["runs"].([]any); len(runs) != 0 {
			t.Errorf("a refused batch queued %d runs", len(runs))
		}
		if r := h.do("POST", "/v1/batches", h.acmeKey, "\n\n"); r.code != http.StatusBadRequest || !strings.Contains(string(r.body), "no question") {
			t.Errorf("an empty upload: %d %s", r.code, r.body)
		}
		big := strings.Repeat(good+"\n", maxBatchBody/len(good)+1)
		if r := h.do("POST", "/v1/batches", h.acmeKey, big); r.code != http.StatusBadRequest || !strings.Contains(string(r.body), "larger than 1024 KiB") {
			t.Errorf("an upload past the limit: %d %s", r.code, r.body)
		}
	})

	r := h.do("POST", "/v1/batches?source=questions.jsonl", h.acmeKey, good+"\n"+good+"\n")
	if r.code != http.StatusAccepted {
		t.Fatalf("POST /v1/batches = %d\n%s", r.code, r.body)
	}
	var b batchView
	if err := json.Unmarshal(r.body, &b); err != nil {
		t.Fatal(err)
	}
	if b.BatchID == "" || b.Source != "questions.jsonl" || len(b.Items) != 2 || b.Items[1].Line != 2 || b.Items[0].Status != "queued" {
		t.Fatalf("batch = %+v", b)
	}
	deadline := time.Now().Add(90 * time.Second)
	for {
		r := h.do("GET", "/v1/batches/"+b.BatchID, h.acmeKey, nil)
		if r.code != http.StatusOK {
			t.Fatalf("GET batch = %d\n%s", r.code, r.body)
		}
		var st batchView
		if err := json.Unmarshal(r.body, &st); err != nil {
			t.Fatal(err)
		}
		if st.Done == 2 {
			for _, it := range st.Items {
				if it.Status == "queued" || it.Status == "running" || it.RunID == "" {
					t.Errorf("item %+v of a finished batch", it)
				}
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("batch not done after 90s: %s", r.body)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if r := h.do("GET", "/v1/batches/"+b.BatchID, h.otherKey, nil); r.code != http.StatusNotFound {
		t.Errorf("another tenant's batch: %d, want 404", r.code)
	}

	t.Run("daily runs", func(t *testing.T) {
		l := generous()
		l.DailyRuns = 3
		d := newHarness(t, harnessOpts{acme: l, noWorker: true})
		d.submit(d.acmeKey, map[string]any{"question": acmeQuestion, "mode": "rules"})
		r := d.do("POST", "/v1/batches", d.acmeKey, good+"\n"+good+"\n"+good+"\n")
		if r.code != http.StatusTooManyRequests || !strings.Contains(string(r.body), "upload at most 2") {
			t.Errorf("a batch past the day's runs: %d %s, want 429", r.code, r.body)
		}
		if r := d.do("POST", "/v1/batches", d.acmeKey, good+"\n"+good+"\n"); r.code != http.StatusAccepted {
			t.Errorf("a batch within the day's runs: %d %s", r.code, r.body)
		}
		if r := d.do("POST", "/v1/runs", d.acmeKey, map[string]any{"question": acmeQuestion}); r.code != http.StatusTooManyRequests {
			t.Errorf("a run after the batch filled the day: %d, want 429", r.code)
		}
	})
}

func TestLocalServerRefusesBatches(t *testing.T) {
	t.Parallel()
	lh := newLocalHarness(t, localOpts{})
	for _, r := range []reply{
		lh.do("POST", "/v1/batches", "", `{"question": "`+acmeQuestion+`"}`),
		lh.do("GET", "/v1/batches/batch-1", "", nil),
	} {
		if r.code != http.StatusNotImplemented || !strings.Contains(string(r.body), "Postgres") {
			t.Errorf("a local server's batch: %d %s, want 501 saying why", r.code, r.body)
		}
	}
}
