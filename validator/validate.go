package validator

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/contract"
	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/tools"
)

// Input is what Validate checks an answer against: everything the run
// recorded and what the executor concluded about its requirements.
type Input struct {
	Answer          *Answer                // the synthesizer's answer; never modified
	Ledger          *ledger.RunLedger      // everything the run recorded
	Requirements    []contract.Requirement // the plan's requirements, with their Required flags
	Met             map[string]bool        // requirement id -> its completion condition is met
	Gaps            []Gap                  // gaps the executor recorded (failed sources, stop rule, budget)
	BudgetExhausted bool                   // gathering stopped at a budget limit
	Refused         bool                   // the router refused the question
	NotCovered      []string               // issuers the question names that the corpus does not hold
}

// Problem kinds a Report lists.
const (
	ProblemUnknownEvidence       = "unknown_evidence"        // a citation names evidence the run never recorded
	ProblemNotVerbatim           = "not_verbatim"            // a citation's excerpt is not a verbatim part of its evidence
	ProblemInvalidIndex          = "invalid_index"           // a citation's index is below 1
	ProblemDuplicateIndex        = "duplicate_index"         // a second citation with an index already used
	ProblemUnreferenced          = "unreferenced"            // a citation no marker refers to
	ProblemMarkerWithoutCitation = "marker_without_citation" // a marker [n] with no valid citation n
	ProblemClaimWithoutCitation  = "claim_without_citation"  // a sentence lost every citation it had, and was removed
	ProblemUncitedFigure         = "uncited_figure"          // a sentence stated an amount or percentage with no citation, and was removed
	ProblemCalculationMismatch   = "calculation_mismatch"    // a calculation does not recompute from the ledger's facts
	ProblemUncoveredRequirement  = "uncovered_requirement"   // a required requirement is not met
	ProblemEmptyAnswer           = "empty_answer"            // nothing of the answer's text survived
	ProblemAdvice                = "advice"                  // a sentence gave investment advice, and was removed
)

// Problem is one thing Validate found wrong and corrected.
type Problem struct {
	Kind       string `json:"kind"`                  // one of the Problem* kinds
	Citation   int    `json:"citation,omitempty"`    // the citation index (as the synthesizer numbered it), when one is involved
	EvidenceID string `json:"evidence_id,omitempty"` // the evidence involved, if any
	Detail     string `json:"detail"`
}

// Report says what Validate changed.
type Report struct {
	Problems []Problem `json:"problems"`
	Kept     int       `json:"kept"`    // citations in the validated answer
	Dropped  int       `json:"dropped"` // citations of the input not in it (dropped, pruned or merged)
}

// Count returns how many problems of kind the report lists.
func (r *Report) Count(kind string) int {
	n := 0
	for _, p := range r.Problems {
		if p.Kind == kind {
			n++
		}
	}
	return n
}

