package corpus

import (
	"strings"
	"unicode"

	"github.com/shopspring/decimal"
)

// Parts of the business in a filing's tables.
//
// A segment note or a discussion's segment table prints one figure for
// each part of the business, in one of two shapes, and a row's own label
// then names a part, not a figure:
//
//   - Within one table, the figure is a heading and the parts are the rows
//     under it, the same parts under each figure's heading:
//
//     Net revenue:
//     Data Center Group
//     Platform                 $ 23,056  $ 21,441
//     Adjacent                    3,047     2,040
//     26,103    23,481
//     Non-Volatile Memory Solutions Group  5,358  4,362
//     Total net revenue        $ 77,867  $ 71,965
//     Operating income (loss):
//     Data Center Group        $ 10,571  $ 10,227
//
//     A heading ending in ":" is a figure's; a heading without one is a
//     figure's where the rows under it name the same parts as under
//     another such heading ("Revenue" and "Operating Income" over the same
//     three segments). A heading under a figure's heading is a part's
//     ("Data Center Group"), and its rows are parts of the part; the row
//     of numbers alone that follows them is the part's figure only where
//     it is their sum, column by column. A "Total" row ends the figure.
//     A name is a part only where the table prints it under two figures
//     or more: a balance sheet's "Current assets:" over "Inventories" is a
//     heading over lines, not a figure for each part. Such a row's label
//     names no one figure, so its cells are facts of the part's figure
//     (Label the figure's heading, Dimensions the part) and not of the
//     label alone. The same matrix printed the other way round, the parts
//     as headings ("Greater China:") over the figures as rows ("Net
//     sales", "Operating income"), is read the same way
//     (tableTransposedParts).
//   - Tables one after another of the same rows, each titled by a line of
//     its own just above its header ("Walmart U.S. Segment", "Sam's Club
//     Segment"; "Latin America (LATAM)", "Asia-Pacific (APAC)"): the
//     title is the part, and each row is a figure of it. Such rows keep
//     their own facts too; the part's are added beside them (see
//     titledParts).
//
// A part's name is printed as the filing prints it; a title's trailing
// "Segment" is dropped ("Walmart U.S.").

