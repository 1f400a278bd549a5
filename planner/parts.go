package planner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ledgerline/research/tools"
)

// A question may ask what is expected of a part of the business beside
// another figure: "Will Reality Labs keep losing money, and what capex is
// Meta planning for 2025?" asks of Reality Labs as well as of capital
// expenditures. The part is an asked item of its own. Where no requirement
// of the plan reads it (no figure of the part, no passage naming it), the
// plan adds management's expectation for the part, read from the report
// the question's period is read from, met by a sentence naming the part
// (or its short form, "RL") and an expectation.

// planUnservedParts plans, in a question asking what is expected, the
// expectation for each part of an issuer the question names that no
// requirement reads.
func (b *builder) planUnservedParts() {
	if b.rt.Causal != nil || !b.rt.Outlook && !b.asksAhead() {
		return
	}
	for ii, t := range b.rt.Issuers {
		for _, seg := range b.cat.SegmentsIn(b.question, t) {
			if b.readsPart(t, seg) {
				continue
			}
			names := b.partAliases(t, seg)
			done := map[string]bool{}
			for _, p := range b.periodsOf(t) {
				if !p.found || done[p.doc.ID] {
					continue
				}
				done[p.doc.ID] = true
				label := tools.PeriodLabel(p.doc.FiscalYear)
				id := t + "-" + label + "-part-" + slug(strings.ToLower(seg.Name)) + "-outlook"
				if !b.addReq(Requirement{
					ID: id, Issuer: t, Period: label, Aspect: "general", Kind: KindOutlook, Required: true,
					Need:       fmt.Sprintf("what %s's management expects for %s going forward, in its %s %s", b.cat.ShortName(t), seg.Name, label, p.doc.Form),
					Completion: Condition{Kind: CondPassage, Issuer: t, Period: label, Topic: seg.Name, AllOf: [][]string{names, OutlookWords}},
				}, reqMeta{aspect: 0, issuer: ii, extra: true}) {
					continue
				}
				b.addNode(tools.SearchFilings, b.searchArgs(t, p, seg.Name+" expect", "", 8), []string{id})
			}
		}
	}
}

// readsPart reports whether a requirement of the plan for issuer t reads
// the part: a figure of one of its members, or a passage or topic naming
// it.
func (b *builder) readsPart(t string, seg Segment) bool {
	name := strings.ToLower(seg.Name)
	return slices.ContainsFunc(b.g.Requirements, func(r Requirement) bool {
		if r.Issuer != t {
			return false
		}
		for _, c := range r.Completion.Concepts {
			if slices.ContainsFunc(seg.Members, func(m string) bool { return strings.Contains(c, m) }) || strings.Contains(strings.ToLower(c), name) {
				return true
			}
		}
		if strings.Contains(strings.ToLower(r.Completion.Topic), name) {
			return true
		}
		return slices.ContainsFunc(r.Completion.AllOf, func(g []string) bool { return slices.Contains(g, name) })
	})
}

// partAliases returns the names a sentence may give the part: its name,
// the short form the issuer's filings define for it ("Reality Labs (RL)"),
// and its initials where the question writes the part so ("AWS").
func (b *builder) partAliases(t string, seg Segment) []string {
	names := []string{strings.ToLower(seg.Name)}
	if short, ok := b.cat.TextStats().ShortForms(t)[normalizeText(seg.Name)]; ok {
		names = appendNew(names, strings.ToLower(short))
	}
	if ac := initialsOf(strings.Fields(seg.Name)); ac != "" && termIn(normalizeText(b.question), strings.ToLower(ac)) {
		names = appendNew(names, strings.ToLower(ac))
	}
	return names
}