// Validate checks an answer against the run's ledger and returns a new,
// validated answer; in.Answer is never modified. In order:
//
//   - Citations: one naming evidence the ledger does not hold, or whose
//     excerpt is not Verbatim in that evidence's excerpt (an empty excerpt
//     never is), is dropped.
//   - Calculations: each is recomputed with tools.Evaluate from the values
//     of the ledger facts it names; a calculation whose inputs are not
//     ledger facts, whose values differ from the facts', or whose result
//     differs at 6 decimal places, is dropped, and so is every sentence
//     stating its result (see below).
//   - Text: markers are [n], [n][m] and [n, m]. The text is split into
//     lines and sentences. A marker pointing at no valid citation is
//     removed; a sentence that had markers and lost all of them is removed
//     (a claim without a citation does not stand), and so is a sentence
//     with no marker that states an amount or a percentage outside double
//     quotes (unless it states a verified calculation's result, or is on a
//     line starting "Not found:", which reports a gap), and a sentence
//     giving investment advice. Citations no surviving marker
//     refers to are pruned; the rest are renumbered 1..k in order of first
//     appearance, one citation per (evidence, excerpt), and markers are
//     rewritten as [n][m].
//   - Contradictions are the ledger's plus DetectContradictions', by id.
//   - Gaps are the executor's, the answer's own, and one per required
//     requirement not met.
//   - Status is DecideStatus's; the synthesizer's proposal is ignored.
//
// A sentence states a calculation's result when it holds the result as a
// number with 1 or 2 decimals (as is, or times 100 as a percentage, sign
// ignored), as a whole percentage, as an integer with thousands separators
// when it is at least 1,000, or in billions (2 decimals) or millions
// (whole, with separators) when it is that large.
func Validate(in *Input) (*Answer, *Report) {
	if in == nil {
		in = &Input{}
	}
	src := in.Answer
	if src == nil {
		src = &Answer{}
	}
	l := in.Ledger
	if l == nil {
		l = &ledger.RunLedger{}
	}
	v := &validation{in: in, rep: &Report{Problems: []Problem{}}}

	evidence := make(map[string]*ledger.Evidence, len(l.Evidence))
	for i := range l.Evidence {
		evidence[l.Evidence[i].ID] = &l.Evidence[i]
	}
	facts := make(map[string]*ledger.Fact, len(l.Facts))
	for i := range l.Facts {
		facts[l.Facts[i].ID] = &l.Facts[i]
	}

	valid := v.checkCitations(src.Citations, evidence)
	calcs, bad := v.checkCalculations(src.Calculations, facts)
	v.good = make([][]string, len(calcs))
	for i, c := range calcs {
		v.good[i] = resultForms(c.Result)
	}
	v.bad = bad

	pieces := v.rewrite(src.Answer, valid)
	text, cites := v.renumber(pieces, valid)

	out := &Answer{
		Answer:       text,
		Citations:    cites,
		Calculations: calcs,
	}
	if strings.TrimSpace(out.Answer) == "" {
		v.problem(ProblemEmptyAnswer, 0, "", "no statement of the answer survived validation")
		if in.Refused {
			out.Answer = "The question was refused."
		} else {
			out.Answer = "No statement of the answer could be supported by the evidence this run recorded."
		}
	}

	out.Contradictions = mergeContradictions(l.Contradictions, DetectContradictions(in.Requirements, l))
	out.Gaps = v.gaps(src.Gaps, l)

	cited := make(map[string]bool, len(cites))
	for _, c := range cites {
		cited[c.EvidenceID] = true
	}
	for _, c := range calcs {
		for _, id := range c.Inputs {
			if f, ok := facts[id]; ok {
				cited[f.EvidenceID] = true
			}
		}
	}
	// A requirement the answer names as unstated is not answered,
	// whatever the evidence meets.
	met, cloned := in.Met, false
	for _, g := range src.Gaps {
		if !g.Unstated || g.RequirementID == "" || !in.Met[g.RequirementID] {
			continue
		}
		if !cloned {
			met, cloned = maps.Clone(in.Met), true
		}
		met[g.RequirementID] = false
	}
	out.Status = DecideStatus(StatusInput{
		Refused:         in.Refused,
		BudgetExhausted: in.BudgetExhausted,
		Requirements:    in.Requirements,
		Met:             met,
		Contradictions:  out.Contradictions,
		CitedEvidence:   cited,
		Citations:       len(cites),
		NotCovered:      in.NotCovered,
	})
	v.rep.Kept = len(cites)
	v.rep.Dropped = len(src.Citations) - len(cites)
	return out, v.rep
}

// validation is the state of one Validate call.
type validation struct {
	in   *Input
	rep  *Report
	good [][]string       // result forms of verified calculations
	bad  []badCalculation // calculations that did not recompute
}

type badCalculation struct {
	calc  contract.Calculation
	forms []string
}

func (v *validation) problem(kind string, citation int, evidenceID, detail string) {
	v.rep.Problems = append(v.rep.Problems, Problem{Kind: kind, Citation: citation, EvidenceID: evidenceID, Detail: detail})
}