// tableParts marks the rows of a table that are a part's figure under
// a figure's heading (the first shape above).
func tableParts(t *tableState) {
	n := len(t.headings)
	if n == 0 {
		return
	}
	// Which headings a "Total" row closes, and which headings come while a
	// figure's heading (one ending in ":") is open.
	closed := make([]bool, n)
	under := make([]map[string]bool, n)
	for _, row := range t.rows {
		if row.headingAt < 0 || row.unlabeled {
			continue
		}
		if tableTotal(row.label) {
			closed[row.headingAt] = true
			continue
		}
		if under[row.headingAt] == nil {
			under[row.headingAt] = map[string]bool{}
		}
		under[row.headingAt][tableLabelKey(row.label)] = true
	}
	inside := make([]bool, n)
	measure := make([]bool, n)
	open := false
	numeric := make([]bool, n)
	for i, h := range t.headings {
		if strings.ContainsAny(h, "0123456789%$") {
			// A line of numbers the columns did not take is no heading.
			numeric[i], open = true, false
			continue
		}
		if strings.HasSuffix(h, ":") {
			measure[i], open = true, true
		} else {
			inside[i] = open
		}
		if closed[i] {
			open = false
		}
	}
	for i := range n {
		for j := i + 1; j < n; j++ {
			if inside[i] || inside[j] || measure[i] && measure[j] || numeric[i] || numeric[j] ||
				tableLabelKey(t.headings[i]) == tableLabelKey(t.headings[j]) {
				continue
			}
			if shared(under[i], under[j]) >= 2 {
				measure[i], measure[j] = true, true
			}
		}
	}
	// Each row's figure and part, then the names printed under two
	// figures or more.
	var parts []assignedPart
	m, g, at := -1, -1, -1
	var group []int // rows of the open part heading
	for idx := range t.rows {
		row := &t.rows[idx]
		for k := at + 1; k <= row.headingAt; k++ {
			switch {
			case measure[k]:
				m, g = k, -1
			case inside[k] && m >= 0:
				g = k
			default:
				m, g = -1, -1
			}
			group = group[:0]
		}
		at = max(at, row.headingAt)
		switch {
		case m < 0:
		case row.unlabeled:
			if g >= 0 && len(group) >= 2 && tableSums(t.rows, group, row.cells) {
				parts = append(parts, assignedPart{idx, tableHeadingName(t.headings[g]), tableHeadingName(t.headings[m])})
			}
			g, group = -1, group[:0]
		case tableTotal(row.label):
			m, g, group = -1, -1, group[:0]
		case g >= 0:
			group = append(group, idx)
		default:
			parts = append(parts, assignedPart{idx, row.label, tableHeadingName(t.headings[m])})
		}
	}
	// A one-word name must be one of parts that add up to the figure's
	// total ("Products" and "Services" to "Total net sales"); "Basic" and
	// "Diluted" under two headings are no parts.
	summed := tableSummedParts(t, parts)
	figures := map[string]map[string]bool{} // part -> its figures
	for _, p := range parts {
		k := tableLabelKey(p.part)
		if figures[k] == nil {
			figures[k] = map[string]bool{}
		}
		figures[k][tableLabelKey(p.measure)] = true
	}
	for _, p := range parts {
		if len(figures[tableLabelKey(p.part)]) < 2 || p.part == "" || p.measure == "" || !tablePartName(p.part) ||
			len(strings.Fields(p.part)) == 1 && !summed[p.measure] {
			continue
		}
		row := &t.rows[p.row]
		row.part, row.partLabel, row.noPlain = p.part, p.measure, true
		if row.unlabeled {
			row.label = p.part // for its unit, read as the part's rows are
		}
	}
	tableTransposedParts(t, parts)
}

// tableTransposedParts marks the rows of a table whose headings name the
// parts and whose rows name the figures, the same figures under each part
// ("Greater China:" over "Net sales" and "Operating income", as over every
// other region): a row is its heading's part's figure where its label is
// no part's name, the heading's is, and the label is printed under two
// headings or more. A one-word part needs three parts to a table.
func tableTransposedParts(t *tableState, parts []assignedPart) {
	under := map[string]map[string]bool{} // figure -> the headings it is under
	heads := map[string]bool{}
	for _, p := range parts {
		if t.rows[p.row].unlabeled || t.rows[p.row].part != "" {
			continue
		}
		k := tableLabelKey(p.part)
		if under[k] == nil {
			under[k] = map[string]bool{}
		}
		under[k][tableLabelKey(p.measure)] = true
		heads[tableLabelKey(p.measure)] = true
	}
	for _, p := range parts {
		row := &t.rows[p.row]
		if row.unlabeled || row.part != "" || tablePartName(p.part) || !tablePartName(p.measure) ||
			len(under[tableLabelKey(p.part)]) < 2 || len(strings.Fields(p.measure)) == 1 && len(heads) < 3 {
			continue
		}
		row.part, row.partLabel, row.noPlain = p.measure, row.label, true
	}
}

// assignedPart is a row read as a part's figure: the row, the part's name
// and the figure's.
type assignedPart struct {
	row     int
	part    string
	measure string
}

// tableSummedParts returns the figures whose parts, as assigned, add up
// to the "Total" row that ends them in every column.
func tableSummedParts(t *tableState, parts []assignedPart) map[string]bool {
	out := map[string]bool{}
	for i := 0; i < len(parts); {
		j := i
		var idx []int
		for j < len(parts) && parts[j].measure == parts[i].measure {
			idx = append(idx, parts[j].row)
			j++
		}
		// The first "Total" row after the last part.
		for k := parts[j-1].row + 1; k < len(t.rows); k++ {
			if row := t.rows[k]; !row.unlabeled && tableTotal(row.label) {
				if len(idx) >= 2 && tableSums(t.rows, idx, row.cells) {
					out[parts[i].measure] = true
				}
				break
			}
		}
		i = j
	}
	return out
}

