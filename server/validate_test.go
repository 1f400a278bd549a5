package server

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ledgerline/research/executor"
	"github.com/ledgerline/research/ledger"
)

func TestValidateRun(t *testing.T) {
	caps := DefaultTenantLimits()
	caps.MaxRunSpendUSD = mustDecimal("0.20")
	caps.MaxRunDuration = 90 * time.Second
	caps.MaxRunCalls = 50
	spend := mustDecimal("0.10")
	secs, calls := int64(30), int64(12)
	tests := []struct {
		name   string
		req    runRequest
		header string
		field  string // "" means valid
		check  func(t *testing.T, s *runSpec)
	}{
		{name: "defaults within the caps", req: runRequest{Question: "  What drove ACME's margin?  "}, check: func(t *testing.T, s *runSpec) {
			if s.question != "What drove ACME's margin?" || s.mode != executor.ModeAuto {
				t.Errorf("question %q mode %q", s.question, s.mode)
			}
			// The engine's default spend (0.50) and wall clock (60s) are cut to the caps.
			if !s.limits.spend.Equal(mustDecimal("0.20")) || s.limits.wall != 60*time.Second || s.limits.maxCalls != 50 {
				t.Errorf("limits %+v", s.limits)
			}
		}},
		{name: "asked budget", req: runRequest{Question: "margin?", Budget: &budgetRequest{SpendUSD: &spend, TimeoutSeconds: &secs, MaxCalls: &calls}}, check: func(t *testing.T, s *runSpec) {
			if !s.limits.spend.Equal(spend) || s.limits.wall != 30*time.Second || s.limits.maxCalls != 12 {
				t.Errorf("limits %+v", s.limits)
			}
		}},
		{name: "tickers upper-cased once each", req: runRequest{Question: "margin?", Tickers: []string{"acme", "ACME", " brk.b "}}, check: func(t *testing.T, s *runSpec) {
			if strings.Join(s.tickers, ",") != "ACME,BRK.B" {
				t.Errorf("tickers %v", s.tickers)
			}
		}},
		{name: "mode in any case", req: runRequest{Question: "margin?", Mode: "Baseline"}, check: func(t *testing.T, s *runSpec) {
			if s.mode != ledger.ModeBaseline {
				t.Errorf("mode %q", s.mode)
			}
		}},
		{name: "idempotency key from the header", req: runRequest{Question: "margin?"}, header: "k-1", check: func(t *testing.T, s *runSpec) {
			if s.idemKey != "k-1" {
				t.Errorf("key %q", s.idemKey)
			}
		}},
		{name: "the same key twice", req: runRequest{Question: "margin?", IdempotencyKey: "k-1"}, header: "k-1"},
		{name: "two keys", req: runRequest{Question: "margin?", IdempotencyKey: "k-1"}, header: "k-2", field: "idempotency_key"},
		{name: "blank question", req: runRequest{Question: "   "}, field: "question"},
		{name: "question of 2001 runes", req: runRequest{Question: strings.Repeat("é", 2001)}, field: "question"},
		{name: "question of 2000 runes", req: runRequest{Question: strings.Repeat("é", 2000)}},
		{name: "invalid UTF-8", req: runRequest{Question: "margin \xff\xfe"}, field: "question"},
		{name: "lower-case garbage ticker", req: runRequest{Question: "margin?", Tickers: []string{"acme inc"}}, field: "tickers[0]"},
		{name: "spend at the cap", req: runRequest{Question: "margin?", Budget: &budgetRequest{SpendUSD: ptr(mustDecimal("0.20"))}}},
		{name: "spend over the cap", req: runRequest{Question: "margin?", Budget: &budgetRequest{SpendUSD: ptr(mustDecimal("0.2000001"))}}, field: "budget.spend_usd"},
		{name: "timeout at the cap", req: runRequest{Question: "margin?", Budget: &budgetRequest{TimeoutSeconds: ptr(int64(90))}}},
		{name: "timeout zero", req: runRequest{Question: "margin?", Budget: &budgetRequest{TimeoutSeconds: ptr(int64(0))}}, field: "budget.timeout_seconds"},
		{name: "calls over the cap", req: runRequest{Question: "margin?", Budget: &budgetRequest{MaxCalls: ptr(int64(51))}}, field: "budget.max_calls"},
		{name: "unknown mode", req: runRequest{Question: "margin?", Mode: "fast"}, field: "mode"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, fe := validateRun(&tt.req, tt.header, caps)
			if tt.field != "" {
				if fe == nil || fe.field != tt.field {
					t.Fatalf("error %v, want one about %s", fe, tt.field)
				}
				return
			}
			if fe != nil {
				t.Fatalf("refused: %v", fe)
			}
			if tt.check != nil {
				tt.check(t, s)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func TestValidateSearch(t *testing.T) {
	sr, fe := validateSearch(&searchRequest{Query: " gross margin ", Tickers: []string{"aapl"}, Form: "10-k", FiscalYears: []int{2024}, K: 5, Mode: "FullText"})
	if fe != nil {
		t.Fatal(fe)
	}
	if sr.Query != "gross margin" || sr.Filter.Tickers[0] != "AAPL" || sr.Filter.Form != "10-K" || sr.K != 5 || sr.Mode != "fulltext" {
		t.Errorf("%+v", sr)
	}
	for _, bad := range []searchRequest{
		{Query: ""},
		{Query: strings.Repeat("x", MaxQueryLength+1)},
		{Query: "x", K: -1},
		{Query: "x", Section: strings.Repeat("7", 41)},
		{Query: "x", FiscalYears: make([]int, 21)},
	} {
		if _, fe := validateSearch(&bad); fe == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

// FuzzDecodeRunRequest feeds arbitrary bodies through the decoder and the
// validator: they never panic, a refusal always names what to fix in a
// bounded, printable message, and what passes is within the caps.
func FuzzDecodeRunRequest(f *testing.F) {
	for _, s := range []string{
		`{"question": "What drove ACME's margin?", "tickers": ["ACME"], "mode": "rules"}`,
		`{"question": "x", "budget": {"spend_usd": "0.1", "timeout_seconds": 5, "max_calls": 3}}`,
		`{"question": 1}`, `[]`, `{`, `{"a":1}`, `{"question": "abc"} x`, `{"budget": {"spend_usd": 1e400}}`,
		`{"question": "\u0000\u0000\u0000", "idempotency_key": "\n"}`,
	} {
		f.Add(s)
	}
	caps := DefaultTenantLimits()
	f.Fuzz(func(t *testing.T, body string) {
		r := httptest.NewRequest("POST", "/v1/runs", strings.NewReader(body))
		w := httptest.NewRecorder()
		var req runRequest
		if fe := decodeJSON(w, r, 4<<10, &req, runFields); fe != nil {
			checkMessage(t, fe)
			return
		}
		s, fe := validateRun(&req, "", caps)
		if fe != nil {
			checkMessage(t, fe)
			return
		}
		if n := utf8.RuneCountInString(s.question); n < 3 || n > 2000 {
			t.Errorf("question of %d runes passed", n)
		}
		if s.limits.spend.GreaterThan(caps.MaxRunSpendUSD) || s.limits.spend.IsNegative() || s.limits.wall > caps.MaxRunDuration || s.limits.maxCalls > caps.MaxRunCalls {
			t.Errorf("limits %+v beyond the caps", s.limits)
		}
		if s.idemKey != "" && !ledger.ValidName(s.idemKey) {
			t.Errorf("idempotency key %q passed", s.idemKey)
		}
	})
}

func checkMessage(t *testing.T, fe *fieldError) {
	t.Helper()
	msg := fe.Error()
	if msg == "" || len(msg) > 600 || !utf8.ValidString(msg) {
		t.Errorf("message %q", msg)
	}
	for _, s := range []string{"json: ", ".go:", "goroutine"} {
		if strings.Contains(msg, s) {
			t.Errorf("message %q holds %q", msg, s)
		}
	}
}

func TestDecodeJSONLimit(t *testing.T) {
	r := httptest.NewRequest("POST", "/v1/runs", strings.NewReader(`{"question": "`+strings.Repeat("a", 2000)+`"}`))
	var req runRequest
	fe := decodeJSON(httptest.NewRecorder(), r, 1<<10, &req, runFields)
	if fe == nil || !strings.Contains(fe.Error(), "larger than 1 KiB") {
		t.Errorf("= %v", fe)
	}
}

func TestRequestID(t *testing.T) {
	if got := requestID("abc-123_X.y"); got != "abc-123_X.y" {
		t.Errorf("a client's token became %q", got)
	}
	for _, bad := range []string{"", "a b", "<script>", strings.Repeat("a", 65), "naïve"} {
		got := requestID(bad)
		if got == bad || len(got) != 16 {
			t.Errorf("requestID(%q) = %q", bad, got)
		}
	}
}

func TestCodeLabel(t *testing.T) {
	for code, want := range map[int]string{200: "200", 404: "404", 499: "499", 503: "503", 42: "other", 1000: "other"} {
		if got := codeLabel(code); got != want {
			t.Errorf("codeLabel(%d) = %q, want %q", code, got, want)
		}
	}
}

func TestKeys(t *testing.T) {
	seen := map[string]bool{}
	for range 50 {
		key, hash, prefix, err := newKey()
		if err != nil {
			t.Fatal(err)
		}
		if !wellFormedKey(key) || seen[key] || !strings.HasPrefix(key, prefix) || len(prefix) != keyPrefixLen {
			t.Fatalf("key %q prefix %q", key, prefix)
		}
		seen[key] = true
		if h := HashKey(key); string(h[:]) != string(hash) {
			t.Fatal("hash differs")
		}
	}
	for _, bad := range []string{"", "rk_", "rk_short", "xx_" + strings.Repeat("A", 43), KeyPrefix + strings.Repeat("!", 43)} {
		if wellFormedKey(bad) {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestRetryAfterSeconds(t *testing.T) {
	for d, want := range map[time.Duration]int64{0: 1, time.Millisecond: 1, 1500 * time.Millisecond: 2, time.Minute: 60} {
		if got := (&LimitError{RetryAfter: d}).retryAfterSeconds(); got != want {
			t.Errorf("%s: %d, want %d", d, got, want)
		}
	}
	if got := nextUTCDay(time.Date(2025, 12, 31, 23, 0, 0, 0, time.UTC)); !got.Equal(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("nextUTCDay = %s", got)
	}
}
