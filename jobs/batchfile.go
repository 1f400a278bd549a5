package jobs

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/budget"
	"github.com/ledgerline/research/executor"
)

// BatchLine is one accepted line of a batch file.
type BatchLine struct {
	Line int // 1-based line number in the file
	Submission
}

// LineError is a line of a batch file that was not accepted, and why.
type LineError struct {
	Line int
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }

func (e *LineError) Unwrap() error { return e.Err }

// Bounds of a batch file.
const (
	MaxBatchLines = 10_000   // questions per batch
	MaxLineBytes  = 64 << 10 // bytes per line
)

// batchLineJSON is the JSON of one line.
type batchLineJSON struct {
	Question       string           `json:"question"`
	Tickers        []string         `json:"tickers"`
	Mode           string           `json:"mode"`
	BudgetUSD      *decimal.Decimal `json:"budget_usd"`
	MaxCalls       int              `json:"max_calls"`
	IdempotencyKey string           `json:"idempotency_key"`
}

// ParseBatch reads a batch file: one JSON object per line,
//
//	{"question": "...", "tickers": ["AAPL"], "mode": "rules", "budget_usd": 0.25, "max_calls": 40, "idempotency_key": "q-17"}
//
// where only question is required (mode defaults to rules, the budget to
// executor.DefaultLimits with budget_usd as its spend limit). Blank lines
// are skipped. Lines that are not valid are returned as LineErrors, with
// their numbers, and the others are accepted; err is for a reader that
// fails.
func ParseBatch(r io.Reader) (lines []BatchLine, bad []*LineError, err error) {
	br := bufio.NewReader(r)
	n := 0
	accepted := 0
	for {
		raw, tooLong, rerr := readLine(br)
		if rerr != nil && rerr != io.EOF {
			return lines, bad, fmt.Errorf("jobs: read the batch: %w", rerr)
		}
		if len(raw) > 0 || tooLong || rerr == nil {
			n++
		}
		switch {
		case tooLong:
			bad = append(bad, &LineError{n, fmt.Errorf("longer than %d bytes", MaxLineBytes)})
		case len(bytes.TrimSpace(raw)) == 0:
		default:
			s, perr := parseLine(raw)
			switch {
			case perr != nil:
				bad = append(bad, &LineError{n, perr})
			case accepted == MaxBatchLines:
				bad = append(bad, &LineError{n, fmt.Errorf("a batch holds at most %d questions; split the file", MaxBatchLines)})
			default:
				accepted++
				lines = append(lines, BatchLine{Line: n, Submission: s})
			}
		}
		if rerr == io.EOF {
			return lines, bad, nil
		}
	}
}

// readLine returns the next line without its end of line; tooLong when it
// exceeds MaxLineBytes (the rest of it is skipped). err is io.EOF at the end
// of the input, with the last line if it had no newline.
func readLine(br *bufio.Reader) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > MaxLineBytes+2 {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
		if len(line) > MaxLineBytes {
			tooLong, line = true, nil
		}
		return line, tooLong, err
	}
}

// lineFields are the fields a line may hold.
var lineFields = []string{"question", "tickers", "mode", "budget_usd", "max_calls", "idempotency_key"}

// parseLine reads and checks one line.
func parseLine(raw []byte) (Submission, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return Submission{}, lineJSONError(err)
	}
	var unknown []string
	for k := range fields {
		if !slices.Contains(lineFields, k) {
			unknown = append(unknown, strconv.Quote(k))
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		return Submission{}, fmt.Errorf("unknown field %s; want %s", strings.Join(unknown, ", "), strings.Join(lineFields, ", "))
	}
	var l batchLineJSON
	if err := json.Unmarshal(raw, &l); err != nil {
		return Submission{}, lineJSONError(err)
	}
	s := Submission{Question: l.Question, Mode: l.Mode, MaxCalls: l.MaxCalls, IdempotencyKey: l.IdempotencyKey}
	for _, t := range l.Tickers {
		s.Tickers = append(s.Tickers, strings.ToUpper(strings.TrimSpace(t)))
	}
	if l.BudgetUSD != nil {
		if budget.CheckUSD(*l.BudgetUSD) != nil {
			// Not repeated: it may be ten thousand digits long.
			return Submission{}, fmt.Errorf("budget_usd: want an amount such as 0.50, below 10^12 with at most %d decimal places", budget.USDPlaces)
		}
		if l.BudgetUSD.IsNegative() {
			return Submission{}, fmt.Errorf("budget_usd %s: want a non-negative amount such as 0.50", l.BudgetUSD)
		}
		limits := executor.DefaultLimits()
		limits.SpendUSD = *l.BudgetUSD
		s.Limits = &limits
	}
	if err := s.check(); err != nil {
		var re *executor.RequestError
		if errors.As(err, &re) {
			return Submission{}, fmt.Errorf("%s: %s", lineField(re.Field), re.Problem)
		}
		return Submission{}, err
	}
	return s, nil
}

// lineField names a Submission field as the batch file spells it.
func lineField(f string) string {
	switch f {
	case "max calls":
		return "max_calls"
	case "idempotency key":
		return "idempotency_key"
	case "limits":
		return "budget_usd"
	}
	return f
}

// lineJSONError says what is wrong with a line's JSON in the file's terms.
func lineJSONError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field == "" {
			return fmt.Errorf("got a JSON %s; want an object such as {\"question\": \"...\"}", te.Value)
		}
		return fmt.Errorf("%s: got a JSON %s, want %s", te.Field, te.Value, jsonKind(te.Type.String()))
	}
	if err == nil {
		// The line is JSON null.
		return errors.New("null; want an object such as {\"question\": \"...\"}")
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("not valid JSON (%v); want one object per line such as {\"question\": \"...\"}", err)
	}
	// Only budget_usd reads itself (a decimal, from a number or a string).
	return fmt.Errorf("budget_usd: %v", err)
}

func jsonKind(goType string) string {
	switch goType {
	case "string":
		return "a string"
	case "[]string":
		return "a list of strings"
	case "int":
		return "a whole number"
	case "decimal.Decimal":
		return "a number"
	}
	return goType
}