// tablePartName reports whether a row label reads as the name of a part
// of the business: words in capitals but for joining words ("Internet of
// Things", "Productivity and Business Processes", "U.S."), not the rest
// ("Other", "All other") nor the whole ("Consolidated ...", "Total").
func tablePartName(name string) bool {
	ws := strings.Fields(name)
	if len(ws) == 0 {
		return false
	}
	first := strings.ToLower(strings.Trim(ws[0], ",.:;()"))
	if first == "other" || first == "all" || first == "total" || first == "consolidated" {
		return false
	}
	for _, w := range ws {
		w = strings.Trim(w, ",;:()")
		if w == "" || tableJoining[strings.ToLower(w)] {
			continue
		}
		r := []rune(w)[0]
		if !unicode.IsUpper(r) && !unicode.IsDigit(r) {
			return false
		}
		if strings.EqualFold(w, "consolidated") || strings.EqualFold(w, "total") {
			return false
		}
	}
	return true
}

// tableJoining are the words a name of several may hold in lower case.
var tableJoining = map[string]bool{"and": true, "&": true, "of": true, "the": true, "-": true}

// tableSums reports whether cells are, column by column, the sums of the
// rows at idx; every column must have a value.
func tableSums(rows []tableRow, idx []int, cells []tableCell) bool {
	for j, c := range cells {
		if c.absent || c.pct {
			return false
		}
		sum := decimal.Zero
		for _, i := range idx {
			if j >= len(rows[i].cells) || rows[i].cells[j].absent || rows[i].cells[j].pct {
				return false
			}
			sum = sum.Add(rows[i].cells[j].value)
		}
		if !sum.Equal(c.value) {
			return false
		}
	}
	return len(cells) > 0
}

// shared counts the keys two sets have in common.
func shared(a, b map[string]bool) int {
	n := 0
	for k := range a {
		if b[k] {
			n++
		}
	}
	return n
}

// tableTotal reports whether a row label is a total ("Total", "Total net
// revenue").
func tableTotal(label string) bool {
	l := strings.ToLower(strings.TrimSpace(label))
	return l == "total" || strings.HasPrefix(l, "total ")
}

// tableLabelKey is a label as a comparison key: lower case, letters and
// digits only, one space between words.
func tableLabelKey(label string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(label), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}), " ")
}

// tableHeadingName is a heading as a name: its colon and footnote marks
// dropped.
func tableHeadingName(h string) string {
	h = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(h), ":"))
	for strings.HasSuffix(h, ")") {
		i := strings.LastIndexByte(h, '(')
		if i < 0 || strings.Trim(h[i+1:len(h)-1], "0123456789*") != "" {
			break
		}
		h = strings.TrimSpace(h[:i])
	}
	return h
}

// tableRecord is a table that gave facts under a title of its own, for
// titledParts.
type tableRecord struct {
	title      string
	labels     map[string]bool // its rows' labels (tableLabelKey)
	first, end int             // its facts, r.facts[first:end]
}

// Bounds of a table's title.
const (
	minTitledTables = 3 // tables of the same rows under titles of their own, to read the titles as parts
	maxTitleWords   = 8 // a longer line is a sentence, not a title
	maxTitleLines   = 4 // lines above a header searched for its title
)

