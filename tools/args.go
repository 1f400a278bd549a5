package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ledgerline/research/budget"
	"github.com/ledgerline/research/corpus"
)

// Argument bounds.
const (
	MaxQuery      = 500 // characters of a search query
	DefaultK      = 6   // search results when k is 0
	MaxK          = 20  // search results at most
	MaxReadIDs    = 10  // chunk ids of one read_chunks call
	MaxNeighbours = 3   // chunks before or after in read_surrounding
	MaxExpression = 200 // characters of a calculate expression
	MaxNames      = 20  // names of a calculate expression
	MaxFactsSeen  = 50  // facts one lookup_fact call examines at most
)

const (
	maxChunkID     = 100 // bytes of a chunk id argument
	maxConcept     = 200 // bytes of a concept argument
	maxFiscalYears = 20  // fiscal_years of one search
)

// CheckArgs validates a call's arguments on the server side, whatever
// produced them: strict JSON (an unknown field such as "tenant" is an
// error), required fields, ranges and the run's scope. It does no I/O;
// what only the stores know (whether a chunk exists, whose it is) is
// checked when the call runs. The error is an *ArgError, or wraps
// ErrUnknownTool.
func CheckArgs(tool string, args json.RawMessage, scope Scope) error {
	_, err := checkArgs(tool, args, scope)
	return err
}

// Reservation returns the budget kind of a call and the most retrieval
// candidates it may look at, for the reservation made before it runs:
// for search_filings k + max(4k, 40) per ticker searched (the full-text
// and vector pools the hybrid search fuses), for read_chunks the number
// of ids, for read_surrounding 1+before+after, for lookup_fact
// MaxFactsSeen facts and for calculate none. A call never reports more
// candidates seen than its reservation. The arguments are checked as by
// CheckArgs.
func Reservation(tool string, args json.RawMessage, scope Scope) (kind budget.ToolKind, candidates int64, err error) {
	parsed, err := checkArgs(tool, args, scope)
	if err != nil {
		return "", 0, err
	}
	switch a := parsed.(type) {
	case *SearchArgs:
		return budget.ToolSearch, int64(searchCandidates(a)), nil
	case *ReadChunksArgs:
		return budget.ToolRead, int64(len(a.IDs)), nil
	case *ReadSurroundingArgs:
		return budget.ToolRead, int64(1 + a.Before + a.After), nil
	case *lookupCall:
		return budget.ToolFact, MaxFactsSeen, nil
	default: // *calculateCall
		return budget.ToolCalculate, 0, nil
	}
}

// searchCandidates is the bound of a search's candidates: per ticker, the
// full-text pool k and the vector pool max(4k, 40) the searcher fuses.
func searchCandidates(a *SearchArgs) int {
	return len(a.Tickers) * (a.K + max(4*a.K, 40))
}

// checkArgs validates and normalises a call's arguments; the result is
// one of *SearchArgs, *ReadChunksArgs, *ReadSurroundingArgs, *lookupCall
// and *calculateCall.
func checkArgs(tool string, args json.RawMessage, scope Scope) (any, error) {
	switch tool {
	case SearchFilings:
		return checkSearch(args, scope)
	case ReadChunks:
		return checkReadChunks(args)
	case ReadSurrounding:
		return checkReadSurrounding(args)
	case LookupFact:
		return checkLookup(args, scope)
	case Calculate:
		return checkCalculate(args, scope)
	}
	return nil, fmt.Errorf("%w %q (want one of %s)", ErrUnknownTool, tool, strings.Join(Names(), ", "))
}

