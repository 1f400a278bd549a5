package tools

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ledgerline/research/corpus"
)

// A figure key names one reported figure the way lookup_fact, calculate,
// the ledger and completion conditions all do:
//
//   - "us-gaap:Revenues": a tagged concept without dimensions, the
//     company-wide figure;
//   - "us-gaap:Revenues[aapl:IPhoneMember]": the same concept for one
//     explicit dimension member (a segment, product or geography), never
//     the company-wide figure;
//   - "table:Total net sales": a row of a financial table in a text or PDF
//     filing, by the label the filing prints;
//   - "table:Operating income (loss)[part:Data Center Group]": a table's
//     figure for one part of the business the table prints it under (a
//     segment's row under the figure's heading, or a row of a table titled
//     by the segment), never the company-wide row (see corpus.TablePartAxis).
//
// Keys are compared as strings; the ledger records a fact under its key.

// TablePrefix starts the key of a table row.
const TablePrefix = "table:"

// maxRowLabel bounds a table row label in a key, in bytes.
const maxRowLabel = 200

// FigureKey returns the key of a concept, with a member when it is a
// segment's figure.
func FigureKey(concept, member string) string {
	if member == "" {
		return concept
	}
	return concept + "[" + member + "]"
}

// TableKey returns the key of a table row labelled label.
func TableKey(label string) string { return TablePrefix + label }

// TablePartKey returns the key of a table's figure labelled label for the
// part member (corpus.TablePartMember); TableKey(label) when member is "".
func TablePartKey(label, member string) string {
	if member == "" {
		return TableKey(label)
	}
	return TablePrefix + label + "[" + member + "]"
}

// SplitFigureKey reads a key: the concept and member of a tagged figure,
// or the row label of a table figure (with its part member, if any).
func SplitFigureKey(key string) (concept, member, row string) {
	if r, ok := strings.CutPrefix(key, TablePrefix); ok {
		if strings.HasSuffix(r, "]") {
			if i := strings.LastIndex(r, "["+corpus.TablePartPrefix); i > 0 {
				return "", r[i+1 : len(r)-1], r[:i]
			}
		}
		return "", "", r
	}
	if c, m, ok := strings.Cut(key, "["); ok && strings.HasSuffix(m, "]") {
		return c, strings.TrimSuffix(m, "]"), ""
	}
	return key, "", ""
}

// LocalKey drops the taxonomy prefixes of a key's concept and member, so
// "us-gaap:Revenues[a:XMember,b:YMember]" reads "Revenues[XMember,YMember]";
// a table key is returned as it is.
func LocalKey(key string) string {
	concept, member, row := SplitFigureKey(key)
	if row != "" {
		return key
	}
	if member != "" {
		parts := strings.Split(member, ",")
		for i, m := range parts {
			parts[i] = localPart(m)
		}
		return localPart(concept) + "[" + strings.Join(parts, ",") + "]"
	}
	return localPart(concept)
}

func localPart(q string) string {
	if i := strings.LastIndexByte(q, ':'); i >= 0 {
		return q[i+1:]
	}
	return q
}

// checkFigureKey checks a concept argument that may be a figure key and
// returns it with the concept (and member) qualified.
func checkFigureKey(tool, field, key string) (string, error) {
	key = strings.TrimSpace(key)
	concept, member, row := SplitFigureKey(key)
	if row != "" {
		row = strings.TrimSpace(row)
		if row == "" || len(row) > maxRowLabel || !utf8.ValidString(row) || strings.ContainsAny(row, "\n\f\x00") {
			return "", argErr(tool, field, "%q: a table row key is \"table:\" and the row's label, at most %d bytes on one line", key, maxRowLabel)
		}
		if member != "" {
			part := strings.TrimSpace(strings.TrimPrefix(member, corpus.TablePartPrefix))
			if part == "" || len(part) > maxRowLabel || !utf8.ValidString(part) || strings.ContainsAny(part, "\n\f\x00[]") {
				return "", argErr(tool, field, "%q: a table part is \"[part:\" and the part's name, at most %d bytes on one line, then \"]\"", key, maxRowLabel)
			}
			member = corpus.TablePartPrefix + part
		}
		return TablePartKey(row, member), nil
	}
	c, err := checkConcept(tool, field, concept)
	if err != nil {
		return "", err
	}
	if member == "" {
		return c, nil
	}
	var ms []string
	for _, part := range strings.Split(member, ",") {
		m, err := checkConcept(tool, field, part)
		if err != nil {
			return "", argErr(tool, field, "%q: the members in brackets are not XBRL members such as \"aapl:IPhoneMember\", separated by commas", key)
		}
		ms = append(ms, m)
	}
	if len(ms) > 2 {
		return "", argErr(tool, field, "%q: a key names at most two members", key)
	}
	return FigureKey(c, JoinMembers(ms...)), nil
}

// segmentQualifier is the member that marks a figure as the sum of the
// operating segments on the consolidation axis: a segment's figure is
// tagged with it beside the segment's own member, and it says nothing
// more.
const segmentQualifier = "us-gaap:OperatingSegmentsMember"

// FigureMember returns the members whose figure a fact's dimensions make
// it, as a key names them: "" for a fact without dimensions, else its
// members sorted and joined by commas, the consolidation axis's
// operating-segments member aside ("nflx:StreamingMember,srt:LatinAmericaMember"
// is streaming revenue from Latin America). It reports false for a fact
// qualified by more than two members, which no key names.
func FigureMember(dims map[string]string) (string, bool) {
	var members []string
	for axis, m := range dims {
		if m == segmentQualifier && strings.HasSuffix(axis, "ConsolidationItemsAxis") && len(dims) > 1 {
			continue
		}
		members = append(members, m)
	}
	slices.Sort(members)
	return strings.Join(members, ","), len(members) <= 2
}

// JoinMembers returns the member part of a key naming every one of
// members.
func JoinMembers(members ...string) string {
	ms := slices.Clone(members)
	slices.Sort(ms)
	return strings.Join(slices.Compact(ms), ",")
}
