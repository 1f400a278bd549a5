package server

import (
	"bytes"
	"fmt"
	"net/http"
	"testing"
)

// TestTenancy proves, endpoint by endpoint, that another tenant's key sees
// nothing of a run or a document: the same 404 as a run that does not
// exist.
func TestTenancy(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOpts{})
	id := h.submit(h.acmeKey, map[string]any{"question": acmeQuestion})
	h.waitDone(h.acmeKey, id)
	const missing = "run-20990101-000000-deadbeef"

	for _, path := range []string{"/v1/runs/%s", "/v1/runs/%s/events", "/v1/runs/%s/ledger"} {
		t.Run(path, func(t *testing.T) {
			own := h.do("GET", fmt.Sprintf(path, id), h.acmeKey, nil)
			if own.code != http.StatusOK {
				t.Fatalf("the owner's GET = %d\n%s", own.code, own.body)
			}
			other := h.do("GET", fmt.Sprintf(path, id), h.otherKey, nil)
			none := h.do("GET", fmt.Sprintf(path, missing), h.otherKey, nil)
			if other.code != http.StatusNotFound || none.code != http.StatusNotFound {
				t.Fatalf("another tenant's run = %d, a missing run = %d; want 404 for both\n%s\n%s", other.code, none.code, other.body, none.body)
			}
			// The same answer but for the id asked about and the request id.
			o, n := other.json(t), none.json(t)
			if o["error"] != `no run "`+id+`"` || n["error"] != `no run "`+missing+`"` {
				t.Errorf("bodies differ in more than the id:\n%s\n%s", other.body, none.body)
			}
			if bytes.Contains(other.body, []byte("acme")) {
				t.Errorf("the body names the owner: %s", other.body)
			}
		})
	}

	t.Run("POST /v1/search", func(t *testing.T) {
		q := map[string]any{"query": "gross margin component costs"}
		own := h.do("POST", "/v1/search", h.acmeKey, q)
		if own.code != http.StatusOK || len(own.json(t)["results"].([]any)) == 0 {
			t.Fatalf("the owner's search = %d\n%s", own.code, own.body)
		}
		for _, body := range []map[string]any{q, {"query": "gross margin", "tickers": []string{"ACME"}}} {
			other := h.do("POST", "/v1/search", h.otherKey, body)
			if other.code != http.StatusOK {
				t.Fatalf("another tenant's search = %d\n%s", other.code, other.body)
			}
			if res := other.json(t)["results"].([]any); len(res) != 0 {
				t.Errorf("another tenant's search found %d of acme's chunks: %s", len(res), other.body)
			}
		}
	})

	t.Run("POST /v1/runs", func(t *testing.T) {
		// globex's run over the same question sees none of acme's filings.
		gid := h.submit(h.otherKey, map[string]any{"question": acmeQuestion})
		res := h.waitDone(h.otherKey, gid)
		if cits := res["citations"].([]any); len(cits) != 0 {
			t.Errorf("globex's run cited %d of acme's passages", len(cits))
		}
		if r := h.do("GET", "/v1/runs/"+gid, h.acmeKey, nil); r.code != http.StatusNotFound {
			t.Errorf("acme reads globex's run: %d", r.code)
		}
	})
}