// titleOf returns the title printed just above the header on line i: the
// nearest short line of words without digits or a period's words, over
// blank lines and the header's own lines ("Fiscal Years Ended January
// 31,", "As of/Year Ended December 31, | Change"); "" when there is none.
// A line printed as often as a running head is none.
func (r *tableReader) titleOf(i int) string {
	seen, breaks := 0, 0
	for k := i; k >= 0 && seen < maxTitleLines; k-- {
		ln := r.lines[k]
		if ln.pageBreak {
			// A title may close the page before its table's header, above
			// the page's number and the next page's running head.
			if breaks++; breaks > 1 {
				return ""
			}
			continue
		}
		raw := strings.TrimSpace(r.text[ln.start:ln.end])
		if raw == "" || breaks > 0 && ln.lastOfPage && tableDigits(raw) || r.runningHead(raw) {
			continue
		}
		seen++
		if tableHeaderWords(raw) || tableCaptionBody(raw) && strings.HasPrefix(raw, "(") {
			continue
		}
		if strings.Contains(raw, " | ") || strings.ContainsAny(raw, "0123456789") || strings.HasSuffix(raw, ".") ||
			strings.HasSuffix(raw, ":") || strings.HasSuffix(raw, ",") {
			return ""
		}
		words := strings.Fields(raw)
		if len(words) > maxTitleWords || !unicode.IsUpper([]rune(raw)[0]) {
			return ""
		}
		return raw
	}
	return ""
}

// tableHeaderWords reports whether a line holds a period's words, as a
// header's lines do: a year, "ended", "as of", a month.
func tableHeaderWords(line string) bool {
	l := strings.ToLower(line)
	if strings.ContainsAny(l, "0123456789") {
		return true
	}
	for _, w := range strings.FieldsFunc(l, func(r rune) bool { return !unicode.IsLetter(r) }) {
		if w == "ended" || w == "ending" || w == "as" || w == "change" || w == "months" || w == "weeks" {
			return true
		}
		if _, ok := tableMonth(w); ok {
			return true
		}
	}
	return false
}

// runningHead reports whether a line recurs as often as a page's running
// head does ("Table of Contents").
func (r *tableReader) runningHead(line string) bool {
	if r.lineCounts == nil {
		r.lineCounts = map[string]int{}
		for _, ln := range r.lines {
			if !ln.pageBreak {
				if l := strings.TrimSpace(r.text[ln.start:ln.end]); l != "" && len(l) <= 80 {
					r.lineCounts[l]++
				}
			}
		}
	}
	return r.lineCounts[line] >= 3
}

// titledParts adds, for tables one after another that print the same rows
// under titles of their own, each row's facts again as its title's part's
// (the second shape in the comment at the top of this file).
func (r *tableReader) titledParts() {
	ts := r.tables
	for i := 0; i < len(ts); {
		j := i + 1
		for j < len(ts) && tableLike(ts[j-1], ts[j]) {
			j++
		}
		if j-i >= minTitledTables {
			titles := map[string]bool{}
			for _, t := range ts[i:j] {
				titles[tableLabelKey(t.title)] = true
			}
			if len(titles) == j-i {
				for _, t := range ts[i:j] {
					r.addPart(t)
				}
			}
		}
		i = j
	}
}

// tableLike reports whether two tables print mostly the same rows under
// different titles.
func tableLike(a, b tableRecord) bool {
	if tableLabelKey(a.title) == tableLabelKey(b.title) {
		return false
	}
	n := shared(a.labels, b.labels)
	return n >= 2 && 2*n >= min(len(a.labels), len(b.labels))
}

// addPart adds a titled table's facts again as its title's part's.
func (r *tableReader) addPart(t tableRecord) {
	part := tableTitlePart(t.title)
	if part == "" {
		return
	}
	if !tablePartName(part) {
		return
	}
	for k := t.first; k < t.end; k++ {
		if len(r.facts) >= maxTableFacts {
			return
		}
		f := r.facts[k]
		if len(f.Dimensions) > 0 {
			continue
		}
		f.Dimensions = map[string]string{TablePartAxis: TablePartMember(part)}
		r.facts = append(r.facts, f)
	}
}

// tableTitlePart is a table's title as a part's name: a trailing
// "Segment" dropped.
func tableTitlePart(title string) string {
	ws := strings.Fields(title)
	if len(ws) > 1 && strings.EqualFold(ws[len(ws)-1], "segment") {
		ws = ws[:len(ws)-1]
	}
	return strings.Join(ws, " ")
}
