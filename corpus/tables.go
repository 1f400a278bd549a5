package corpus

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/shopspring/decimal"
)

// Reading the financial tables of a text, PDF or HTML filing.
//
// pdftotext -layout prints a table as lines of cells, and the canonical text
// keeps those lines with one space between cells: a caption that gives the
// unit ("(In millions, except per share amounts)"), a header that gives the
// column periods ("Years ended" / "September 24, September 25," /
// "2022 2021"), then rows of a label followed by numbers. TableFacts reads
// them line by line, in one pass:
//
//   - A header is a line whose cells, after an optional caption and a short
//     label, are years or dates ("2022 2021 2020", "Dec 26, 2020 Dec 28,
//     2019", "Year Ended June 30, 2022 2021"), possibly with change columns
//     among them ("2022 Change 2021", "2023 Actual Constant 2022",
//     "2022 vs. 2021"), read with up to three short lines above it ("Three
//     Months Ended Nine Months Ended", "July 1, June 25, July 1, June 25,",
//     "As of December 31,"). "Three/six/nine months", "52 weeks",
//     "year(s) ended" and "fiscal year" make the columns durations, several
//     such phrases splitting the columns in order; "as of", or month-days
//     without such a phrase, make them instants. Bare years are fiscal years
//     of a 10-K (the year doc.FiscalYear ends at doc.PeriodEnd); without a
//     phrase, the sentence above decides ("as of" or "for the years"), else a
//     comparison with change columns or three years are durations and two
//     years balances. Dates without a phrase over three or more columns, bare
//     years in a 10-Q, months without days, a period twice, and periods
//     after the filing's are not read: such a header ends the table above and
//     gives no facts.
//   - A row is a label followed by as many cells as the header has columns
//     (a cell is a number, "(1,234)", "$ 5", "7%", "39 %", or a dash or "NM"
//     for no value). Rows of another count are skipped, except that footnote
//     marks "(1)" and years left over before the cells stay in the label, and
//     that under change columns a row's cells other than percentages may be
//     exactly its periods. A label may be printed on the line above its
//     numbers, or begin there and go on in lower case.
//   - A table lasts until the next header, a paragraph of prose, or more
//     than six lines without a row; a page break does not end it, and a
//     page's last line ending in a page number is not a row.
//   - The unit comes from a caption just before or just after the header,
//     from the table a repeated header continues, or from a caption under an
//     Item heading or a "Notes to Consolidated Financial Statements" title.
//     Monetary rows need a money scale and a "$" somewhere in the table, and
//     a "$" on the row itself when the caption excepts anything but per-share
//     amounts, percentages and shares ("except unit counts"). Per-share rows
//     (the label, or for "Basic"/"Diluted" the heading above, says per share)
//     are never scaled; share counts take the caption's share scale;
//     percentages need no caption (Value 0.433 for "43.3%"). After a row of
//     share counts or percentages, a row without "$" under the same heading
//     is left out, as are rows whose label names another unit ("(years)",
//     "(in thousands)" without "$") or begins with "shares" in a way that is
//     not a share count. A wrong fact is worse than a missing one.
//
// An HTML filing's text (doc.Format FormatHTML) prints a table row as its
// cells joined by " | " (see ParseHTML). Its tables are read by the same
// rules, with these differences: headers and rows are lines with the
// separator; a row is a label cell then cells of one number or dash each,
// and a line of another shape is not a row; the label is the first cell,
// never wrapped from the line above; "As of December 31, | 2024" is a
// header. Since ParseHTML drops cells holding only "$", amounts are read
// only where a cell prints "$" with its number, or, at ingest, where two
// cells of the table print at its caption's scale amounts the filing tags
// in USD (tableFacts): the MD&A's untagged "TAC | 54,900" beside the
// statement's tagged "Total cost of revenues | 146,306". Two readings only HTML
// tables get, for their untagged KPIs: a row without "$" whose label counts
// people (members, subscribers, customers, users, employees) and says how
// ("paid", "average", "at end of", "additions", "number of") takes the
// caption's scale with unit "pure" (XBRL's unit for a number of things);
// and under "As of/Year Ended", rows "at end of period" are instants and
// the other rows are left out.
//
// A segment note's rows name parts of the business, not figures ("Data
// Center Group $ 10,571" under "Operating income (loss):"), and tables of
// the same rows may each be titled by a part ("Walmart U.S. Segment"):
// such cells are also, or only, facts of the part's figure, with the part
// in Dimensions under TablePartAxis (see tableparts.go).
//
// A fact's span (Start, End) covers the printed number as printed: its
// parentheses and percent sign, with a space pdftotext left inside
// ("(2,136 )", "39 %"), never a "$". Decimals is the printed precision
// after scaling ("-6" for whole millions, "3" for "43.3%"). A year's
// PeriodStart is the day after the end of the column a year earlier when
// the header prints one; otherwise, and for quarters, it is whole months
// before the period's end, so 52/53-week years are off by a few days.

// maxTableFacts bounds the facts read from one filing.
const maxTableFacts = 5000

// Bounds that keep the work linear and the guesses safe.
const (
	maxTableRowTokens     = 160 // a longer line is prose, not a row
	maxTableHeaderContext = 3   // lines above a year line that may belong to its header
	maxTableQuietLines    = 6   // lines without a row that end a table
	maxTableCaptionLag    = 10  // lines between a caption and its table's header
	maxTableLabelWords    = 40  // a longer label is prose with numbers in it
	maxTableHeaderPrefix  = 8   // words before the first period of a header line
	maxTableFutureDays    = 7   // a column may end this many days after the filing's period
	maxTablePastYears     = 25  // and at most this many years before it
)

// TableFacts reads the financial tables of a filing's canonical text into facts of kind FactTable.
// For an HTML filing (doc.Format FormatHTML) it reads the rows ParseHTML
// renders with " | "; the ingester keeps those no tagged fact covers.
//
// Column periods come from the tables' headers. Bare years are anchored on
// the filing: in a 10-K (or 20-F, 40-F) the column of year doc.FiscalYear
// ends at doc.PeriodEnd and the others on the same month and day whole
// years before; other forms read bare years only with a period phrase
// ("Three Months Ended"), as calendar years of doc.PeriodEnd's month and
// day. A table whose periods cannot be told gives no facts, and neither
// does a filing without PeriodEnd. The facts come in text order, at most
// maxTableFacts of them; the work is linear in the text.
func TableFacts(doc *Document) []Fact {
	return tableFacts(doc, nil)
}

// tableFacts is TableFacts for a filing whose tagged facts are tagged:
// an HTML filing prints "$" in a cell of its own, which its text drops,
// so a table whose cells print, at its caption's scale, two tagged
// amounts (facts in USD) is a table of amounts as a "$" would say: the
// MD&A's "Total cost of revenues | 133,332 | 146,306" are the statement's
// tagged figures, and "TAC | 50,886 | 54,900" beside them are amounts too.
func tableFacts(doc *Document, tagged []Fact) []Fact {
	if doc == nil || doc.Text == "" || doc.PeriodEnd.IsZero() {
		return nil
	}
	r := &tableReader{doc: doc, text: doc.Text, anchor: tableDateOf(doc.PeriodEnd), fiscalYear: doc.FiscalYear, notesLine: -1}
	for _, f := range tagged {
		if f.Unit == "USD" && !f.Value.IsZero() {
			if r.amounts == nil {
				r.amounts = map[string]bool{}
			}
			r.amounts[f.Value.Abs().String()] = true
		}
	}
	if r.fiscalYear == 0 {
		r.fiscalYear = r.anchor.Year()
	}
	r.annual = tableAnnualForm(doc.Form)
	r.pipes = doc.Format == FormatHTML
	r.read()
	return r.facts
}

func tableAnnualForm(form string) bool {
	f := strings.ToUpper(strings.TrimSpace(form))
	return strings.HasPrefix(f, "10-K") || strings.HasPrefix(f, "20-F") || strings.HasPrefix(f, "40-F")
}

func tableDateOf(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}

// tableLine is one line of the text: [start, end) without its newline.
type tableLine struct {
	start, end int
	pageBreak  bool // the line holds a form feed
	lastOfPage bool // the last non-blank line before a page break
}

// tableToken is a run of non-space bytes of a line.
type tableToken struct {
	s     string
	start int // offset in the text
}

// tableReader holds the state of one pass over a filing.
type tableReader struct {
	doc        *Document
	text       string
	anchor     time.Time // doc.PeriodEnd, a date
	fiscalYear int
	annual     bool
	pipes      bool            // an HTML filing's text: rows are cells joined by " | "
	amounts    map[string]bool // the tagged amounts, absolute, as decimal strings (tableFacts)

	facts []Fact
	lines []tableLine

	tbl *tableState // the table being read; nil between tables

	section   *tableCaption // caption of the current Item or of the notes, for tables without their own
	notesLine int           // line of a "Notes to Consolidated Financial Statements" title; -1 when none

	pending     *tableCaption // a caption waiting for its header
	pendingLine int           // index of the line that held it

	prevText    string // previous line when it was text without cells; "" otherwise
	prevIsLabel bool   // prevText may start a label that wraps onto the next line

	pipeLabel string // in pipes mode, the first cell of the current row

	quarters *tableQuarters // the header of a table of quarters whose blocks are named by year lines; nil when none

	tables     []tableRecord  // tables with a title of their own, for titledParts
	lineCounts map[string]int // how often each short line is printed, for runningHead
}

// tableState is one table being read: its header, its unit and its rows.
type tableState struct {
	header    *tableHeader
	caption   *tableCaption
	inherited bool          // caption came from the table this one continues, or from the section
	section   *tableCaption // the section's caption when the table started
	rows      []tableRow
	hasDollar bool
	cells     int    // cells in rows, a bound on the facts the table gives
	quiet     int    // lines without a row since the last row or the header
	heading   string // last label-only line ("Earnings per share:")
	headings  []string
	title     string // a short line above the header naming the table (a segment's name); "" when none
}