// decodeStrict decodes a JSON object into dst, refusing fields not in
// known (exact, case-sensitive names) and values of the wrong type. field
// prefixes the names in errors ("facts.revenue"); "" for the top level.
func decodeStrict(tool, field string, raw json.RawMessage, known []string, dst any) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		raw = json.RawMessage("{}")
	}
	where := field
	if where == "" {
		where = "arguments"
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			return argErr(tool, field, "%s are not valid JSON: %v", where, err)
		}
		return argErr(tool, field, "want a JSON object")
	}
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		if !slices.Contains(known, k) {
			return argErr(tool, join(field, k), "unknown argument (known: %s)", strings.Join(known, ", "))
		}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		var typ *json.UnmarshalTypeError
		if errors.As(err, &typ) {
			return argErr(tool, join(field, typ.Field), "want %s, not a JSON %s", jsonType(typ.Type.String()), typ.Value)
		}
		return argErr(tool, field, "%v", err)
	}
	return nil
}

func join(prefix, name string) string {
	switch {
	case prefix == "":
		return name
	case name == "":
		return prefix
	}
	return prefix + "." + name
}

// jsonType names a Go type the way a JSON writer thinks of it.
func jsonType(goType string) string {
	switch goType {
	case "string":
		return "a string"
	case "int", "int64":
		return "an integer"
	case "[]string":
		return "an array of strings"
	case "[]int":
		return "an array of integers"
	}
	return "an object"
}

func checkSearch(raw json.RawMessage, scope Scope) (*SearchArgs, error) {
	const tool = SearchFilings
	var a SearchArgs
	if err := decodeStrict(tool, "", raw, []string{"query", "tickers", "form", "fiscal_years", "section", "k"}, &a); err != nil {
		return nil, err
	}
	a.Query = strings.TrimSpace(a.Query)
	if a.Query == "" {
		return nil, argErr(tool, "query", "required: the words to search the filings for")
	}
	if n := utf8.RuneCountInString(a.Query); n > MaxQuery {
		return nil, argErr(tool, "query", "%d characters; at most %d", n, MaxQuery)
	}
	tickers, err := checkTickers(tool, "tickers", a.Tickers, scope)
	if err != nil {
		return nil, err
	}
	a.Tickers = tickers
	form, err := checkForm(tool, a.Form)
	if err != nil {
		return nil, err
	}
	a.Form = form
	if len(a.FiscalYears) > maxFiscalYears {
		return nil, argErr(tool, "fiscal_years", "%d years; at most %d", len(a.FiscalYears), maxFiscalYears)
	}
	for _, y := range a.FiscalYears {
		if err := checkYear(tool, "fiscal_years", y, scope); err != nil {
			return nil, err
		}
	}
	a.FiscalYears = slices.Compact(slices.Sorted(slices.Values(a.FiscalYears)))
	if a.Section != "" {
		name, ok := corpus.NormalizeSection(a.Section)
		if !ok {
			return nil, argErr(tool, "section", "%q is not an item; want one such as \"Item 7\", \"7\" or \"1A\"", a.Section)
		}
		a.Section = name
	}
	switch {
	case a.K < 0:
		return nil, argErr(tool, "k", "%d is negative; want 1 to %d, or 0 for %d", a.K, MaxK, DefaultK)
	case a.K == 0:
		a.K = DefaultK
	case a.K > MaxK:
		return nil, argErr(tool, "k", "%d is more than %d", a.K, MaxK)
	}
	return &a, nil
}

