package planner

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/contract"
	"github.com/ledgerline/research/ledger"
	"github.com/ledgerline/research/tools"
)

// A ratio computed from a filing's figures is often printed by the filing
// too, untagged: a row of a table "as a percentage of revenue" ("Income
// from operations | 42 | 35 | 25"), a ratio row of a segment table
// ("Operating margin | 54% | 47% | ... | 42% | 35%") or a sentence. The
// reader is owed the filing's own figure beside the computed one (42%
// beside 42.2%), and it is found by method: a line that names the ratio or
// its numerator and prints the computed result at the digits it shows.

// printedSuffix ends the id of the requirement for a calculation's printed
// figure: the calculation's id and this.
const printedSuffix = "-printed"

// PrintedID returns the id of the requirement for the filing's printed
// figure of the calculation calcID.
func PrintedID(calcID string) string { return calcID + printedSuffix }

// planPrinted plans, beside the ratio d computed under calcID for issuer t
// and period p, a search of the filing for the ratio as it prints it (see
// planPrintedAs). A ratio the filing tags or labels (planReportedRatio) is
// already read as reported.
func (b *builder) planPrinted(t string, p filingPeriod, d tools.Derived, calcID string, m reqMeta) {
	if !d.Ratio {
		return
	}
	prefix := t + "-" + tools.PeriodLabel(p.fy) + "-"
	for _, r := range b.g.Requirements {
		if strings.HasPrefix(r.ID, prefix) && strings.Contains(r.ID, "-reported-") && strings.HasSuffix(r.ID, slug(d.Label)) {
			return
		}
	}
	b.planPrintedAs(t, p, d.Label, printedNames(d), printedQuery(d), calcID, m)
}

// planPrintedAs plans the search for a computed ratio, what, as the filing
// prints it (query), and the optional requirement it meets
// (CondPrinted): a line naming the ratio (one of names) or its
// numerator's row that prints the computed result.
func (b *builder) planPrintedAs(t string, p filingPeriod, what string, names []string, query, calcID string, m reqMeta) {
	if !p.found || len(names) == 0 {
		return
	}
	period := tools.PeriodLabel(p.fy)
	id := PrintedID(calcID)
	if !b.addReq(Requirement{
		ID: id, Issuer: t, Period: period, Aspect: "figures", Kind: KindFigure, Required: false,
		Need:       fmt.Sprintf("%s's %s for %s as its %s %s prints it", b.cat.ShortName(t), what, period, tools.PeriodLabel(p.doc.FiscalYear), p.doc.Form),
		Completion: Condition{Kind: CondPrinted, Issuer: t, Period: period, Topic: what, AllOf: [][]string{names}, Of: []string{calcID}},
	}, m) {
		return
	}
	// Ratios are printed in the discussion of results, not in the
	// statements or the risk factors, whose mentions of the ratio's name
	// outrank it for a query this short.
	b.addNode(tools.SearchFilings, b.searchArgs(t, p, query, "Item 7", 8), []string{id})
}

// printedNames are the lower-case names a line printing ratio d may give
// it: its label and aliases, less the words that frame a share ("as a
// percentage of revenue" is what the line's percent sign says).
func printedNames(d tools.Derived) []string {
	var names []string
	add := func(s string) {
		s = strings.ToLower(strings.TrimSpace(s))
		for _, frame := range []string{" as a percentage of revenue", " as a percentage of sales", " as a share of revenue", " as a percent of revenue", " as % of revenue"} {
			s = strings.TrimSuffix(s, frame)
		}
		if s != "" && !strings.ContainsAny(s, "%") && !slices.Contains(names, s) {
			names = append(names, s)
		}
	}
	add(d.Label)
	for _, a := range d.Aliases {
		add(a)
	}
	return names
}

// printedQuery is what the filing is searched for: the ratio's label, or
// for a share of revenue its numerator's label and "percentage of
// revenue", the words of a table's caption.
func printedQuery(d tools.Derived) string {
	if strings.Contains(d.Label, "percentage of") {
		if in := d.Inputs(); len(in) > 0 {
			if mt, ok := tools.MetricByName(in[0]); ok {
				return mt.Label + " percentage of revenue"
			}
		}
	}
	return d.Label
}

// CheckPrinted checks a CondPrinted requirement: a passage linked to it,
// of its issuer and period, with a line that names the ratio (AllOf[0])
// or the numerator of calc as its row label prints it, and prints calc's
// result as a percentage at the digits it shows. calc is the calculation
// of Completion.Of[0]; nil meets nothing.
func CheckPrinted(req Requirement, l *ledger.RunLedger, calc *contract.Calculation) ([]string, bool) {
	c := req.Completion
	if c.Kind != CondPrinted || l == nil || calc == nil || len(c.AllOf) == 0 {
		return nil, false
	}
	lr := ledgerRequirement(l, req.ID)
	if lr == nil {
		return nil, false
	}
	names := PrintedNames(req, l, calc)
	byID := make(map[string]*ledger.Evidence, len(l.Evidence))
	for i := range l.Evidence {
		byID[l.Evidence[i].ID] = &l.Evidence[i]
	}
	var ids []string
	for _, id := range lr.Evidence {
		e := byID[id]
		if e == nil || e.Kind != ledger.KindPassage || e.Ticker != cmp.Or(c.Issuer, req.Issuer) || slices.Contains(ids, id) {
			continue
		}
		if p := cmp.Or(c.Period, req.Period); p != "" && e.Period != p {
			continue
		}
		if _, _, ok := PrintedLine(e.Excerpt, names, calc.Result); ok {
			ids = append(ids, id)
		}
	}
	return ids, len(ids) > 0
}

