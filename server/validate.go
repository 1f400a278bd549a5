package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/budget"
	"github.com/ledgerline/research/corpus"
	"github.com/ledgerline/research/executor"
	"github.com/ledgerline/research/ledger"
)

// fieldError is a request the API refuses, with what to fix.
type fieldError struct {
	field   string // JSON path of the field at fault; "" for the body as a whole
	problem string
}

func (e *fieldError) Error() string {
	if e.field == "" {
		return e.problem
	}
	return e.field + ": " + e.problem
}

func badField(field, format string, args ...any) *fieldError {
	return &fieldError{field: field, problem: fmt.Sprintf(format, args...)}
}

// decodeJSON reads one JSON object of at most limit bytes into v, refusing
// unknown fields and trailing data; its errors say what is wrong with the
// body and never echo more than a field name.
func decodeJSON(w http.ResponseWriter, r *http.Request, limit int64, v any, fields string) *fieldError {
	if ct := r.Header.Get("Content-Type"); ct != "" && !strings.HasPrefix(strings.ToLower(ct), "application/json") {
		return badField("", "the body must be JSON: send Content-Type: application/json")
	}
	body := http.MaxBytesReader(w, r.Body, limit)
	dec := json.NewDecoder(body)
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		if _, terr := dec.Token(); !errors.Is(terr, io.EOF) {
			err = errTrailing
		}
	}
	if err == nil {
		return nil
	}
	var (
		mbe *http.MaxBytesError
		se  *json.SyntaxError
		te  *json.UnmarshalTypeError
	)
	switch {
	case errors.As(err, &mbe):
		return badField("", "the body is larger than %d KiB; send a smaller request", limit>>10)
	case errors.Is(err, io.EOF):
		return badField("", "the body is empty; send a JSON object with %s", fields)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return badField("", "the body is not valid JSON: it ends too early")
	case errors.As(err, &se):
		return badField("", "the body is not valid JSON (at byte %d)", se.Offset)
	case errors.As(err, &te):
		if te.Field == "" {
			return badField("", "the body must be a JSON object with %s", fields)
		}
		return badField(te.Field, "want a JSON %s, not %s", jsonKind(te.Type.Kind().String()), te.Value)
	case errors.Is(err, errTrailing):
		return badField("", "the body holds more than one JSON value; send exactly one object")
	}
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		return badField("", "unknown field %s; the fields are %s", truncate(safeMessage(name), 40), fields)
	}
	var ne net.Error
	if errors.As(err, &ne) || errors.Is(err, os.ErrDeadlineExceeded) {
		return badField("", "the body did not arrive in time; send it whole, promptly")
	}
	// What is left is a value a field's own decoder refused (an amount
	// that is not a number, say). Its message is the decoder's, and says
	// nothing a client can act on; this one does.
	return badField("", "a value has the wrong form: amounts are JSON numbers such as 0.25, counts whole numbers")
}

// checkText refuses text a person could not have typed: bytes that are not
// UTF-8, and control characters (NUL among them) other than tab and line
// breaks, which no store keeps as they are.
func checkText(field, s string) *fieldError {
	if !utf8.ValidString(s) {
		return badField(field, "not valid UTF-8")
	}
	if i := strings.IndexFunc(s, func(r rune) bool {
		return r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r == 0x7f
	}); i >= 0 {
		return badField(field, "holds a control character (byte %d); send plain text", i)
	}
	return nil
}

var errTrailing = errors.New("trailing data")

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "string"
	case "slice", "array":
		return "array"
	case "struct", "map", "ptr":
		return "object"
	case "bool":
		return "boolean"
	}
	return "number"
}

// safeMessage keeps a decoder's message short and printable.
func safeMessage(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, s)
	if len(s) > 160 {
		s = s[:160]
		for !utf8.ValidString(s) {
			s = s[:len(s)-1]
		}
		s += "…"
	}
	return s
}

// runRequest is the body of POST /v1/runs.
type runRequest struct {
	Question       string         `json:"question"`
	Tickers        []string       `json:"tickers"`
	Mode           string         `json:"mode"`
	Budget         *budgetRequest `json:"budget"`
	IdempotencyKey string         `json:"idempotency_key"`
}