// tableRow is a row matched to the header's period columns.
type tableRow struct {
	label   string
	heading string
	// headingAt indexes the table's headings for the heading the row is
	// printed under; -1 for none.
	headingAt int
	cells     []tableCell // one per period column; absent cells have absent set
	dollar    bool        // a cell of the row carries "$"
	unlabeled bool        // a row of numbers without a label: a subtotal, or nothing to read
	// part and partLabel make the row's cells also the facts of a part of
	// the business (see tableParts): partLabel is the figure, part the
	// part's name; "" when the row is no part's.
	part, partLabel string
	noPlain         bool // the row's own label names no one figure: only its part's facts are kept
}

func (r *tableReader) read() {
	r.splitLines()
	for i, ln := range r.lines {
		if len(r.facts) >= maxTableFacts {
			return
		}
		if ln.pageBreak {
			r.prevText, r.prevIsLabel = "", false
			continue
		}
		r.line(i, ln)
	}
	r.endTable()
	r.titledParts()
}

// splitLines cuts the text into lines at newlines and form feeds and marks
// the last non-blank line of each page, where page numbers are printed.
func (r *tableReader) splitLines() {
	text := r.text
	start := 0
	for i := 0; i <= len(text); i++ {
		if i < len(text) && text[i] != '\n' && text[i] != '\f' {
			continue
		}
		r.lines = append(r.lines, tableLine{start: start, end: i})
		if i < len(text) && text[i] == '\f' {
			r.lines = append(r.lines, tableLine{start: i, end: i + 1, pageBreak: true})
		}
		start = i + 1
	}
	lastText := -1
	for i, ln := range r.lines {
		switch {
		case ln.pageBreak:
			if lastText >= 0 {
				r.lines[lastText].lastOfPage = true
			}
			lastText = -1
		case strings.TrimSpace(text[ln.start:ln.end]) != "":
			lastText = i
		}
	}
}

func (r *tableReader) line(i int, ln tableLine) {
	raw := r.text[ln.start:ln.end]
	toks, groups := r.tokens(raw, ln.start, maxTableRowTokens+1)
	if len(toks) == 0 {
		r.prevText, r.prevIsLabel = "", false
		return
	}
	if ln.lastOfPage && tablePageFooter(toks) {
		return
	}
	line := strings.TrimSpace(raw)
	caption := tableFindCaption(line, r.neighbour(i, -1), r.neighbour(i, +1))
	switch {
	case tableItemHeading.MatchString(line):
		r.section, r.notesLine = caption, -1
	case tableNotesHeading.MatchString(line):
		r.section, r.notesLine = nil, i
	case caption != nil && r.notesLine >= 0 && i-r.notesLine <= 2:
		r.section = caption
	}
	if r.quarterLine(i, toks, line, caption) {
		r.prevText, r.prevIsLabel = "", false
		return
	}
	if h, isHeader := r.header(i, toks); isHeader && (!r.pipes || groups > 1) {
		// A header whose periods cannot be told ends the table above
		// and starts none: its rows give no facts.
		r.startTable(i, h, caption)
		r.prevText, r.prevIsLabel = "", false
		return
	}
	if caption != nil {
		r.takeCaption(i, caption)
	}
	if len(toks) > maxTableRowTokens {
		r.endTable() // prose
		r.prevText, r.prevIsLabel = "", false
		return
	}
	var cells []tableCell
	var labelEnd int
	if r.pipes {
		cells, labelEnd, r.pipeLabel = r.pipeCells(raw, ln.start, toks)
	} else {
		cells, labelEnd = tableCells(toks)
	}
	if len(cells) == 0 || labelEnd == toks[0].start && tableAllFootnotes(cells) {
		r.textLine(line, caption != nil, r.neighbour(i, +1))
		return
	}
	matched := false
	if r.tbl != nil {
		matched = r.row(toks, cells, labelEnd, ln)
	}
	// A line whose cells did not match may be a label wrapping onto the
	// next line ("...authorized; 15,647,868" / "and 15,943,425 shares ...").
	r.prevText, r.prevIsLabel = "", false
	if !matched && !r.pipes && r.tbl != nil && len(toks) <= 24 && tableHasLetter(line) && !strings.HasSuffix(line, ".") {
		r.prevText, r.prevIsLabel = line, true
	}
}

// textLine handles a line without cells: a heading, a wrapped label, a
// caption, or prose. next is the line after it. A long line that the next
// goes on in lower case, without ending a sentence, is a label wrapped
// onto its numbers' line ("Trade receivables, net of allowances for
// credit losses of $428 and $362 as of May 31, 2023 and May 31, 2022," /
// "respectively 6,915 5,953"), not prose.
func (r *tableReader) textLine(line string, isCaption bool, next string) {
	words := strings.Count(line, " ") + 1
	wrapped := !strings.HasSuffix(line, ".") && words <= maxTableLabelWords && next != "" && unicode.IsLower([]rune(next)[0]) && endsInCells(next)
	prose := len(line) > 100 && !wrapped || (words >= 8 && strings.HasSuffix(line, ".")) || isCaption && words > 8
	if r.tbl != nil {
		if prose {
			r.endTable()
		} else {
			r.tbl.quiet++
			if r.tbl.quiet > maxTableQuietLines {
				r.endTable()
			} else if !isCaption && tableHasLetter(line) && words <= 12 {
				r.tbl.heading = line
				if strings.HasSuffix(line, ":") && r.prevIsLabel {
					r.tbl.heading = r.prevText + " " + line // a heading wrapped over two lines
				}
				r.tbl.headings = append(r.tbl.headings, r.tbl.heading)
			}
		}
	}
	r.prevText = line
	r.prevIsLabel = !prose && !isCaption && !strings.HasSuffix(line, ":") && tableHasLetter(line) && words <= 24
}

// endsInCells reports whether a line ends in two cells of numbers, as a
// row's line does ("respectively 6,915 5,953"); a line of prose going on
// does not.
func endsInCells(line string) bool {
	f := strings.Fields(line)
	if len(f) < 3 {
		return false
	}
	for _, w := range f[len(f)-2:] {
		if _, ok := parseTableCell(strings.TrimPrefix(w, "$"), 0); !ok {
			return false
		}
	}
	return true
}

// minTaggedAmounts is how many cells of a table must print tagged amounts
// for the table to be read as one of amounts without a "$".
const minTaggedAmounts = 2

// printsTaggedAmounts reports whether at least minTaggedAmounts cells of
// the table's rows, scaled by money, are tagged amounts of the filing.
func (r *tableReader) printsTaggedAmounts(t *tableState, money int) bool {
	if len(r.amounts) == 0 || money < 0 {
		return false
	}
	n := 0
	for _, row := range t.rows {
		for _, c := range row.cells {
			if c.absent || c.pct || c.decimals > 0 || c.value.Abs().LessThan(decimal.NewFromInt(100)) {
				continue
			}
			if r.amounts[c.value.Abs().Shift(int32(money)).String()] {
				n++
			}
		}
	}
	return n >= minTaggedAmounts
}

// row matches a line of cells to the current table's columns.
func (r *tableReader) row(toks []tableToken, cells []tableCell, labelEnd int, ln tableLine) bool {
	t := r.tbl
	t.quiet = 0
	for _, c := range cells {
		if c.dollar {
			t.hasDollar = true
		}
	}
	mapped, firstUsed, ok := t.header.match(cells)
	if !ok {
		return false
	}
	// The label is the text before the first cell used; footnote marks
	// left over stay in it.
	end := labelEnd
	if firstUsed > 0 {
		end = cells[firstUsed].tokStart
	}
	label := strings.TrimSpace(r.text[ln.start:end])
	label = strings.TrimSpace(strings.TrimSuffix(label, "$"))
	prev, prevIsLabel := r.prevText, r.prevIsLabel
	switch {
	case r.pipes:
		// The label is the row's first cell; a row is one line.
		if firstUsed > 0 {
			return true // more cells than columns
		}
		label = r.pipeLabel
	case label == "":
		// A label printed on the line above its numbers.
		if !prevIsLabel || firstUsed > 0 {
			if firstUsed == 0 && len(r.facts)+t.cells < maxTableFacts {
				// Numbers alone: a subtotal of the rows above, perhaps.
				t.rows = append(t.rows, tableRow{heading: t.heading, headingAt: len(t.headings) - 1, cells: mapped, unlabeled: true})
			}
			return true
		}
		label = prev
	case prevIsLabel && tableContinues(label):
		// A label wrapped onto this line.
		label = prev + " " + label
	}
	if !tableLabelOK(label) || tableRunningHead(label, mapped) {
		return true
	}
	dollar := false
	for _, c := range cells[firstUsed:] {
		dollar = dollar || c.dollar
	}
	if len(r.facts)+t.cells < maxTableFacts {
		// Rows past the bound are matched, for the wrapping of labels,
		// but not kept.
		t.rows = append(t.rows, tableRow{label: label, heading: t.heading, headingAt: len(t.headings) - 1, cells: mapped, dollar: dollar})
		t.cells += len(mapped)
	}
	return true
}

// tableLabelOK refuses labels that show the line is not a simple row.
func tableLabelOK(label string) bool {
	if !tableHasLetter(label) || strings.Count(label, " ")+1 > maxTableLabelWords {
		return false
	}
	// A "$" standing alone before a number means more cells than the
	// header knows of were read as the label.
	f := strings.Fields(label)
	for i, w := range f {
		if (w == "$" && i+1 < len(f) && tableNumberStart(f[i+1])) ||
			(strings.HasPrefix(w, "$") && len(w) > 1 && tableDigit(w[1]) && strings.Contains(w, ",")) {
			return false
		}
	}
	return true
}