// checkCitations returns the valid citations by index.
func (v *validation) checkCitations(cs []Citation, evidence map[string]*ledger.Evidence) map[int]Citation {
	valid := make(map[int]Citation, len(cs))
	seen := make(map[int]bool, len(cs))
	for _, c := range cs {
		switch {
		case c.Index < 1:
			v.problem(ProblemInvalidIndex, c.Index, c.EvidenceID, fmt.Sprintf("citation index %d is below 1", c.Index))
			continue
		case seen[c.Index]:
			v.problem(ProblemDuplicateIndex, c.Index, c.EvidenceID, fmt.Sprintf("a second citation numbered %d was dropped", c.Index))
			continue
		}
		seen[c.Index] = true
		e, ok := evidence[c.EvidenceID]
		if !ok {
			v.problem(ProblemUnknownEvidence, c.Index, c.EvidenceID, fmt.Sprintf("evidence %q is not in the run's ledger", c.EvidenceID))
			continue
		}
		if !Verbatim(c.Excerpt, e.Excerpt) {
			v.problem(ProblemNotVerbatim, c.Index, c.EvidenceID, fmt.Sprintf("excerpt %q is not a verbatim part of evidence %s", clip(c.Excerpt, 120), c.EvidenceID))
			continue
		}
		c.Excerpt = strings.TrimSpace(c.Excerpt)
		valid[c.Index] = c
	}
	return valid
}

// checkCalculations returns the calculations that recompute and those that
// do not.
func (v *validation) checkCalculations(cs []contract.Calculation, facts map[string]*ledger.Fact) ([]contract.Calculation, []badCalculation) {
	var good []contract.Calculation
	var bad []badCalculation
	for _, c := range cs {
		if why := recompute(c, facts); why != "" {
			v.problem(ProblemCalculationMismatch, 0, "", fmt.Sprintf("%s = %s: %s", c.Expression, c.Result.String(), why))
			bad = append(bad, badCalculation{calc: c, forms: resultForms(c.Result)})
			continue
		}
		good = append(good, c.Clone())
	}
	return good, bad
}

// recompute returns why c does not recompute from the ledger's facts, or "".
func recompute(c contract.Calculation, facts map[string]*ledger.Fact) string {
	if len(c.Inputs) == 0 {
		return "it names no ledger facts"
	}
	vars := make(map[string]decimal.Decimal, len(c.Inputs))
	for _, name := range slices.Sorted(maps.Keys(c.Inputs)) {
		id := c.Inputs[name]
		f, ok := facts[id]
		if !ok {
			return fmt.Sprintf("input %s names fact %q, which is not in the run's ledger", name, id)
		}
		s, ok := c.Values[name]
		if !ok {
			return fmt.Sprintf("input %s has no value", name)
		}
		val, err := decimal.NewFromString(s)
		if err != nil {
			return fmt.Sprintf("input %s has value %q, which is not a number", name, s)
		}
		if !val.Equal(f.Value) {
			return fmt.Sprintf("input %s is %s but fact %s is %s", name, s, id, f.Value.String())
		}
		vars[name] = f.Value
	}
	for _, name := range slices.Sorted(maps.Keys(c.Values)) {
		if _, ok := c.Inputs[name]; !ok {
			return fmt.Sprintf("value %s names no input fact", name)
		}
	}
	got, err := tools.Evaluate(c.Expression, vars)
	if err != nil {
		return fmt.Sprintf("it does not evaluate: %v", err)
	}
	if !got.Round(6).Equal(c.Result.Round(6)) {
		return fmt.Sprintf("it recomputes to %s", got.Round(6).String())
	}
	return ""
}

// piece is a run of answer text or a marker group (old citation indexes).
type piece struct {
	text   string
	marker bool
	refs   []int
}

// rewrite splits the answer into lines and sentences, drops the sentences
// that may not stand and the markers without a valid citation, and returns
// what remains as pieces, lines separated by "\n" text pieces.
func (v *validation) rewrite(text string, valid map[int]Citation) []piece {
	var lines [][]piece
	for _, line := range strings.Split(text, "\n") {
		if strings.TrimSpace(line) == "" {
			if len(lines) > 0 && lines[len(lines)-1] != nil {
				lines = append(lines, nil) // one blank line between paragraphs
			}
			continue
		}
		prefix := linePrefix(line)
		gap := strings.HasPrefix(line[len(prefix):], notFound)
		var lp []piece
		dropped := false
		for _, seg := range splitSentences(line[len(prefix):]) {
			ps, keep := v.sentence(seg, valid, gap)
			if !keep {
				dropped = true
				continue
			}
			lp = append(lp, ps...)
		}
		if dropped && !hasAlnum(lp) {
			continue
		}
		trimTrailingSpace(lp)
		lines = append(lines, append([]piece{{text: prefix}}, lp...))
	}
	for len(lines) > 0 && lines[len(lines)-1] == nil {
		lines = lines[:len(lines)-1]
	}
	var out []piece
	for i, lp := range lines {
		if i > 0 {
			out = append(out, piece{text: "\n"})
		}
		out = append(out, lp...)
	}
	return out
}