const runFields = "question (required), tickers, mode, budget, idempotency_key"

// budgetRequest is the budget a run asks for; each cap must be within the
// tenant's.
type budgetRequest struct {
	SpendUSD       *decimal.Decimal `json:"spend_usd"`
	TimeoutSeconds *int64           `json:"timeout_seconds"`
	MaxCalls       *int64           `json:"max_calls"`
}

// MaxTickers bounds the tickers of a run or a search.
const MaxTickers = 20

// runSpec is a validated run request.
type runSpec struct {
	question string
	tickers  []string
	mode     ledger.Mode
	limits   *budgetLimits
	idemKey  string
}

type budgetLimits struct {
	spend    decimal.Decimal
	wall     time.Duration
	maxCalls int
}

// validateRun checks a run request against the bounds of the engine and
// the caps of the tenant, and fills in the defaults.
func validateRun(req *runRequest, idemHeader string, l TenantLimits) (*runSpec, *fieldError) {
	q := strings.TrimSpace(req.Question)
	if fe := checkText("question", q); fe != nil {
		return nil, fe
	}
	if n := utf8.RuneCountInString(q); n < executor.MinQuestion || n > executor.MaxQuestion {
		return nil, badField("question", "%d characters; want %d to %d", n, executor.MinQuestion, executor.MaxQuestion)
	}
	tickers, fe := validateTickers("tickers", req.Tickers)
	if fe != nil {
		return nil, fe
	}
	spec := &runSpec{question: q, tickers: tickers}
	switch m := ledger.Mode(strings.ToLower(strings.TrimSpace(req.Mode))); m {
	case "":
		spec.mode = executor.ModeAuto
	case ledger.ModeRules, ledger.ModeBaseline, ledger.ModeModel, executor.ModeAuto:
		spec.mode = m
	default:
		return nil, badField("mode", "%q is not a mode; want auto, rules, baseline or model", truncate(req.Mode, 40))
	}
	key := req.IdempotencyKey
	if idemHeader != "" {
		if key != "" && key != idemHeader {
			return nil, badField("idempotency_key", "differs from the Idempotency-Key header; send one or make them equal")
		}
		key = idemHeader
	}
	if key != "" && !ledger.ValidName(key) {
		return nil, badField("idempotency_key", "want 1 to 128 letters, digits, '.', '_' or '-', starting with a letter or digit")
	}
	spec.idemKey = key

	def := executor.DefaultLimits()
	b := &budgetLimits{
		spend:    decimal.Min(def.SpendUSD, l.MaxRunSpendUSD),
		wall:     min(def.WallClock, l.MaxRunDuration),
		maxCalls: l.MaxRunCalls,
	}
	if req.Budget != nil {
		if v := req.Budget.SpendUSD; v != nil {
			switch {
			case budget.CheckUSD(*v) != nil:
				return nil, badField("budget.spend_usd", "want an amount in USD such as 0.25, from 0 to %s with at most %d decimal places", l.MaxRunSpendUSD, budget.USDPlaces)
			case v.IsNegative():
				return nil, badField("budget.spend_usd", "%s is negative; want 0 to %s", v, l.MaxRunSpendUSD)
			case v.GreaterThan(l.MaxRunSpendUSD):
				return nil, badField("budget.spend_usd", "%s is above this tenant's cap of %s USD a run", v, l.MaxRunSpendUSD)
			}
			b.spend = *v
		}
		if v := req.Budget.TimeoutSeconds; v != nil {
			maxSecs := int64(l.MaxRunDuration / time.Second)
			if *v < 1 || *v > maxSecs {
				return nil, badField("budget.timeout_seconds", "%d is out of range; want 1 to %d (this tenant's cap)", *v, maxSecs)
			}
			b.wall = time.Duration(*v) * time.Second
		}
		if v := req.Budget.MaxCalls; v != nil {
			if *v < 1 || *v > int64(l.MaxRunCalls) {
				return nil, badField("budget.max_calls", "%d is out of range; want 1 to %d (this tenant's cap)", *v, l.MaxRunCalls)
			}
			b.maxCalls = int(*v)
		}
	}
	spec.limits = b
	return spec, nil
}