// tableStructureWords name parts of a document, which a number follows in a
// running head ("Item 8", "Note 4") rather than in a row.
var tableStructureWords = map[string]bool{
	"item": true, "part": true, "page": true, "note": true, "table": true, "exhibit": true,
	"schedule": true, "section": true, "chapter": true, "article": true,
}

// tableRunningHead reports whether a row is a running head: a structure
// word and small whole numbers.
func tableRunningHead(label string, cells []tableCell) bool {
	f := strings.Fields(strings.ToLower(label))
	if len(f) == 0 || len(f) > 2 || !tableStructureWords[strings.TrimRight(f[0], ".:")] {
		return false
	}
	for _, c := range cells {
		if !c.absent && (c.dollar || c.pct || c.decimals > 0 || c.value.Abs().GreaterThan(decimal.NewFromInt(999))) {
			return false
		}
	}
	return true
}

func tableNumberStart(s string) bool {
	return s != "" && (tableDigit(s[0]) || s[0] == '(')
}

func tableDigit(c byte) bool { return '0' <= c && c <= '9' }

// tableContinues reports whether a label goes on from the line above: its
// first word is in lower case ("income", "and"), not a name ("iPhone").
func tableContinues(label string) bool {
	word, _, _ := strings.Cut(label, " ")
	r, _ := utf8.DecodeRuneInString(word)
	return unicode.IsLower(r) && strings.ToLower(word) == word
}

func tableHasLetter(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) {
			return true
		}
	}
	return false
}

// tablePageFooter reports whether the last line of a page ends in a bare page
// number ("Apple Inc. | 2022 Form 10-K | 29", "49").
func tablePageFooter(toks []tableToken) bool {
	last := toks[len(toks)-1].s
	if len(last) > 4 || !tableDigits(last) {
		return false
	}
	return len(toks) == 1 || !tableNumberStart(toks[len(toks)-2].s) && toks[len(toks)-2].s != "$"
}

func (r *tableReader) startTable(i int, h *tableHeader, caption *tableCaption) {
	prev := r.tbl
	r.endTable()
	if h == nil {
		r.pending = nil
		return
	}
	t := &tableState{header: h}
	switch {
	case caption != nil:
		t.caption = caption
	case r.pending != nil && i-r.pendingLine <= maxTableCaptionLag:
		t.caption = r.pending
	case prev != nil && prev.caption != nil:
		// A header repeated on a new page, or a new block of the same
		// table: it keeps the unit.
		t.caption, t.inherited = prev.caption, true
	case r.section != nil:
		t.caption, t.inherited = r.section, true
	}
	t.section = r.section
	t.title = r.titleOf(i)
	r.pending = nil
	r.tbl = t
}

// takeCaption gives a caption to the table whose header came just before
// it, or keeps it for the next header.
func (r *tableReader) takeCaption(i int, c *tableCaption) {
	if t := r.tbl; t != nil {
		switch {
		case len(t.rows) == 0 && t.quiet <= 2 && (t.caption == nil || t.inherited):
			t.caption, t.inherited = c, false
			return
		case t.caption != nil && *t.caption.key == *c.key:
			return
		}
		r.endTable()
	}
	r.pending, r.pendingLine = c, i
}

// endTable turns the rows of the current table into facts.
func (r *tableReader) endTable() {
	t := r.tbl
	r.tbl = nil
	r.quarters = nil
	if t == nil || len(t.rows) == 0 {
		return
	}
	c := t.caption
	if c == nil {
		c = &tableCaption{key: &tableCaptionKey{money: -1, shares: -1}}
	}
	if s := t.section; c.key.money < 0 && s != nil && s.key.money >= 0 {
		// "(shares in 000's)" under notes "in millions": the notes'
		// money scale holds.
		merged := *c.key
		merged.money, merged.mixed = s.key.money, merged.mixed || s.key.mixed
		c = &tableCaption{key: &merged, excluded: append(append([][]string(nil), c.excluded...), s.excluded...)}
	}
	h := t.header
	tableParts(t)
	first := len(r.facts)
	byTags := false // amounts by the tagged cells, "$" being dropped
	if !t.hasDollar && r.pipes && r.printsTaggedAmounts(t, c.key.money) {
		t.hasDollar, byTags = true, true
	}
	// A unit is printed on the first row of a block and on its total:
	// after a row of share counts or percentages, a row without "$" under
	// the same heading is as likely a count or a percentage as an amount.
	var modeHeading string
	mode := rowMoney
	for i, row := range t.rows {
		if row.unlabeled && row.part == "" {
			continue
		}
		// A row at the end of the period is an instant, whatever the
		// header. Under "As of/ Year Ended" a row of an average, of
		// additions, or of revenues, sales or expenses is the year's; a
		// row that says none of these ("Paid members", "Cash") may be
		// either, and is left out.
		atEnd := tableEndOfPeriod.MatchString(row.label)
		if h.mixed && !atEnd && !tableFlowRow.MatchString(row.label) {
			continue
		}
		kind := tableRowKind(row)
		if kind == rowMoney && tableCountRow(row) {
			kind = rowCount
		}
		if mode != rowMoney && (row.dollar || row.heading != modeHeading) {
			mode = rowMoney
		}
		switch kind {
		case rowShares, rowPercent:
			mode, modeHeading = kind, row.heading
		case rowMoney:
			if mode != rowMoney && !row.dollar || tableRatio.MatchString(row.heading) {
				continue
			}
		}
		unitRow := row
		if kind == rowMoney && c.key.mixed && !row.dollar && tableDifferenceRow(t.rows, i) {
			// Between two rows of "$" whose amounts it is the
			// difference of, a row is an amount too, whatever else the
			// caption excepts: "Net sales $ 222,730", "Less merchandise
			// costs 199,382", "Gross margin $ 23,348".
			unitRow.dollar = true
		}
		unit, scale, ok := tableRowUnit(kind, unitRow, c, t.hasDollar, byTags)
		if !ok {
			continue
		}
		for j, cell := range row.cells {
			if cell.absent {
				continue
			}
			if kind != rowPercent && cell.pct {
				continue
			}
			if (kind == rowMoney || kind == rowCount) && scale >= 3 && scale < 9 && cell.decimals > 1 {
				continue // cents in a table of millions: a ratio or a per-share amount
			}
			col := h.periods[j]
			v := cell.value
			dec := cell.decimals
			if kind == rowPercent {
				v, dec = v.Shift(-2), dec+2
			} else {
				v, dec = v.Shift(int32(scale)), dec-scale
			}
			f := Fact{
				DocumentID: r.doc.ID,
				Kind:       FactTable,
				Label:      row.label,
				Value:      v,
				Unit:       unit,
				Decimals:   strconv.Itoa(dec),
				PeriodEnd:  col.end,
				Instant:    col.instant || atEnd,
				Start:      cell.start,
				End:        cell.end,
			}
			if !f.Instant {
				f.PeriodStart = col.start
			}
			if !row.unlabeled && !row.noPlain {
				if len(r.facts) >= maxTableFacts {
					return
				}
				r.facts = append(r.facts, f)
			}
			if row.part != "" {
				if len(r.facts) >= maxTableFacts {
					return
				}
				f.Label, f.Dimensions = row.partLabel, map[string]string{TablePartAxis: TablePartMember(row.part)}
				r.facts = append(r.facts, f)
			}
		}
	}
	if t.title != "" && len(r.facts) > first {
		labels := map[string]bool{}
		for _, row := range t.rows {
			if !row.unlabeled {
				labels[tableLabelKey(row.label)] = true
			}
		}
		r.tables = append(r.tables, tableRecord{title: t.title, labels: labels, first: first, end: len(r.facts)})
	}
}

// tableDifferenceRow reports whether rows[i] sits between two rows that
// print "$" and is, in every column it prints, what the row above less
// the row below comes to: the amount subtracted on the way from one to the
// other ("Net sales $ 222,730 / Less merchandise costs 199,382 / Gross
// margin $ 23,348"). Such a row is an amount of the same scale, never a
// count, however its label reads.
func tableDifferenceRow(rows []tableRow, i int) bool {
	if i == 0 || i+1 >= len(rows) {
		return false
	}
	above, row, below := rows[i-1], rows[i], rows[i+1]
	if !above.dollar || !below.dollar || above.unlabeled || below.unlabeled ||
		len(above.cells) != len(row.cells) || len(below.cells) != len(row.cells) {
		return false
	}
	checked := 0
	for j, c := range row.cells {
		a, b := above.cells[j], below.cells[j]
		if c.absent || a.absent || b.absent {
			continue
		}
		if c.pct || a.pct || b.pct || c.value.IsZero() || !a.value.Sub(c.value.Abs()).Equal(b.value) {
			return false
		}
		checked++
	}
	return checked > 0
}

// Row kinds, which decide a row's unit.
const (
	rowMoney = iota
	rowPerShare
	rowShares
	rowPercent
	rowUnknown
	rowCount // members, subscribers, customers
)

// tableCountNoun, tableCountWhat and tableCountMoney tell a row that counts
// people ("Paid memberships at end of period") from an amount about them
// ("Average revenue per membership", "Enterprise customers" in a table of
// revenues).
var (
	tableCountNoun  = regexp.MustCompile(`(?i)\b(?:memberships?|members|subscribers?|customers|users|employees)\b`)
	tableCountWhat  = regexp.MustCompile(`(?i)\bnumber of\b|\bat (?:the )?end of\b|\bending\b|\baverage\b|\bpaid\b|\badditions\b|\b(?:daily|monthly) active\b`)
	tableCountMoney = regexp.MustCompile(`(?i)revenue|\bper\b|price|cost|sales|income|expense|amount|value|fees?\b|spend|margin|dollar|\$|arpu|%|percent|rate|ratio|\bshares?\b`)
)