// checkTickers normalises tickers and checks each is in scope; none means
// every ticker of the scope.
func checkTickers(tool, field string, tickers []string, scope Scope) ([]string, error) {
	inScope := scope.tickers()
	if len(inScope) == 0 {
		return nil, scopeErr(tool, field, "the run's scope names no issuer")
	}
	if len(tickers) == 0 {
		return inScope, nil
	}
	out := make([]string, 0, len(tickers))
	for _, t := range tickers {
		n, err := checkTicker(tool, field, t, scope)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return slices.Compact(slices.Sorted(slices.Values(out))), nil
}

// checkTicker normalises one ticker and checks it is in scope.
func checkTicker(tool, field, t string, scope Scope) (string, error) {
	n := strings.ToUpper(strings.TrimSpace(t))
	if n == "" {
		return "", argErr(tool, field, "required: a ticker such as %q", firstOr(scope.tickers(), "ABCD"))
	}
	if !corpus.ValidTicker(n) {
		return "", argErr(tool, field, "%q is not a ticker", t)
	}
	if !scope.hasTicker(n) {
		return "", scopeErr(tool, field, "%q is outside the run's scope (%s)", n, strings.Join(scope.tickers(), ", "))
	}
	return n, nil
}

func firstOr(s []string, def string) string {
	if len(s) > 0 {
		return s[0]
	}
	return def
}

func checkForm(tool, form string) (string, error) {
	// A company facts document's form ("10-K XBRL") names its filing's
	// passages: those of the 10-K.
	switch f := corpus.FilingForm(strings.ToUpper(strings.TrimSpace(form))); f {
	case "", "10-K", "10-Q":
		return f, nil
	}
	return "", argErr(tool, "form", "%q: want 10-K or 10-Q, or nothing for both", form)
}

// checkYear checks a fiscal year is plausible and in scope.
func checkYear(tool, field string, y int, scope Scope) error {
	if y < 1900 || y > 2200 {
		return argErr(tool, field, "%d is not a fiscal year", y)
	}
	if !scope.hasYear(y) {
		return scopeErr(tool, field, "fiscal year %d is outside the run's scope (%s)", y, scope.yearList())
	}
	return nil
}

var fyPattern = regexp.MustCompile(`^(?i:fy)\s?(\d{4})$`)

// checkPeriodLabel parses "FY2024" (case and a space forgiven) and checks
// the year is in scope.
func checkPeriodLabel(tool, field, p string, scope Scope) (int, error) {
	m := fyPattern.FindStringSubmatch(strings.TrimSpace(p))
	if m == nil {
		return 0, argErr(tool, field, "%q: want a fiscal year such as \"FY2024\"", p)
	}
	y, _ := strconv.Atoi(m[1])
	if err := checkYear(tool, field, y, scope); err != nil {
		return 0, err
	}
	return y, nil
}

// checkChunkID checks the form of a chunk id argument.
func checkChunkID(tool, field, id string) (string, error) {
	id = strings.TrimSpace(id)
	switch {
	case id == "":
		return "", argErr(tool, field, "required: a chunk id from search_filings")
	case len(id) > maxChunkID:
		return "", argErr(tool, field, "%d bytes; a chunk id is at most %d", len(id), maxChunkID)
	}
	for _, r := range id {
		if r < 0x21 || r == 0x7f {
			return "", argErr(tool, field, "%q holds a space or control character; want a chunk id from search_filings", id)
		}
	}
	return id, nil
}

func checkReadChunks(raw json.RawMessage) (*ReadChunksArgs, error) {
	const tool = ReadChunks
	var a ReadChunksArgs
	if err := decodeStrict(tool, "", raw, []string{"ids"}, &a); err != nil {
		return nil, err
	}
	switch {
	case len(a.IDs) == 0:
		return nil, argErr(tool, "ids", "required: 1 to %d chunk ids", MaxReadIDs)
	case len(a.IDs) > MaxReadIDs:
		return nil, argErr(tool, "ids", "%d ids; at most %d", len(a.IDs), MaxReadIDs)
	}
	ids := make([]string, 0, len(a.IDs))
	for i, id := range a.IDs {
		n, err := checkChunkID(tool, fmt.Sprintf("ids[%d]", i), id)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(ids, n) {
			ids = append(ids, n)
		}
	}
	a.IDs = ids
	return &a, nil
}

func checkReadSurrounding(raw json.RawMessage) (*ReadSurroundingArgs, error) {
	const tool = ReadSurrounding
	var a ReadSurroundingArgs
	if err := decodeStrict(tool, "", raw, []string{"id", "before", "after"}, &a); err != nil {
		return nil, err
	}
	id, err := checkChunkID(tool, "id", a.ID)
	if err != nil {
		return nil, err
	}
	a.ID = id
	if a.Before < 0 || a.Before > MaxNeighbours {
		return nil, argErr(tool, "before", "%d: want 0 to %d", a.Before, MaxNeighbours)
	}
	if a.After < 0 || a.After > MaxNeighbours {
		return nil, argErr(tool, "after", "%d: want 0 to %d", a.After, MaxNeighbours)
	}
	return &a, nil
}

// lookupCall is a checked lookup_fact call.
type lookupCall struct {
	Ticker   string
	Concepts []string // qualified, tried in order
	Metric   string   // the metric's name when asked by label
	Year     int      // fiscal year; 0 means the latest annual one in scope
	// YearToDate reads a quarterly report's longest column ending on its
	// period end rather than its quarter.
	YearToDate bool
	// Quarter reads a quarterly report's three-month column only.
	Quarter bool
	// FiscalQuarter reads that quarter (1-4) of the year from an annual
	// report's table of quarters; 0 for none.
	FiscalQuarter int
	// Outflow records a table row's amount as its magnitude.
	Outflow bool
	// Flow reads durations only, never a balance at a date.
	Flow bool
	// Stated are the words of a sentence stating a count (Concepts holds
	// its stated key); nil for a tagged or tabulated figure.
	Stated []string
	// Above is the table key of the total row a table row is read above;
	// "" for none.
	Above string
}

var conceptPattern = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9_-]*:)?[A-Za-z_][A-Za-z0-9_.-]*$`)

func checkConcept(tool, field, c string) (string, error) {
	c = strings.TrimSpace(c)
	switch {
	case c == "":
		return "", argErr(tool, field, "required: an XBRL concept such as \"us-gaap:GrossProfit\"")
	case len(QualifyConcept(c)) > maxConcept || !conceptPattern.MatchString(c):
		return "", argErr(tool, field, "%q is not an XBRL concept; want one such as \"us-gaap:GrossProfit\" or \"GrossProfit\"", c)
	}
	return QualifyConcept(c), nil
}

func metricNames() string {
	names := make([]string, len(Metrics))
	for i, m := range Metrics {
		names[i] = m.Name
	}
	return strings.Join(names, ", ")
}

func checkLookup(raw json.RawMessage, scope Scope) (*lookupCall, error) {
	const tool = LookupFact
	var a LookupFactArgs
	if err := decodeStrict(tool, "", raw, []string{"ticker", "concept", "label", "period", "year_to_date", "quarter", "fiscal_quarter", "outflow", "flow", "stated", "above"}, &a); err != nil {
		return nil, err
	}
	if a.YearToDate && a.Quarter {
		return nil, argErr(tool, "quarter", "a quarter's column and the year to date are asked apart; give one of quarter and year_to_date")
	}
	switch {
	case a.FiscalQuarter < 0 || a.FiscalQuarter > 4:
		return nil, argErr(tool, "fiscal_quarter", "%d: want 1 to 4, or 0 for none", a.FiscalQuarter)
	case a.FiscalQuarter > 0 && (a.YearToDate || a.Quarter):
		return nil, argErr(tool, "fiscal_quarter", "an annual report's quarter is asked without quarter or year_to_date, which read a quarterly report's columns")
	case a.FiscalQuarter > 0 && strings.TrimSpace(a.Period) == "":
		return nil, argErr(tool, "fiscal_quarter", "a quarter of a fiscal year needs the year: give period (\"FY2020\")")
	}
	c := lookupCall{YearToDate: a.YearToDate, Quarter: a.Quarter, FiscalQuarter: a.FiscalQuarter, Outflow: a.Outflow, Flow: a.Flow || a.FiscalQuarter > 0}
	if above := strings.TrimSpace(a.Above); above != "" {
		if !strings.HasPrefix(above, TablePrefix) || !strings.HasPrefix(strings.TrimSpace(a.Concept), TablePrefix) {
			return nil, argErr(tool, "above", "a table row (%q concept) read above a total row (%q key), both of a table", TablePrefix, TablePrefix)
		}
		q, err := checkFigureKey(tool, "above", above)
		if err != nil {
			return nil, err
		}
		c.Above = q
	}
	t, err := checkTicker(tool, "ticker", a.Ticker, scope)
	if err != nil {
		return nil, err
	}
	c.Ticker = t
	concept, label := strings.TrimSpace(a.Concept), strings.TrimSpace(a.Label)
	switch {
	case len(a.Stated) > 0:
		if label != "" || a.YearToDate || a.Quarter || a.FiscalQuarter > 0 || a.Outflow || a.Flow {
			return nil, argErr(tool, "stated", "a stated count is asked by a %q concept alone, without label, year_to_date, quarter, fiscal_quarter or outflow", StatedPrefix)
		}
		key, terms, err := checkStated(tool, concept, a.Stated)
		if err != nil {
			return nil, err
		}
		c.Concepts, c.Stated = []string{key}, terms
	case strings.HasPrefix(concept, StatedPrefix):
		return nil, argErr(tool, "stated", "required with a %q concept: the words a sentence stating the count holds", StatedPrefix)
	case concept == "" && label == "":
		return nil, argErr(tool, "concept", "required: a concept or a label (known labels: %s)", metricNames())
	case concept != "" && label != "":
		return nil, argErr(tool, "label", "give a concept or a label, not both")
	case concept != "":
		q, err := checkFigureKey(tool, "concept", concept)
		if err != nil {
			return nil, err
		}
		c.Concepts = []string{q}
	default:
		m, ok := MetricForLabel(label)
		if !ok {
			return nil, argErr(tool, "label", "%q is not a known metric (known: %s); or give an XBRL concept", label, metricNames())
		}
		c.Metric = m.Name
		c.Concepts = slices.Clone(m.Concepts)
	}
	if strings.TrimSpace(a.Period) != "" {
		y, err := checkPeriodLabel(tool, "period", a.Period, scope)
		if err != nil {
			return nil, err
		}
		c.Year = y
	}
	return &c, nil
}

// calculateCall is a checked calculate call.
type calculateCall struct {
	Expression string
	Tree       *exprNode
	Names      []string // in order of first use
	Refs       map[string]FactRef
	Years      map[string]int // name -> fiscal year of an "FY" period
}

func checkCalculate(raw json.RawMessage, scope Scope) (*calculateCall, error) {
	const tool = Calculate
	var a struct {
		Expression string                     `json:"expression"`
		Facts      map[string]json.RawMessage `json:"facts"`
	}
	if err := decodeStrict(tool, "", raw, []string{"expression", "facts"}, &a); err != nil {
		return nil, err
	}
	expr := strings.TrimSpace(a.Expression)
	if expr == "" {
		return nil, argErr(tool, "expression", "required: arithmetic over named facts, such as \"gross_profit / revenue\"")
	}
	if n := utf8.RuneCountInString(expr); n > MaxExpression {
		return nil, argErr(tool, "expression", "%d characters; at most %d", n, MaxExpression)
	}
	tree, err := parseExpr(expr)
	if err != nil {
		return nil, argErr(tool, "expression", "%v", err)
	}
	names := tree.names()
	if len(names) > MaxNames {
		return nil, argErr(tool, "expression", "%d names; at most %d", len(names), MaxNames)
	}
	if len(a.Facts) > MaxNames {
		return nil, argErr(tool, "facts", "%d facts; at most %d", len(a.Facts), MaxNames)
	}
	for _, n := range names {
		if _, ok := a.Facts[n]; !ok {
			return nil, argErr(tool, "facts", "%q is used in the expression but not bound to a fact", n)
		}
	}
	c := &calculateCall{Expression: expr, Tree: tree, Names: names, Refs: map[string]FactRef{}, Years: map[string]int{}}
	for _, n := range slices.Sorted(maps.Keys(a.Facts)) {
		field := "facts." + n
		if !validName(n) {
			return nil, argErr(tool, field, "%q is not a name; names are lower-case letters, digits and _, not starting with a digit", n)
		}
		if !slices.Contains(names, n) {
			return nil, argErr(tool, field, "not used in the expression")
		}
		var ref FactRef
		if err := decodeStrict(tool, field, a.Facts[n], []string{"ticker", "concept", "period", "prior", "fiscal_quarter"}, &ref); err != nil {
			return nil, err
		}
		if ref.FiscalQuarter < 0 || ref.FiscalQuarter > 4 {
			return nil, argErr(tool, field+".fiscal_quarter", "%d: want 1 to 4, or 0 for none", ref.FiscalQuarter)
		}
		if ref.FiscalQuarter > 0 && !fyPattern.MatchString(strings.TrimSpace(ref.Period)) {
			return nil, argErr(tool, field+".fiscal_quarter", "a quarter of a fiscal year needs the year: give period (\"FY2020\")")
		}
		if ref.Ticker, err = checkTicker(tool, field+".ticker", ref.Ticker, scope); err != nil {
			return nil, err
		}
		if ref.Concept, err = checkFigureKey(tool, field+".concept", ref.Concept); err != nil {
			return nil, err
		}
		ref.Period = strings.TrimSpace(ref.Period)
		switch {
		case ref.Period == "":
		case fyPattern.MatchString(ref.Period):
			y, err := checkPeriodLabel(tool, field+".period", ref.Period, scope)
			if err != nil {
				return nil, err
			}
			c.Years[n] = y
			ref.Period = PeriodLabel(y)
		default:
			if !validFactPeriod(ref.Period) {
				return nil, argErr(tool, field+".period", "%q: want a fiscal year such as \"FY2024\", or a fact's period such as \"2023-10-01/2024-09-28\" or \"2024-09-28\"", ref.Period)
			}
		}
		c.Refs[n] = ref
	}
	return c, nil
}

// validFactPeriod reports whether p is a ledger fact period: an instant
// "2024-09-28" or a duration "2023-10-01/2024-09-28".
func validFactPeriod(p string) bool {
	start, end, isDuration := strings.Cut(p, "/")
	if !isDuration {
		_, err := time.Parse(time.DateOnly, p)
		return err == nil
	}
	s, err1 := time.Parse(time.DateOnly, start)
	e, err2 := time.Parse(time.DateOnly, end)
	return err1 == nil && err2 == nil && !e.Before(s)
}

// tickers returns the scope's tickers upper-cased, sorted and distinct.
func (s Scope) tickers() []string {
	out := make([]string, 0, len(s.Tickers))
	for _, t := range s.Tickers {
		if t = strings.ToUpper(strings.TrimSpace(t)); t != "" {
			out = append(out, t)
		}
	}
	return slices.Compact(slices.Sorted(slices.Values(out)))
}

func (s Scope) hasTicker(t string) bool {
	t = strings.ToUpper(strings.TrimSpace(t))
	for _, x := range s.Tickers {
		if strings.ToUpper(strings.TrimSpace(x)) == t {
			return true
		}
	}
	return false
}

// hasYear reports whether fiscal year y is in scope; an empty list means any.
func (s Scope) hasYear(y int) bool {
	return len(s.FiscalYears) == 0 || slices.Contains(s.FiscalYears, y)
}

func (s Scope) yearList() string {
	if len(s.FiscalYears) == 0 {
		return "any"
	}
	ys := slices.Compact(slices.Sorted(slices.Values(s.FiscalYears)))
	parts := make([]string, len(ys))
	for i, y := range ys {
		parts[i] = strconv.Itoa(y)
	}
	return strings.Join(parts, ", ")
}