// validateTickers upper-cases and checks tickers, dropping repeats.
func validateTickers(field string, in []string) ([]string, *fieldError) {
	if len(in) > MaxTickers {
		return nil, badField(field, "%d tickers; want at most %d", len(in), MaxTickers)
	}
	var out []string
	for i, t := range in {
		u := strings.ToUpper(strings.TrimSpace(t))
		if !corpus.ValidTicker(u) {
			return nil, badField(fmt.Sprintf("%s[%d]", field, i), "%q is not a ticker; want upper-case letters and digits, with a share class after a dot or dash where there is one", truncate(t, 20))
		}
		if !slices.Contains(out, u) {
			out = append(out, u)
		}
	}
	return out, nil
}

// searchRequest is the body of POST /v1/search.
type searchRequest struct {
	Query       string   `json:"query"`
	Tickers     []string `json:"tickers"`
	FiscalYears []int    `json:"fiscal_years"`
	Form        string   `json:"form"`
	Section     string   `json:"section"`
	K           int      `json:"k"`
	Mode        string   `json:"mode"`
}

const searchFields = "query (required), tickers, fiscal_years, form, section, k, mode"

// MaxQueryLength bounds a search query, in characters.
const MaxQueryLength = 1000

// validateSearch checks a search request and builds the corpus request.
func validateSearch(req *searchRequest) (corpus.SearchRequest, *fieldError) {
	q := strings.TrimSpace(req.Query)
	if fe := checkText("query", q); fe != nil {
		return corpus.SearchRequest{}, fe
	}
	if n := utf8.RuneCountInString(q); n < 1 || n > MaxQueryLength {
		return corpus.SearchRequest{}, badField("query", "%d characters; want 1 to %d", n, MaxQueryLength)
	}
	tickers, fe := validateTickers("tickers", req.Tickers)
	if fe != nil {
		return corpus.SearchRequest{}, fe
	}
	if len(req.FiscalYears) > 20 {
		return corpus.SearchRequest{}, badField("fiscal_years", "%d years; want at most 20", len(req.FiscalYears))
	}
	for i, y := range req.FiscalYears {
		if y < 1990 || y > 2100 {
			return corpus.SearchRequest{}, badField(fmt.Sprintf("fiscal_years[%d]", i), "%d is not a fiscal year; want 1990 to 2100", y)
		}
	}
	form := strings.ToUpper(strings.TrimSpace(req.Form))
	if len(form) > 16 || strings.ContainsFunc(form, func(r rune) bool {
		return !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '/')
	}) {
		return corpus.SearchRequest{}, badField("form", "want a form such as 10-K or 10-Q")
	}
	section := strings.TrimSpace(req.Section)
	if section != "" {
		if fe := checkText("section", section); fe != nil {
			return corpus.SearchRequest{}, fe
		}
		name, ok := corpus.NormalizeSection(section)
		if !ok || utf8.RuneCountInString(section) > 40 {
			return corpus.SearchRequest{}, badField("section", "%q is not a section; want an item such as 7, 1A or \"Item 7\"", truncate(section, 40))
		}
		section = name
	}
	if req.K < 0 || req.K > corpus.MaxK {
		return corpus.SearchRequest{}, badField("k", "%d is out of range; want 1 to %d (0 means 10)", req.K, corpus.MaxK)
	}
	mode := corpus.SearchMode("")
	if req.Mode != "" {
		m, err := corpus.ParseSearchMode(strings.ToLower(req.Mode))
		if err != nil {
			return corpus.SearchRequest{}, badField("mode", "%q is not a search mode; want hybrid, fulltext or vector", truncate(req.Mode, 40))
		}
		mode = m
	}
	return corpus.SearchRequest{
		Query: q, K: req.K, Mode: mode,
		Filter: corpus.Filter{Tickers: tickers, Form: form, FiscalYears: req.FiscalYears, Section: section},
	}, nil
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