// notFound starts a line that reports a gap: what was not found, and why.
// Such a line states no figure of the filings, so an amount in it (a budget
// spent, say) needs no citation.
const notFound = "Not found:"

// sentence checks one sentence; it returns its pieces and whether it stays.
// gap is set for the sentences of a "Not found:" line.
func (v *validation) sentence(seg string, valid map[int]Citation, gap bool) ([]piece, bool) {
	groups := parseMarkers(seg)
	var ps []piece
	var plain strings.Builder
	kept, pos := 0, 0
	for _, g := range groups {
		ps = append(ps, piece{text: seg[pos:g.start]})
		plain.WriteString(seg[pos:g.start])
		var refs []int
		for _, r := range g.refs {
			if _, ok := valid[r]; ok {
				if !slices.Contains(refs, r) {
					refs = append(refs, r)
				}
				continue
			}
			v.problem(ProblemMarkerWithoutCitation, r, "", fmt.Sprintf("marker [%d] points at no valid citation; removed", r))
		}
		if len(refs) > 0 {
			ps = append(ps, piece{marker: true, refs: refs})
			kept++
		} else if next := seg[g.end:]; next == "" || strings.ContainsRune(" \t.,;:!?)", rune(next[0])) {
			trimTrailingSpace(ps)
		}
		pos = g.end
	}
	ps = append(ps, piece{text: seg[pos:]})
	plain.WriteString(seg[pos:])
	stated := plain.String()

	if len(groups) > 0 && kept == 0 {
		v.problem(ProblemClaimWithoutCitation, 0, "", fmt.Sprintf("removed %q: it lost every citation it had", clip(strings.TrimSpace(stated), 160)))
		return nil, false
	}
	for _, b := range v.bad {
		if statesAny(stated, b.forms) {
			v.problem(ProblemCalculationMismatch, 0, "", fmt.Sprintf("removed %q: it states the result of %s, which does not recompute", clip(strings.TrimSpace(stated), 160), b.calc.Expression))
			return nil, false
		}
	}
	if v.in.Refused {
		return ps, true
	}
	outside := outsideQuotes(stated)
	if advice.MatchString(outside) {
		v.problem(ProblemAdvice, 0, "", fmt.Sprintf("removed %q: it gives investment advice", clip(strings.TrimSpace(stated), 160)))
		return nil, false
	}
	if kept == 0 && !gap && figure.MatchString(outside) && !v.statesVerified(stated) {
		v.problem(ProblemUncitedFigure, 0, "", fmt.Sprintf("removed %q: it states a figure without a citation", clip(strings.TrimSpace(stated), 160)))
		return nil, false
	}
	return ps, true
}

func (v *validation) statesVerified(s string) bool {
	for _, forms := range v.good {
		if statesAny(s, forms) {
			return true
		}
	}
	return false
}

// renumber numbers the cited citations 1..k in order of first appearance,
// one per (evidence, excerpt), renders the text and reports the unreferenced.
func (v *validation) renumber(pieces []piece, valid map[int]Citation) (string, []Citation) {
	newIndex := make(map[int]int, len(valid))
	byKey := make(map[string]int, len(valid))
	cites := []Citation{}
	var b strings.Builder
	for _, p := range pieces {
		if !p.marker {
			b.WriteString(p.text)
			continue
		}
		var written []int
		for _, r := range p.refs {
			n, ok := newIndex[r]
			if !ok {
				c := valid[r]
				key := c.EvidenceID + "\x00" + Normalize(c.Excerpt)
				if n, ok = byKey[key]; !ok {
					n = len(cites) + 1
					byKey[key] = n
					cites = append(cites, Citation{Index: n, EvidenceID: c.EvidenceID, Excerpt: c.Excerpt})
				}
				newIndex[r] = n
			}
			if !slices.Contains(written, n) {
				written = append(written, n)
				fmt.Fprintf(&b, "[%d]", n)
			}
		}
	}
	for _, old := range slices.Sorted(maps.Keys(valid)) {
		if _, ok := newIndex[old]; !ok {
			v.problem(ProblemUnreferenced, old, valid[old].EvidenceID, fmt.Sprintf("citation %d is referred to by no surviving marker; pruned", old))
		}
	}
	return stripStrayMarkers(strings.TrimSpace(b.String()), len(cites)), cites
}