// tableCountRow reports whether a row without "$" says it counts members,
// subscribers, customers, users or employees.
func tableCountRow(row tableRow) bool {
	return !row.dollar && tableCountNoun.MatchString(row.label) && tableCountWhat.MatchString(row.label) &&
		!tableCountMoney.MatchString(row.label) &&
		!tableCountMoney.MatchString(row.heading)
}

var (
	tablePerShare     = regexp.MustCompile(`(?i)\bper[- ](?:common |basic |diluted |ordinary )?share\b|\bper[- ]share\b|\beps\b`)
	tableSharesCount  = regexp.MustCompile(`(?i)^(?:(?:basic|diluted) )?(?:weighted[- ]average|average)\b[^$]{0,60}\bshares\b|^(?:total )?number of (?:common )?shares\b|^(?:common |basic |diluted )?shares (?:used|outstanding)\b|^(?:basic|diluted)(?: weighted[- ]average)? (?:common )?shares\b`)
	tableSharesWord   = regexp.MustCompile(`(?i)^(?:\S+ ){0,2}shares\b`)
	tableBasicDiluted = regexp.MustCompile(`(?i)^(?:basic|diluted)\b`)
	tableRatio        = regexp.MustCompile(`(?i)percent|%|\bratio\b`)
)

func tableRowKind(row tableRow) int {
	pct, num := 0, 0
	for _, cell := range row.cells {
		switch {
		case cell.absent:
		case cell.pct:
			pct++
		default:
			num++
		}
	}
	if pct > 0 && num == 0 {
		return rowPercent
	}
	label := row.label
	switch {
	case tableSharesCount.MatchString(label) && !strings.Contains(strings.ToLower(label), "par value"):
		return rowShares // "Shares used in computing earnings per share"
	case tablePerShare.MatchString(label):
		return rowPerShare
	case tableSharesWord.MatchString(label):
		return rowUnknown // "Shares repurchased": a count or an amount
	case tableBasicDiluted.MatchString(label) && tableSharesCount.MatchString(row.heading):
		return rowShares
	case tableBasicDiluted.MatchString(label) && tablePerShare.MatchString(row.heading):
		return rowPerShare
	}
	return rowMoney
}

// tableRowUnit gives a row's unit and the power of ten its printed numbers are
// scaled by, or false when neither can be told safely. byTags says that
// the table is one of amounts by the tagged amounts it prints (an HTML
// table, whose "$" cells the text drops), so that no row of it can show
// a "$" of its own.
func tableRowUnit(kind int, row tableRow, c *tableCaption, tableDollar, byTags bool) (unit string, scale int, ok bool) {
	switch kind {
	case rowUnknown:
		return "", 0, false
	case rowCount:
		// The caption's bare scale, unless it excepts the row
		// ("except subscriber data"); counts are "pure".
		scale := c.key.money
		if p, ok := tableScaleHint(row.label); ok {
			scale = p
		}
		if scale < 0 || tableOtherUnit.MatchString(row.label) || tableCaptionExcepts(c, row.label) {
			return "", 0, false
		}
		return "pure", scale, true
	case rowPercent:
		return "pure", 0, true
	case rowPerShare:
		// An amount per share prints cents or "$"; whole numbers beside
		// "per share" count shares ("equivalents excluded from ... per
		// diluted share").
		cents := row.dollar
		for _, c := range row.cells {
			cents = cents || !c.absent && c.decimals > 0
		}
		if !cents {
			return "", 0, false
		}
		return "USD/shares", 0, true
	case rowShares:
		scale := c.key.shares
		if p, ok := tableScaleHint(row.label); ok {
			scale = p
		} else if p, ok := tableScaleHint(row.heading); ok && tableBasicDiluted.MatchString(row.label) {
			scale = p
		}
		if row.dollar || scale < 0 || tableOtherUnit.MatchString(row.label) {
			return "", 0, false
		}
		return "shares", scale, true
	}
	if tableOtherUnit.MatchString(row.label) || tableOtherUnit.MatchString(row.heading) {
		return "", 0, false
	}
	k := c.key
	money := k.money
	if p, ok := tableScaleHint(row.label); ok {
		// A row with its own unit: "Employees (in thousands)" counts
		// people unless the row prints "$".
		if !row.dollar {
			return "", 0, false
		}
		money = p
	}
	if money < 0 || !tableDollar || tableRatio.MatchString(row.label) {
		return "", 0, false
	}
	if tableCaptionExcepts(c, row.label) {
		// "(in thousands, except revenue per membership)": an amount the
		// caption excepts from its scale is printed as it is, when the
		// row prints "$" and cents ("Average monthly revenue per paying
		// membership $ 11.76"), or prints cents in a table of amounts by
		// its tagged cells, where no "$" is left to print. Whole dollars
		// may still be the scale's ("membership fee data" excepted, yet
		// "Membership fees $ 4,224" is in millions).
		cents := false
		for _, cell := range row.cells {
			cents = cents || !cell.absent && cell.decimals > 0
		}
		if (row.dollar || byTags) && cents {
			return "USD", 0, true
		}
		return "", 0, false
	}
	if k.mixed && !row.dollar {
		return "", 0, false
	}
	return "USD", money, true
}

// tableCaptionExcepts reports whether a label names an item of the
// caption's "except".
func tableCaptionExcepts(c *tableCaption, label string) bool {
	label = strings.ToLower(label)
	for _, words := range c.excluded {
		hit := true
		for _, w := range words {
			hit = hit && strings.Contains(label, w)
		}
		if hit {
			return true
		}
	}
	return false
}

// tableOtherUnit finds a unit other than money printed in a label or heading:
// "Remaining lease term (years)".
var tableOtherUnit = regexp.MustCompile(`(?i)\((?:in )?(?:years?|months?|days?|weeks?|%|percent|percentage|units?|ratio|times|x)\)`)

var tableScaleHintPattern = regexp.MustCompile(`(?i)\((?:in )?(000's|000’s|000s|000|thousands|millions|billions)\)`)

// tableScaleHint reads a unit printed in a label: "Shares used (000's)",
// "Net sales (in millions)".
func tableScaleHint(label string) (int, bool) {
	m := tableScaleHintPattern.FindStringSubmatch(label)
	if m == nil {
		return 0, false
	}
	if p, ok := tableUnitPowers[strings.ToLower(m[1])]; ok {
		return p, true
	}
	return 3, true
}

// tableCaption is what a caption says of a table's units.
type tableCaption struct {
	key      *tableCaptionKey
	excluded [][]string // stems of the caption's "except" items a label may name
}

// tableCaptionKey is the comparable part of a caption.
type tableCaptionKey struct {
	money  int  // power of ten of monetary amounts; -1 unknown
	shares int  // power of ten of share counts; -1 unknown
	mixed  bool // "except" names rows that are not money (unit counts, years)
}

var (
	tableCaptionUnit  = regexp.MustCompile(`(?i)\b(millions|thousands|billions)\b`)
	tableCaptionIn    = regexp.MustCompile(`(?i)\bin (?:millions|thousands|billions|\(?000['’]?s\b)`)
	tableCaptionParen = regexp.MustCompile(`\(([^()]*)\)`)
	tableCaptionSplit = regexp.MustCompile(`(?i),|\band\b|&|;`)
	tableStemWords    = regexp.MustCompile(`[a-z]+`)
)

var tableUnitPowers = map[string]int{"thousands": 3, "millions": 6, "billions": 9}

// neighbour returns the line next to line i (d = -1 or +1) on the same
// page, or "".
func (r *tableReader) neighbour(i, d int) string {
	k := i + d
	if k < 0 || k >= len(r.lines) || r.lines[k].pageBreak {
		return ""
	}
	return strings.TrimSpace(r.text[r.lines[k].start:r.lines[k].end])
}

var (
	tableItemHeading  = regexp.MustCompile(`(?i)^item\s+\d{1,2}[a-c]?\b`)
	tableNotesHeading = regexp.MustCompile(`(?i)^notes to (?:the )?(?:condensed )?(?:consolidated )?financial statements$`)
)

// tableFindCaption reads a unit caption, "(In millions, except per share
// amounts)", from a line. A caption may wrap: its parenthesis may open on
// the line before ("(in" / "millions):") or close on the next.
func tableFindCaption(line, prev, next string) *tableCaption {
	if len(line) > 400 || !tableMentionsUnit(line) {
		return nil
	}
	var body string
	for _, m := range tableCaptionParen.FindAllStringSubmatch(line, -1) {
		if tableCaptionBody(m[1]) {
			body = m[1]
		}
	}
	if body == "" {
		if open := strings.LastIndexByte(line, '('); open >= 0 && !strings.Contains(line[open:], ")") {
			// Opens here, closes on the next line.
			if closeAt := strings.IndexByte(next, ')'); closeAt >= 0 && !strings.Contains(next[:closeAt], "(") {
				if b := line[open+1:] + " " + next[:closeAt]; tableCaptionBody(b) {
					body = b
				}
			}
		}
	}
	if body == "" {
		if closeAt := strings.IndexByte(line, ')'); closeAt >= 0 && !strings.Contains(line[:closeAt], "(") {
			// Opened on the line before.
			if open := strings.LastIndexByte(prev, '('); open >= 0 && !strings.Contains(prev[open:], ")") {
				if b := prev[open+1:] + " " + line[:closeAt]; tableCaptionBody(b) {
					body = b
				}
			}
		}
	}
	if body == "" && len(strings.Fields(line)) <= 6 && !strings.ContainsAny(line, "()") && tableCaptionBody(line) {
		body = line // "In millions", "Dollars in millions"
	}
	if body == "" {
		return nil
	}
	return tableParseCaption(body)
}

// tableMentionsUnit is a quick test that a line may hold or end a caption.
func tableMentionsUnit(line string) bool {
	return strings.Contains(line, "illions") || strings.Contains(line, "ILLIONS") ||
		strings.Contains(line, "housands") || strings.Contains(line, "HOUSANDS") || strings.Contains(line, "000")
}