// PrintedNames are the names a line printing the calculation's ratio may
// give it: the requirement's (AllOf[0]) and the row label the filing
// prints beside the numerator's figure ("Income from operations"), where
// the numerator is not also the denominator (a gross margin's revenue).
func PrintedNames(req Requirement, l *ledger.RunLedger, calc *contract.Calculation) []string {
	var names []string
	if len(req.Completion.AllOf) > 0 {
		names = append(names, req.Completion.AllOf[0]...)
	}
	in := exprNames.FindAllString(calc.Expression, -1)
	_, denom, ok := strings.Cut(calc.Expression, "/")
	if !ok || len(in) == 0 || slices.Contains(exprNames.FindAllString(denom, -1), in[0]) {
		return names
	}
	factID := calc.Inputs[in[0]]
	for _, f := range l.Facts {
		if f.ID != factID {
			continue
		}
		for _, e := range l.Evidence {
			if e.ID == f.EvidenceID {
				if label := rowLabel(e.Excerpt); label != "" && !slices.Contains(names, label) {
					names = append(names, label)
				}
			}
		}
	}
	return names
}

// rowLabel returns the lower-case label of a table row ("Income from
// operations | 69,380 | ..." or "Research and development 13,556 17.4 %"):
// the words before its first figure; "" for a line that does not open
// with words.
func rowLabel(excerpt string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(excerpt), "\n")
	i := strings.IndexAny(line, "|$0123456789(")
	if i <= 0 {
		return ""
	}
	label := strings.ToLower(strings.TrimSpace(strings.TrimRight(line[:i], " :")))
	if len(strings.Fields(label)) == 0 || len(label) < 4 {
		return ""
	}
	return label
}

// printedPercent is a number a line may print a ratio as: not an amount
// of dollars, not a number with thousands separators, with its sign in
// parentheses or a minus, and its percent sign where printed.
var printedPercent = regexp.MustCompile(`(\$\s*)?(\(|-)?\b(\d{1,3}(?:\.\d{1,2})?)\b(\))?(\s?%)?`)

// percentCaption marks text that states its figures as percentages: a
// table "as a percentage of revenue", "% of net revenue", "Year-over-year
// Percentage Growth".
var percentCaption = regexp.MustCompile(`(?i)\bpercent(age)?\s+(of|growth|change|increase|decrease)\b|% of\b`)

// PrintedLine finds, in excerpt, a line (a table row, or a sentence of
// prose) that names the ratio (one of names, or a "% of ..." row under a
// line that does) and prints result, a ratio, as a percentage at the
// digits it shows: 0.4218 is printed "42%", "42", "42.2" or "(42)" for a
// negative one. A number without a percent sign counts only under a
// caption that states percentages. It returns the line and the number as
// printed, with its percent sign.
func PrintedLine(excerpt string, names []string, result decimal.Decimal) (line, printed string, ok bool) {
	pct := result.Shift(2)
	lines := strings.Split(excerpt, "\n")
	named := func(s string) bool {
		s = normalizeText(s)
		for _, n := range names {
			if termIn(s, normalizeTerm(n)) {
				return true
			}
		}
		return false
	}
	offset := 0
	for i, ln := range lines {
		before := excerpt[:offset]
		offset += len(ln) + 1
		for _, sen := range Sentences(ln) {
			label := strings.TrimSpace(sen)
			if !named(label) && !(strings.HasPrefix(label, "%") && i > 0 && named(lines[i-1])) {
				continue
			}
			captioned := percentCaption.MatchString(before)
			for _, at := range printedPercent.FindAllStringSubmatchIndex(sen, -1) {
				m := make([]string, len(at)/2)
				for k := range m {
					if at[2*k] >= 0 {
						m[k] = sen[at[2*k]:at[2*k+1]]
					}
				}
				if m[1] != "" || partOfNumber(sen, at[6], at[7]) {
					continue // dollars, or digits of a larger number ("13,556")
				}
				hasPct := m[5] != ""
				if !hasPct && !captioned {
					continue
				}
				v, err := decimal.NewFromString(m[3])
				if err != nil {
					continue
				}
				if m[2] != "" {
					v = v.Neg()
				}
				places := int32(0)
				if _, frac, ok := strings.Cut(m[3], "."); ok {
					places = int32(len(frac))
				}
				if v.IsZero() || !pct.Round(places).Equal(v) {
					continue
				}
				num := m[3]
				if m[2] != "" {
					num = "(" + num + ")"
				}
				return label, num + "%", true
			}
		}
	}
	return "", "", false
}

// partOfNumber reports whether s[i:j], digits, belong to a larger number:
// a separator and a digit beside them ("13,556", "1.25.3").
func partOfNumber(s string, i, j int) bool {
	if i >= 2 && (s[i-1] == ',' || s[i-1] == '.') && s[i-2] >= '0' && s[i-2] <= '9' {
		return true
	}
	return j+1 < len(s) && (s[j] == ',' || s[j] == '.') && s[j+1] >= '0' && s[j+1] <= '9'
}