// stripStrayMarkers removes marker groups outside 1..k that removing other
// markers may have formed out of surrounding text ("[1 [9]]").
func stripStrayMarkers(s string, k int) string {
	for {
		groups := parseMarkers(s)
		var b strings.Builder
		pos, changed := 0, false
		for _, g := range groups {
			ok := true
			for _, r := range g.refs {
				if r < 1 || r > k {
					ok = false
				}
			}
			if ok {
				continue
			}
			b.WriteString(s[pos:g.start])
			pos, changed = g.end, true
		}
		if !changed {
			return s
		}
		b.WriteString(s[pos:])
		s = b.String()
	}
}

// gaps returns the executor's gaps, the answer's own not already listed,
// and one per required requirement not met that no gap explains yet.
func (v *validation) gaps(answerGaps []Gap, l *ledger.RunLedger) []Gap {
	out := []Gap{}
	seenReq := map[string]bool{}
	seen := map[string]bool{}
	add := func(g Gap) {
		key := g.RequirementID + "\x00" + g.What
		if seen[key] || (g.RequirementID != "" && seenReq[g.RequirementID]) {
			return
		}
		seen[key] = true
		if g.RequirementID != "" {
			seenReq[g.RequirementID] = true
		}
		out = append(out, g)
	}
	for _, g := range v.in.Gaps {
		add(g)
	}
	for _, g := range answerGaps {
		add(g)
	}
	conditions := make(map[string]string, len(l.Requirements))
	for _, r := range l.Requirements {
		conditions[r.ID] = r.CompletionCondition
	}
	for _, r := range v.in.Requirements {
		if !r.Required || v.in.Met[r.ID] {
			continue
		}
		v.problem(ProblemUncoveredRequirement, 0, "", fmt.Sprintf("required requirement %s (%s) is not met", r.ID, r.Need))
		cond := conditions[r.ID]
		if cond == "" {
			cond = DescribeCondition(r.Completion)
		}
		add(Gap{RequirementID: r.ID, Issuer: r.Issuer, What: r.Need, Why: "no evidence meeting: " + cond})
	}
	return out
}

// mergeContradictions returns recorded then detected, each id once.
func mergeContradictions(recorded, detected []ledger.Contradiction) []ledger.Contradiction {
	out := []ledger.Contradiction{}
	seen := map[string]bool{}
	for _, list := range [][]ledger.Contradiction{recorded, detected} {
		for _, c := range list {
			c.EvidenceIDs = slices.Clone(c.EvidenceIDs)
			if c.ID == "" {
				c.ID = ledger.ContradictionID(c.RequirementID, c.EvidenceIDs)
			}
			if seen[c.ID] {
				continue
			}
			seen[c.ID] = true
			out = append(out, c)
		}
	}
	return out
}

// markerGroup is one bracketed marker: [n] or [n, m, ...].
type markerGroup struct {
	start, end int // byte span in the text, brackets included
	refs       []int
}

// maxMarkerDigits bounds a marker number; longer digit runs are text.
const maxMarkerDigits = 6

// parseMarkers returns the marker groups of s in order. [1][2] is two
// groups; [1, 2] and [1,2] are one. Anything else in brackets is text.
func parseMarkers(s string) []markerGroup {
	var out []markerGroup
	for i := 0; i < len(s); i++ {
		if s[i] != '[' {
			continue
		}
		if g, ok := markerAt(s, i); ok {
			out = append(out, g)
			i = g.end - 1
		}
	}
	return out
}