// tableCaptionBody reports whether text states a unit: "in millions".
func tableCaptionBody(text string) bool {
	return len(text) <= 200 && tableCaptionIn.MatchString(text)
}

// tableThousandsMark is "000's", a way of printing "thousands".
var tableThousandsMark = regexp.MustCompile(`\(000(?:['’]?s)?\)|\b000['’]s\b|\b000s\b`)

// tableParseCaption reads the body of a caption: its subjects ("in millions",
// "shares in thousands") and its "except" items.
func tableParseCaption(body string) *tableCaption {
	c := &tableCaption{key: &tableCaptionKey{money: -1, shares: -1}}
	lower := strings.ToLower(strings.Join(strings.Fields(body), " "))
	lower = tableThousandsMark.ReplaceAllString(lower, "thousands")
	main, except, hasExcept := strings.Cut(lower, "except")
	for _, part := range tableCaptionSplit.Split(main, -1) {
		part = strings.TrimSpace(part)
		m := tableCaptionUnit.FindStringIndex(part)
		if m == nil {
			continue
		}
		subject := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(part[:m[0]]), "in"))
		power := tableUnitPowers[part[m[0]:m[1]]]
		if !strings.HasSuffix(strings.TrimSpace(part[:m[0]]), "in") {
			continue // "millions of", not a unit statement
		}
		switch {
		case subject == "" || subject == "$" || strings.Contains(subject, "amount") || strings.Contains(subject, "dollar"):
			c.key.money = power
		case strings.Contains(subject, "share"):
			c.key.shares = power
		}
	}
	if !hasExcept {
		if c.key.shares < 0 && c.key.money >= 0 {
			c.key.shares = c.key.money
		}
		return c
	}
	sharesExcepted := false
	for _, item := range tableCaptionSplit.Split(except, -1) {
		item = strings.TrimSpace(item)
		switch {
		case item == "":
		case tablePerShare.MatchString(item) || strings.Contains(item, "par value") || strings.Contains(item, "per-share"):
		case strings.Contains(item, "percent") || strings.Contains(item, "ratio") || item == "%":
		case strings.Contains(item, "share"):
			sharesExcepted = true
			if m := tableCaptionUnit.FindString(item); m != "" {
				c.key.shares = tableUnitPowers[m]
			}
		case strings.Contains(item, "thousand") || strings.Contains(item, "million") || strings.Contains(item, "billion"):
			// "which are reflected in thousands" continuing a shares item
			if sharesExcepted {
				if m := tableCaptionUnit.FindString(item); m != "" {
					c.key.shares = tableUnitPowers[m]
				}
			}
		default:
			c.key.mixed = true
			var stems []string
			for _, w := range tableStemWords.FindAllString(item, -1) {
				if len(w) < 3 || tableCaptionStopWords[w] {
					continue
				}
				stems = append(stems, strings.TrimSuffix(w, "s"))
			}
			if len(stems) > 0 {
				c.excluded = append(c.excluded, stems)
			}
		}
	}
	if sharesExcepted {
		if c.key.shares < 0 {
			c.key.shares = 0
		}
	} else if c.key.shares < 0 && c.key.money >= 0 {
		c.key.shares = c.key.money
	}
	return c
}

var tableCaptionStopWords = map[string]bool{
	"the": true, "and": true, "per": true, "data": true, "amounts": true, "amount": true, "which": true,
	"are": true, "reflected": true, "number": true, "for": true, "with": true, "that": true,
}

// tableCell is one cell of a row: a number, or a dash for no value.
type tableCell struct {
	start, end int // span of the printed number in the text
	tokStart   int // offset of the cell's first token, "$" included
	value      decimal.Decimal
	decimals   int
	pct        bool
	dollar     bool
	absent     bool
	footnote   bool // "(1)": a footnote mark as likely as a number
	year       bool // four digits that read as a year
}

// tableCells reads the cells at the end of a line, right to left, and
// returns them in order with the offset where the label ends.
func tableCells(toks []tableToken) ([]tableCell, int) {
	var cells []tableCell
	pendingClose, pendingPct := false, false
	pendingEnd := 0 // end of a ")" or "%" printed apart from its number
	lastWasCell := false
	k := len(toks) - 1
	for ; k >= 0; k-- {
		t := toks[k]
		s := t.s
		switch {
		case s == ")":
			if pendingClose || pendingPct {
				return nil, 0
			}
			if !pendingPct {
				pendingEnd = t.start + len(s)
			}
			pendingClose, lastWasCell = true, false
			continue
		case s == "%":
			if pendingPct || pendingClose {
				return nil, 0
			}
			pendingPct, lastWasCell, pendingEnd = true, false, t.start+len(s)
			continue
		case s == "$":
			if !lastWasCell || cells[len(cells)-1].dollar {
				goto done
			}
			cells[len(cells)-1].dollar = true
			cells[len(cells)-1].tokStart = t.start
			lastWasCell = false
			continue
		}
		c, ok := parseTableCell(s, t.start)
		if !ok {
			break
		}
		if pendingClose {
			if !c.openParen || c.closeParen {
				return nil, 0
			}
			c.closeParen = true
		}
		if c.openParen != c.closeParen {
			break
		}
		if c.openParen && !c.absent {
			c.value = c.value.Neg()
		}
		if pendingPct {
			c.pct = true
		}
		c.footnote = c.openParen && !c.pct && !c.dollar && !c.absent && c.decimals == 0 && c.value.Abs().LessThan(decimal.NewFromInt(10))
		if pendingClose || pendingPct {
			c.end = pendingEnd // "(2,136 )", "39 %": the cell as printed
		}
		pendingClose, pendingPct = false, false
		cells = append(cells, c.tableCell)
		lastWasCell = true
	}
done:
	if pendingClose || pendingPct {
		return nil, 0
	}
	if len(cells) == 0 {
		return nil, 0
	}
	for i, j := 0, len(cells)-1; i < j; i, j = i+1, j-1 {
		cells[i], cells[j] = cells[j], cells[i]
	}
	return cells, cells[0].tokStart
}

type parsedCell struct {
	tableCell
	openParen, closeParen bool
}

// parseTableCell reads one token as a cell: "1,234", "(1,234)", "$5.61",
// "$(334)", "7%", "(8)%", "-2%", "—", "$—", "NM". off is the token's offset.
func parseTableCell(s string, off int) (parsedCell, bool) {
	var c parsedCell
	c.tokStart = off
	i := 0
	if strings.HasPrefix(s, "$") {
		c.dollar = true
		i++
	}
	if i < len(s) && s[i] == '(' {
		c.openParen = true
		i++
	}
	rest := s[i:]
	// A dash, or "not meaningful", is a column without a value.
	if d := strings.TrimSuffix(strings.TrimSuffix(rest, ")"), "%"); TableDash(d) || tableNotMeaningful(d) {
		c.absent = true
		c.pct = strings.HasSuffix(rest, "%") || tableNotMeaningful(d)
		c.closeParen = strings.Contains(rest, ")")
		c.start, c.end = off+i, off+len(s)
		return c, true
	}
	neg := false
	if strings.HasPrefix(rest, "-") {
		neg, i = true, i+1
	} else if strings.HasPrefix(rest, "\u2212") {
		neg, i = true, i+len("\u2212")
	}
	numStart := i
	for i < len(s) && (tableDigit(s[i]) || s[i] == ',' || s[i] == '.') {
		i++
	}
	num := s[numStart:i]
	if !validTableNumber(num) {
		return c, false
	}
	switch s[i:] {
	case "":
	case ")":
		c.closeParen = true
	case "%":
		c.pct = true
	case ")%", "%)":
		c.closeParen, c.pct = true, true
	default:
		return c, false
	}
	if neg && c.openParen {
		return c, false
	}
	digits := strings.ReplaceAll(num, ",", "")
	v, err := decimal.NewFromString(digits)
	if err != nil {
		return c, false
	}
	if neg {
		v = v.Neg()
	}
	c.value = v
	if dot := strings.IndexByte(digits, '.'); dot >= 0 {
		c.decimals = len(digits) - dot - 1
	}
	c.year = !c.dollar && !c.openParen && !neg && len(num) == 4 && tableDigits(num) && (num[:2] == "19" || num[:2] == "20")
	start := off
	if c.dollar {
		start = off + strings.IndexAny(s, "(-\u22120123456789")
		if c.openParen && s[0] == '$' {
			start = off + 1
		}
	}
	c.start, c.end = start, off+len(s)
	return c, true
}

// validTableNumber accepts "1,234", "1,234.5", "12", "0.875".
func validTableNumber(num string) bool {
	if num == "" || !tableDigit(num[0]) || !tableDigit(num[len(num)-1]) {
		return false
	}
	intPart, frac, hasFrac := strings.Cut(num, ".")
	if hasFrac && (!tableDigits(frac) || frac == "") {
		return false
	}
	if !strings.Contains(intPart, ",") {
		return tableDigits(intPart) && len(intPart) <= 15
	}
	groups := strings.Split(intPart, ",")
	if len(groups[0]) == 0 || len(groups[0]) > 3 || !tableDigits(groups[0]) || len(groups) > 6 {
		return false
	}
	for _, g := range groups[1:] {
		if len(g) != 3 || !tableDigits(g) {
			return false
		}
	}
	return true
}

// TableDash reports whether a table cell is a dash, a table's mark for
// no value.
func TableDash(s string) bool {
	switch s {
	case "-", "\u2013", "\u2014", "\u2012", "\u2015", "\u2212", "--", "\u2014\u2014":
		return true
	}
	return false
}

func tableNotMeaningful(s string) bool {
	switch strings.ToLower(s) {
	case "nm", "n/m", "n.m.":
		return true
	}
	return false
}

func tableAllFootnotes(cells []tableCell) bool {
	for _, c := range cells {
		if !c.footnote {
			return false
		}
	}
	return true
}

// tokens splits a line into tokens, at most max. In pipes mode the " | "
// between cells are not tokens, and groups counts the line's non-empty
// cells; a line without a separator is one cell.
func (r *tableReader) tokens(line string, off, max int) (toks []tableToken, groups int) {
	if !r.pipes {
		return tableTokens(line, off, max), 0
	}
	all := tableTokens(line, off, 2*max+1)
	toks = make([]tableToken, 0, len(all))
	inCell := false
	for _, t := range all {
		if t.s == "|" {
			inCell = false
			continue
		}
		if !inCell {
			groups++
			inCell = true
		}
		if len(toks) < max {
			toks = append(toks, t)
		}
	}
	return toks, groups
}

// pipeCells reads a row of an HTML filing's text: a label cell, then cells
// of one number or dash each. A line of another shape gives no cells.
func (r *tableReader) pipeCells(line string, off int, toks []tableToken) (cells []tableCell, labelEnd int, label string) {
	var groups [][]tableToken
	prevPipe := true
	for _, t := range tableTokens(line, off, 2*len(toks)+2) {
		if t.s == "|" {
			prevPipe = true
			continue
		}
		if prevPipe {
			groups = append(groups, nil)
			prevPipe = false
		}
		groups[len(groups)-1] = append(groups[len(groups)-1], t)
	}
	if len(groups) < 2 {
		return nil, 0, ""
	}
	first, last := groups[0][0], groups[0][len(groups[0])-1]
	label = r.text[first.start : last.start+len(last.s)]
	if !tableHasLetter(label) {
		return nil, 0, "" // no label: a row of numbers, or of a chart
	}
	for _, g := range groups[1:] {
		cs, start := tableCells(g)
		if len(cs) != 1 || start != g[0].start {
			return nil, 0, "" // a cell of words, or of two numbers
		}
		cells = append(cells, cs[0])
	}
	return cells, cells[0].tokStart, label
}

// tableTokens splits a line into tokens at ASCII white space, at most max.
func tableTokens(line string, off, max int) []tableToken {
	var toks []tableToken
	i := 0
	for i < len(line) && len(toks) < max {
		for i < len(line) && isTableSpace(line[i]) {
			i++
		}
		j := i
		for j < len(line) && !isTableSpace(line[j]) {
			j++
		}
		if j > i {
			toks = append(toks, tableToken{s: line[i:j], start: off + i})
		}
		i = j
	}
	return toks
}

func isTableSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' || c == '\n'
}

func tableDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !tableDigit(s[i]) {
			return false
		}
	}
	return s != ""
}

// tableHeader is the column layout of a table: its periods, and where the
// columns that are not periods ("Change", "%") sit among them.
type tableHeader struct {
	cols    []bool // per column: true for a period, false for a change column
	periods []tablePeriod
	mixed   bool // "As of/Year Ended": rows at the end of the period are instants, averages and additions durations, the others left out
}

// tablePeriod is the period of one column.
type tablePeriod struct {
	start, end time.Time // start is zero for an instant
	instant    bool
}

// match maps a row's cells to the header's periods. It returns one cell per
// period and the index of the first cell used; cells before it are footnote
// marks or years that belong to the label.
func (h *tableHeader) match(cells []tableCell) ([]tableCell, int, bool) {
	n, p := len(h.cols), len(h.periods)
	change := n > p
	if len(cells) >= n {
		lead := len(cells) - n
		if tableLeftoverLabel(cells[:lead]) {
			mapped := make([]tableCell, 0, p)
			ok, pct := true, 0
			for j, isPeriod := range h.cols {
				c := cells[lead+j]
				switch {
				case isPeriod:
					if c.pct && !c.absent {
						pct++
					}
					mapped = append(mapped, c)
				case !c.pct && !c.absent:
					ok = false
				}
			}
			if ok && (!change || pct == 0) {
				return mapped, lead, true
			}
		}
	}
	if !change {
		return nil, 0, false
	}
	if m, ok := h.matchAmountAndPercent(cells); ok {
		return m, 0, true
	}
	if m, lead, ok := h.matchGroupedPercents(cells); ok {
		return m, lead, true
	}
	if len(cells) == p {
		// A row of percentages without a change: "Gross margin 68% 69%".
		for _, c := range cells {
			if !c.pct {
				return nil, 0, false
			}
		}
		return cells, 0, true
	}
	// Change columns missing from the row, or printed as two cells: the
	// cells that are not percentages must be the periods.
	var rest []int
	pcts := 0
	for i, c := range cells {
		if c.pct {
			pcts++
			continue
		}
		rest = append(rest, i)
	}
	if len(rest) < p || pcts > n-p {
		return nil, 0, false
	}
	lead := len(rest) - p
	first := rest[lead]
	for _, c := range cells[:first] {
		if c.pct {
			return nil, 0, false
		}
	}
	if !tableLeftoverLabel(cells[:first]) {
		return nil, 0, false
	}
	mapped := make([]tableCell, 0, p)
	for _, i := range rest[lead:] {
		mapped = append(mapped, cells[i])
	}
	return mapped, first, true
}

// matchAmountAndPercent maps a row whose change columns, all after the
// periods, each print an amount and a percentage ("2022 2021 2020 2022 vs.
// 2021" over "$ 19,168 $ 17,332 $ 15,276 $ 1,835 11 %").
func (h *tableHeader) matchAmountAndPercent(cells []tableCell) ([]tableCell, bool) {
	n, p := len(h.cols), len(h.periods)
	for j, isPeriod := range h.cols {
		if isPeriod != (j < p) {
			return nil, false
		}
	}
	if len(cells) != p+2*(n-p) || cells[0].footnote {
		return nil, false
	}
	for _, c := range cells[:p] {
		if c.pct {
			return nil, false
		}
	}
	for j := p; j < len(cells); j += 2 {
		if cells[j].pct || !cells[j+1].pct {
			return nil, false
		}
	}
	return cells[:p], true
}

// matchGroupedPercents maps a row of percentages that prints fewer change
// cells than the header has change columns, the same number after each
// group of periods: "Take rate (3) 13.25 % 11.93 % 1.32 % 11.93 % 10.15 %
// 1.78 %" under "2022 2021 As Reported FX-Neutral 2021 2020 As Reported
// FX-Neutral", whose change is one difference in points, not two rates.
// The header's groups must all be alike (periods, then change columns).
func (h *tableHeader) matchGroupedPercents(cells []tableCell) ([]tableCell, int, bool) {
	groups := h.columnGroups()
	if len(groups) == 0 {
		return nil, 0, false
	}
	periods, changes := groups[0][0], groups[0][1]
	for _, g := range groups {
		if g != groups[0] {
			return nil, 0, false
		}
	}
	lead := 0
	for lead < len(cells) && !cells[lead].pct {
		lead++
	}
	body := cells[lead:]
	if !tableLeftoverLabel(cells[:lead]) || len(body)%len(groups) != 0 {
		return nil, 0, false
	}
	per := len(body) / len(groups)
	if per < periods || per >= periods+changes {
		return nil, 0, false
	}
	mapped := make([]tableCell, 0, len(h.periods))
	for g := range groups {
		for _, c := range body[g*per : g*per+per] {
			if !c.pct || c.absent {
				return nil, 0, false
			}
		}
		mapped = append(mapped, body[g*per:g*per+periods]...)
	}
	return mapped, lead, true
}

// tableLeftoverLabel reports whether cells left of a row's columns can be part
// of its label: footnote marks "(1)" and years ("Notes due 2025").
func tableLeftoverLabel(cells []tableCell) bool {
	if len(cells) > 2 {
		return false
	}
	for _, c := range cells {
		if !c.footnote && !c.year {
			return false
		}
	}
	return true
}

// Header items, read from the tokens of a header line.
const (
	hdrYear      = iota // "2022"
	hdrDate             // "September 24, 2022"
	hdrMonthDay         // "September 24,"
	hdrMonthYear        // "September 2022": no day, not a usable period
	hdrVersus           // "vs."
	hdrWord
)

type tableHeaderItem struct {
	kind  int
	year  int
	month time.Month
	day   int
	word  string
}

var tableMonths = map[string]time.Month{
	"january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7,
	"august": 8, "september": 9, "october": 10, "november": 11, "december": 12,
	"jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9,
	"oct": 10, "nov": 11, "dec": 12,
}

func tableMonth(s string) (time.Month, bool) {
	m, ok := tableMonths[strings.ToLower(strings.TrimSuffix(s, "."))]
	return m, ok
}

func tableDay(s string) (int, bool) {
	s = strings.TrimSuffix(s, ",")
	if len(s) == 0 || len(s) > 2 || !tableDigits(s) {
		return 0, false
	}
	d, _ := strconv.Atoi(s)
	return d, d >= 1 && d <= 31
}

func tableYear(s string) (int, bool) {
	s = strings.TrimSuffix(s, ",")
	if len(s) != 4 || !tableDigits(s) || (s[:2] != "19" && s[:2] != "20") {
		return 0, false
	}
	y, _ := strconv.Atoi(s)
	return y, true
}

// tableLexHeader reads tokens as header items.
func tableLexHeader(toks []string) []tableHeaderItem {
	items := make([]tableHeaderItem, 0, len(toks))
	for k := 0; k < len(toks); {
		s := toks[k]
		if m, ok := tableMonth(s); ok {
			if k+1 < len(toks) {
				if d, ok := tableDay(toks[k+1]); ok {
					if k+2 < len(toks) {
						if y, ok := tableYear(toks[k+2]); ok {
							items = append(items, tableHeaderItem{kind: hdrDate, year: y, month: m, day: d})
							k += 3
							continue
						}
					}
					items = append(items, tableHeaderItem{kind: hdrMonthDay, month: m, day: d})
					k += 2
					continue
				}
				if y, ok := tableYear(toks[k+1]); ok {
					items = append(items, tableHeaderItem{kind: hdrMonthYear, year: y, month: m})
					k += 2
					continue
				}
			}
		}
		switch lower := strings.ToLower(s); {
		case lower == "vs." || lower == "vs" || lower == "versus":
			items = append(items, tableHeaderItem{kind: hdrVersus})
		default:
			if y, ok := tableYear(s); ok {
				items = append(items, tableHeaderItem{kind: hdrYear, year: y})
			} else {
				items = append(items, tableHeaderItem{kind: hdrWord, word: s})
			}
		}
		k++
	}
	return items
}