// markerAt parses a marker group starting at s[i].
func markerAt(s string, i int) (markerGroup, bool) {
	if i >= len(s) || s[i] != '[' {
		return markerGroup{}, false
	}
	j := i + 1
	var refs []int
	for {
		n, k := 0, j
		for k < len(s) && k-j < maxMarkerDigits && s[k] >= '0' && s[k] <= '9' {
			n = n*10 + int(s[k]-'0')
			k++
		}
		if k == j || (k < len(s) && s[k] >= '0' && s[k] <= '9') {
			return markerGroup{}, false
		}
		refs = append(refs, n)
		j = skipSpaces(s, k)
		if j < len(s) && s[j] == ']' {
			return markerGroup{start: i, end: j + 1, refs: refs}, true
		}
		if j >= len(s) || s[j] != ',' {
			return markerGroup{}, false
		}
		j = skipSpaces(s, j+1)
	}
}

func skipSpaces(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// bullet is a line's list prefix, kept apart so that dropping the first
// sentence of an item does not drop its bullet.
var bullet = regexp.MustCompile(`^[ \t]*(?:[-*•]|\d{1,3}[.)])[ \t]+`)

func linePrefix(line string) string {
	return bullet.FindString(line)
}

// splitSentences splits a line into sentences whose concatenation is the
// line. A sentence ends at . ! or ? followed (after closing quotes or
// brackets) by white space or the end of the line, and takes the markers
// and white space after it; the next sentence must not start in lower
// case, so "e.g. this" and "U.S. sales" do not split. A double-quoted span
// is never split: a quotation and its marker stay one sentence.
func splitSentences(s string) []string {
	var out []string
	start := 0
	var qs quoteState
	for i := 0; i < len(s); i++ {
		if q, size := quoteAt(s, i); size > 0 {
			qs.see(q)
			i += size - 1
			continue
		}
		if c := s[i]; c != '.' && c != '!' && c != '?' {
			continue
		}
		j := i + 1
		for j < len(s) {
			if q, size := quoteAt(s, j); size > 0 {
				qs.see(q)
				j += size
				continue
			}
			if s[j] == '\'' || s[j] == ')' {
				j++
				continue
			}
			if strings.HasPrefix(s[j:], "’") {
				j += len("’")
				continue
			}
			break
		}
		i = j - 1
		if qs.quoted() {
			continue
		}
		k := j
		for {
			g, ok := markerAt(s, skipSpaces(s, k))
			if !ok {
				break
			}
			k = g.end
		}
		if k == j && j < len(s) && s[j] != ' ' && s[j] != '\t' {
			continue
		}
		n := skipSpaces(s, k)
		if n < len(s) {
			r, _ := utf8.DecodeRuneInString(s[n:])
			if unicode.IsLower(r) {
				continue
			}
		}
		out = append(out, s[start:n])
		start = n
		i = n - 1
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// quoteMark is a double quotation mark: straight ones toggle, curly ones
// open or close.
type quoteMark int

const (
	quoteStraight quoteMark = iota
	quoteOpen
	quoteClose
)

// quoteState follows the quotations of a line. A quotation opened by a
// straight mark closes at the next straight mark, whatever curly marks the
// quoted text holds (“GAAP” inside a quoted sentence); one opened by a
// curly mark closes at its closing mark, nesting, with straight marks
// inside it taken as the quoted text's own.
type quoteState struct {
	straight bool // inside a straight-quoted span
	curly    int  // depth of curly quotation marks
}

func (st *quoteState) see(q quoteMark) {
	switch {
	case st.straight:
		if q == quoteStraight {
			st.straight = false
		}
	case st.curly > 0:
		switch q {
		case quoteOpen:
			st.curly++
		case quoteClose:
			st.curly--
		}
	case q == quoteStraight:
		st.straight = true
	case q == quoteOpen:
		st.curly = 1
	}
}

func (st *quoteState) quoted() bool { return st.straight || st.curly > 0 }

// quoteAt returns the double quotation mark at s[i] and its size, or size 0.
func quoteAt(s string, i int) (quoteMark, int) {
	switch {
	case s[i] == '"':
		return quoteStraight, 1
	case strings.HasPrefix(s[i:], "“"):
		return quoteOpen, len("“")
	case strings.HasPrefix(s[i:], "”"):
		return quoteClose, len("”")
	}
	return 0, 0
}

func hasAlnum(ps []piece) bool {
	for _, p := range ps {
		if p.marker {
			continue
		}
		for _, r := range p.text {
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				return true
			}
		}
	}
	return false
}

// trimTrailingSpace trims the spaces ending the last text piece.
func trimTrailingSpace(ps []piece) {
	if len(ps) > 0 && !ps[len(ps)-1].marker {
		ps[len(ps)-1].text = strings.TrimRight(ps[len(ps)-1].text, " \t")
	}
}

// outsideQuotes returns s without its double-quoted spans: quoted filing
// text is evidence, not the answer's own words.
func outsideQuotes(s string) string {
	var b strings.Builder
	var qs quoteState
	for i := 0; i < len(s); i++ {
		if q, size := quoteAt(s, i); size > 0 {
			qs.see(q)
			i += size - 1
			continue
		}
		if !qs.quoted() {
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

var (
	// figure is an amount or a percentage stated in the answer's words.
	figure = regexp.MustCompile(`(?i)\$\s?\d|\d\s?%|\d\s?(?:percent|per cent|trillion|billion|million|thousand)\b`)
	// advice is recommendation language: the engine reports, it never advises.
	advice = regexp.MustCompile(`(?i)\b(?:you|investors|one|we|i)\s+(?:should|must|ought to)\s+(?:buy|sell|hold|short|invest|purchase|avoid|accumulate)\b` +
		`|\b(?:we|i)\s+(?:would\s+)?recommend\b` +
		`|\brecommend(?:s|ed|ing)?\s+(?:buying|selling|holding|investing|shorting)\b` +
		`|\bstrong\s+(?:buy|sell)\b` +
		`|\b(?:buy|sell|hold|outperform|underperform|overweight|underweight)\s+rating\b` +
		`|\bprice\s+target\b` +
		`|\b(?:is|are|looks?)\s+(?:a\s+)?(?:good|great|bad|attractive|solid)\s+(?:investment|buy)\b`)
)

var (
	billion = decimal.New(1, 9)
	million = decimal.New(1, 6)
	hundred = decimal.NewFromInt(100)
)

// resultForms returns the ways an answer may state a calculation's result.
func resultForms(r decimal.Decimal) []string {
	a := r.Abs()
	var forms []string
	add := func(s string) {
		if !slices.Contains(forms, s) {
			forms = append(forms, s)
		}
	}
	for _, x := range []decimal.Decimal{a, a.Mul(hundred)} {
		for _, d := range []int32{1, 2} {
			s := x.StringFixed(d)
			add(s)
			add(group(s))
		}
		add(x.StringFixed(0) + "%")
	}
	if a.Cmp(decimal.NewFromInt(1000)) >= 0 {
		add(group(a.StringFixed(0)))
	}
	if a.Cmp(billion) >= 0 {
		add(a.Div(billion).StringFixed(2) + " billion")
	}
	if a.Cmp(million) >= 0 {
		add(group(a.Div(million).StringFixed(0)) + " million")
	}
	return forms
}

// group inserts thousands separators into a plain decimal string.
func group(s string) string {
	intPart, frac, _ := strings.Cut(s, ".")
	if len(intPart) <= 3 {
		return s
	}
	var b strings.Builder
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if frac != "" {
		b.WriteByte('.')
		b.WriteString(frac)
	}
	return b.String()
}

// statesAny reports whether s holds one of the forms as a whole number: not
// inside a longer number.
func statesAny(s string, forms []string) bool {
	for _, f := range forms {
		for off := 0; ; {
			i := strings.Index(s[off:], f)
			if i < 0 {
				break
			}
			i += off
			end := i + len(f)
			if !digitBefore(s, i) && !digitAfter(s, end) {
				return true
			}
			off = i + 1
		}
	}
	return false
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// digitBefore reports whether the number at s[i:] continues a number before it.
func digitBefore(s string, i int) bool {
	if i == 0 {
		return false
	}
	if isDigit(s[i-1]) {
		return true
	}
	return (s[i-1] == '.' || s[i-1] == ',') && i >= 2 && isDigit(s[i-2])
}

// digitAfter reports whether the number ending at s[:end] continues after it.
func digitAfter(s string, end int) bool {
	if end >= len(s) {
		return false
	}
	if isDigit(s[end]) {
		return true
	}
	return (s[end] == '.' || s[end] == ',') && end+1 < len(s) && isDigit(s[end+1])
}

// clip shortens s to about n bytes on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