// Words a header may print among its periods: change columns, and words
// that only qualify a period ("Fiscal 2022").
var (
	tableChangeWords = map[string]bool{
		"change": true, "%": true, "actual": true, "constant": true, "percent": true, "percentage": true,
		"increase": true, "decrease": true, "(decrease)": true, "increase/(decrease)": true,
		"increase/decrease": true, "variance": true, "$": true, "growth": true, "currency": true,
		// "As Reported" and "FX-Neutral" changes.
		"as": true, "reported": true, "fx": true, "neutral": true, "fx-neutral": true,
	}
	tableChangeColumnEnd = map[string]bool{
		"change": true, "actual": true, "constant": true, "variance": true, "growth": true,
		"reported": true, "neutral": true, "fx-neutral": true,
		"(decrease)": true, "increase/(decrease)": true, "increase/decrease": true,
	}
	tablePeriodWords = map[string]bool{"fiscal": true, "fy": true, "year": true, "years": true}
	// A header's label does not end in a word that continues a sentence.
	tableDanglingWords = map[string]bool{
		"in": true, "of": true, "for": true, "and": true, "or": true, "to": true, "the": true, "during": true,
		"from": true, "since": true, "between": true, "through": true, "than": true, "by": true, "at": true,
		"on": true, "with": true, "was": true, "were": true, "is": true, "are": true, "compared": true,
	}
	tablePeriodPhrase  = regexp.MustCompile(`(?i)\b(?:(three|six|nine|twelve|3|6|9|12)[- ]months?|(\d{1,2}|thirteen|fourteen|twenty-six|twenty-seven|thirty-nine|forty|fifty-two|fifty-three)[- ]weeks?|quarters? ended|(?:fiscal )?years? ended|fiscal years?|for the years?)\b`)
	tableInstantPhrase = regexp.MustCompile(`(?i)\bas (?:of|at)\b`)
	tableMixedPhrase   = regexp.MustCompile(`(?i)\bas of ?(?:/|and) ?(?:for the )?(?:fiscal )?years? ended\b`)
	tableFlowRow       = regexp.MustCompile(`(?i)\baverage\b|\badditions?\b|\bnet adds\b|\brevenues?\b|\bsales\b|\bexpenses?\b`)
	tableEndOfPeriod   = regexp.MustCompile(`(?i)\b(?:at|as of) (?:the )?end of (?:the )?(?:period|year|fiscal year)\b`)
	tableIntroInstant  = regexp.MustCompile(`(?i)\bas (?:of|at)\b|\bat the end of\b|\bbalances? (?:at|as)\b|\bat (?:fiscal )?year[- ]end\b`)
	tableIntroDuration = regexp.MustCompile(`(?i)\bfor the (?:fiscal )?(?:years?|periods?)\b|\b(?:years?|months|periods?) ended\b|\bduring\b|\bfor (?:fiscal )?(?:19|20)\d\d\b`)
)

var tablePhraseMonths = map[string]int{
	"three": 3, "3": 3, "six": 6, "6": 6, "nine": 9, "9": 9, "twelve": 12, "12": 12,
	"13": 3, "14": 3, "thirteen": 3, "fourteen": 3, "26": 6, "27": 6, "twenty-six": 6, "twenty-seven": 6,
	"39": 9, "40": 9, "thirty-nine": 9, "forty": 9, "52": 12, "53": 12, "fifty-two": 12, "fifty-three": 12,
}

// header reads line i as a table header, with up to three short lines
// above it, or returns nil.
func (r *tableReader) header(i int, toks []tableToken) (h *tableHeader, isHeader bool) {
	hasYear := false
	for _, t := range toks {
		if _, ok := tableYear(t.s); ok {
			hasYear = true
			break
		}
	}
	if !hasYear || len(toks) > 40 {
		return nil, false
	}
	words := make([]string, 0, len(toks))
	for _, t := range toks {
		words = append(words, t.s)
	}
	words, ok := tableWithoutCaption(words)
	if !ok {
		return nil, false
	}
	items := tableLexHeader(words)
	first := -1
	for k, it := range items {
		if it.kind == hdrYear || it.kind == hdrDate || it.kind == hdrMonthYear {
			first = k
			break
		}
	}
	if first < 0 || first > maxTableHeaderPrefix {
		return nil, false
	}
	var prefix []string
	for k, it := range items[:first] {
		switch it.kind {
		case hdrWord:
			w := it.word
			if _, isNum := parseTableCell(w, 0); isNum && !(k+1 < first && strings.HasPrefix(strings.ToLower(items[k+1].word), "week")) {
				return nil, false
			}
			if strings.HasSuffix(w, ".") && len(w) > 4 {
				return nil, false // the end of a sentence
			}
			prefix = append(prefix, w)
		case hdrMonthDay:
			return nil, false // "Year Ended June 30," is read with the year as a date
		default:
			return nil, false
		}
	}
	// "As of" ends a cell of an HTML table ("As of December 31, | 2024"),
	// not a sentence.
	if len(prefix) > 0 && tableDanglingWords[strings.ToLower(strings.TrimRight(prefix[len(prefix)-1], ",:"))] &&
		!(r.pipes && tablePeriodPrefix(prefix)) {
		return nil, false
	}
	h = &tableHeader{}
	var dates []tableHeaderItem
	run := 0
	flush := func() {
		if run > 0 {
			h.cols = append(h.cols, false)
			run = 0
		}
	}
	tail := items[first:]
	for j := 0; j < len(tail); j++ {
		it := tail[j]
		switch it.kind {
		case hdrYear, hdrDate:
			if j+2 < len(tail) && tail[j+1].kind == hdrVersus && (tail[j+2].kind == hdrYear || tail[j+2].kind == hdrDate) {
				flush()
				h.cols = append(h.cols, false) // "2022 vs. 2021": a change column
				j += 2
				continue
			}
			flush()
			h.cols = append(h.cols, true)
			dates = append(dates, it)
		case hdrWord:
			w := strings.ToLower(strings.TrimRight(it.word, ",:"))
			if tablePeriodWords[w] {
				continue
			}
			if !tableChangeWords[w] {
				return nil, false
			}
			run++
			if tableChangeColumnEnd[w] {
				flush()
			}
		default:
			return nil, false
		}
	}
	flush()
	if len(dates) == 0 {
		return nil, false
	}
	if len(dates) == 1 && !tablePeriodPrefix(prefix) {
		return nil, false // one date in a sentence or a list: "Dated June 1, 2020"
	}
	// A header from here on, even when its periods cannot be told.
	// The lines above: group phrases, month-days, "As of".
	context, monthDays, top, ok := r.headerContext(i)
	if !ok {
		return nil, true
	}
	context += " " + strings.Join(prefix, " ")
	if tableProForma.MatchString(context) || tableProForma.MatchString(r.headerIntro(top)) {
		// Figures as if something had happened ("The unaudited pro forma
		// financial information is as follows:") are not the filing's
		// reported figures: a question on diluted EPS is not answered by
		// the pro forma EPS of an acquisition note.
		return nil, true
	}
	if r.periods(h, dates, context, monthDays, func() string { return r.headerIntro(top) }) {
		return h, true
	}
	return nil, true
}

// tableWithoutCaption returns a header line's words after the caption
// that may open it ("(in millions) 2023 2022"); ok is false when a
// parenthesis opens the line and does not close within it (or within its
// first 21 words).
func tableWithoutCaption(words []string) (rest []string, ok bool) {
	if len(words) == 0 || !strings.HasPrefix(words[0], "(") {
		return words, true
	}
	for k, w := range words {
		if strings.HasSuffix(w, ")") || strings.HasSuffix(w, "),") {
			return words[k+1:], true
		}
		if k > 20 {
			break
		}
	}
	return nil, false
}

// tableProForma finds a table of pro forma figures in the lines above it.
var tableProForma = regexp.MustCompile(`(?i)\bpro[\s-]+forma\b`)

// tablePeriodPrefix reports whether the words before a header's only period
// say what period it is, and nothing else: "Year Ended", "As of".
func tablePeriodPrefix(words []string) bool {
	for _, w := range words {
		if !tablePeriodPrefixWords[strings.ToLower(strings.Trim(w, ",:"))] {
			return false
		}
	}
	return true
}

var tablePeriodPrefixWords = map[string]bool{
	"for": true, "the": true, "fiscal": true, "year": true, "years": true, "ended": true, "ending": true,
	"period": true, "periods": true, "quarter": true, "quarterly": true, "as": true, "of": true, "at": true,
	"three": true, "six": true, "nine": true, "twelve": true, "months": true, "weeks": true, "52": true,
	"53": true, "fy": true,
}

// headerContext returns the text of the short lines just above line i that
// belong to its header, and the month-days they print.
func (r *tableReader) headerContext(i int) (context string, monthDays []tableHeaderItem, top int, ok bool) {
	var lines []string
	blanks := 0
	top = i
	for k := i - 1; k >= 0 && len(lines) < maxTableHeaderContext; k-- {
		ln := r.lines[k]
		if ln.pageBreak {
			break
		}
		raw := strings.TrimSpace(r.text[ln.start:ln.end])
		if raw == "" {
			if blanks++; blanks > 2 {
				break
			}
			continue
		}
		toks, _ := r.tokens(raw, 0, 13)
		if len(toks) > 12 || strings.HasSuffix(raw, ":") || strings.HasSuffix(raw, ".") {
			break
		}
		if cells, _ := tableCells(toks); len(cells) > 0 && !tableAllFootnotes(cells) {
			break
		}
		words := make([]string, len(toks))
		for j, t := range toks {
			words[j] = t.s
		}
		items := tableLexHeader(words)
		var md []tableHeaderItem
		months := 0
		for _, it := range items {
			switch it.kind {
			case hdrMonthDay:
				md = append(md, it)
			case hdrWord:
				if _, ok := tableMonth(it.word); ok {
					if months++; months > 1 {
						return "", nil, 0, false // "September September": months without days
					}
				}
			case hdrDate, hdrMonthYear, hdrYear:
				return strings.Join(lines, " "), monthDays, top, true // a line of its own periods: not ours
			}
		}
		if len(md) > 0 {
			if len(monthDays) > 0 {
				break // two lines of month-days
			}
			monthDays = md
		}
		lines = append([]string{raw}, lines...)
		top = k
	}
	return strings.Join(lines, " "), monthDays, top, true
}

// headerIntro returns the text just above a header and its context: the
// sentence that introduces the table, which may say "as of" or "for the
// years".
func (r *tableReader) headerIntro(top int) string {
	var lines []string
	for k := top - 1; k >= 0 && len(lines) < maxTableHeaderContext; k-- {
		ln := r.lines[k]
		if ln.pageBreak {
			break
		}
		raw := strings.TrimSpace(r.text[ln.start:ln.end])
		if raw == "" {
			if len(lines) > 0 {
				break
			}
			continue
		}
		toks, _ := r.tokens(raw, 0, maxTableRowTokens+1)
		if cells, _ := tableCells(toks); len(cells) > 0 && !tableAllFootnotes(cells) && !strings.HasSuffix(raw, ":") {
			break // a row of the table above
		}
		lines = append([]string{raw}, lines...)
	}
	return strings.Join(lines, " ")
}

// periods sets the header's periods from its dates and context, or
// reports false when they cannot be told.
func (r *tableReader) periods(h *tableHeader, dates []tableHeaderItem, context string, monthDays []tableHeaderItem, intro func() string) bool {
	p := len(dates)
	// Groups of columns under the same month-day ("Year Ended December
	// 31, % Change Year Ended December 31, % Change") share it.
	if len(monthDays) > 1 && len(monthDays) != p && !slices.ContainsFunc(monthDays[1:], func(m tableHeaderItem) bool {
		return m.month != monthDays[0].month || m.day != monthDays[0].day
	}) {
		monthDays = monthDays[:1]
	}
	// Month and day of each column.
	md := make([]tableHeaderItem, p)
	explicit := false
	switch {
	case dates[0].kind == hdrDate:
		explicit = true
		allDates := true
		for _, d := range dates[1:] {
			allDates = allDates && d.kind == hdrDate
		}
		for j, d := range dates {
			switch {
			case allDates:
				md[j] = d
			case j > 0 && d.kind == hdrDate:
				return false
			default:
				md[j] = dates[0] // "June 30, 2022 2021": one month-day for all
			}
		}
	case len(monthDays) == p:
		explicit = true
		copy(md, monthDays)
	case len(monthDays) == 1:
		explicit = true
		for j := range md {
			md[j] = monthDays[0]
		}
	case len(monthDays) > 1:
		return false
	default:
		for _, d := range dates {
			if d.kind != hdrYear {
				return false
			}
		}
	}
	// Durations or instants.
	var groups []int
	for _, m := range tablePeriodPhrase.FindAllStringSubmatch(context, -1) {
		n := 12
		switch {
		case m[1] != "":
			n = tablePhraseMonths[strings.ToLower(m[1])]
		case m[2] != "":
			n = tablePhraseMonths[strings.ToLower(m[2])]
		case strings.Contains(strings.ToLower(m[0]), "quarter"):
			n = 3
		}
		if n == 0 {
			return false
		}
		groups = append(groups, n)
	}
	instant := tableInstantPhrase.MatchString(context)
	if instant && len(groups) > 0 {
		// "As of/ Year Ended": a mix of both. In a table of key
		// figures the rows at the end of the period ("Paid memberships at
		// end of period") are instants, the averages and additions the
		// years' ("Average paying memberships").
		if !tableMixedPhrase.MatchString(context) {
			return false
		}
		h.mixed, instant = true, false
	}
	switch {
	case len(groups) == 0 && explicit:
		// Dates without "ended": a balance sheet when two years are
		// shown; with three, as likely a roll-forward, unless the
		// sentence above says "as of".
		text := intro()
		switch {
		case p <= 2 || tableIntroInstant.MatchString(text) && !tableIntroDuration.MatchString(text):
			instant = true
		case tableIntroDuration.MatchString(text) && !tableIntroInstant.MatchString(text) && r.annual:
			groups = []int{12}
		default:
			return false
		}
	case len(groups) == 0 && !instant:
		// Bare years. The sentence above may tell; if not, a 10-K shows
		// balances for two years and flows for three.
		if !r.annual {
			return false // a quarter or the year to date?
		}
		text := intro()
		asOf, during := tableIntroInstant.MatchString(text), tableIntroDuration.MatchString(text)
		switch {
		case asOf && !during:
			instant = true
		case during && !asOf:
		case len(h.cols) > p:
			// Change columns compare results.
		case p == 2:
			instant = true
		case p < 2:
			return false
		}
		if !instant {
			groups = []int{12}
		}
	}
	if !instant && p%len(groups) != 0 {
		return false
	}
	latest := r.anchor.AddDate(0, 0, maxTableFutureDays)
	earliest := r.anchor.AddDate(-maxTablePastYears, 0, 0)
	h.periods = make([]tablePeriod, p)
	for j, d := range dates {
		var end time.Time
		switch {
		case explicit:
			if md[j].day > tableDaysIn(md[j].month, d.year) {
				return false
			}
			end = time.Date(d.year, md[j].month, md[j].day, 0, 0, 0, 0, time.UTC)
		case r.annual:
			end = tableShiftYears(r.anchor, d.year-r.fiscalYear)
		default:
			end = tableShiftYears(r.anchor, d.year-r.anchor.Year())
		}
		if end.After(latest) || end.Before(earliest) {
			return false
		}
		h.periods[j] = tablePeriod{end: end, instant: instant}
		if !instant {
			h.periods[j].start = tablePeriodStart(end, groups[j/(p/len(groups))])
		}
	}
	// A year whose year-earlier column is printed starts the day after it.
	if !instant {
		for j := range h.periods {
			if !tableSpansMonths(h.periods[j], 12) {
				continue
			}
			want := tableShiftYears(h.periods[j].end, -1)
			for k := range h.periods {
				if k != j && tableSpansMonths(h.periods[k], 12) && tableAbsDays(h.periods[k].end, want) <= 10 {
					h.periods[j].start = h.periods[k].end.AddDate(0, 0, 1)
				}
			}
		}
	}
	chained := h.chainedGroups()
	for j := range h.periods {
		for k := j + 1; k < len(h.periods); k++ {
			if h.periods[j] == h.periods[k] && !chained[[2]int{j, k}] {
				return false // the same period twice: groups we cannot tell apart
			}
		}
	}
	return true
}

// columnGroups returns the header's groups of columns, each its periods
// and then its change columns, in order; nil when a change column comes
// before any period.
func (h *tableHeader) columnGroups() [][2]int {
	var groups [][2]int
	for j, isPeriod := range h.cols {
		switch {
		case isPeriod && (j == 0 || !h.cols[j-1]):
			groups = append(groups, [2]int{1, 0})
		case isPeriod:
			groups[len(groups)-1][0]++
		case len(groups) == 0:
			return nil
		default:
			groups[len(groups)-1][1]++
		}
	}
	return groups
}

// chainedGroups returns the pairs of period indexes (j, k) where one group
// of periods and changes ends on the period the next one starts with:
// "2022 2021 % Change 2021 2020 % Change" compares 2022 with 2021, then
// 2021 with 2020, and its two 2021 columns are one period printed twice.
func (h *tableHeader) chainedGroups() map[[2]int]bool {
	groups := h.columnGroups()
	out := map[[2]int]bool{}
	at := 0
	for g := 0; g+1 < len(groups); g++ {
		if groups[g][1] == 0 {
			return nil // a group without changes: not a comparison
		}
		at += groups[g][0]
		out[[2]int{at - 1, at}] = true
	}
	return out
}

// tableSpansMonths reports whether a duration lasts about months months.
func tableSpansMonths(p tablePeriod, months int) bool {
	if p.instant {
		return false
	}
	want := p.end.AddDate(0, -months, 0)
	return tableAbsDays(p.start, want) <= 10
}

func tableAbsDays(a, b time.Time) int {
	d := int(a.Sub(b).Hours() / 24)
	if d < 0 {
		d = -d
	}
	return d
}

func tableDaysIn(m time.Month, year int) int {
	return time.Date(year, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// tableShiftYears moves a date by whole years, keeping the month and clamping
// the day (February 29).
func tableShiftYears(t time.Time, years int) time.Time {
	y := t.Year() + years
	d := min(t.Day(), tableDaysIn(t.Month(), y))
	return time.Date(y, t.Month(), d, 0, 0, 0, 0, time.UTC)
}

// tablePeriodStart returns the first day of a period of months months ending on
// end: the first of a month when end is a month's last day, else the day
// after the same day months months before.
func tablePeriodStart(end time.Time, months int) time.Time {
	if end.Day() == tableDaysIn(end.Month(), end.Year()) {
		return time.Date(end.Year(), end.Month()-time.Month(months)+1, 1, 0, 0, 0, 0, time.UTC)
	}
	y, m := end.Year(), end.Month()-time.Month(months)
	for m < 1 {
		m += 12
		y--
	}
	d := min(end.Day(), tableDaysIn(m, y))
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC).AddDate(0, 0, 1)
}
