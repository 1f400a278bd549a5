package corpus

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/shopspring/decimal"
	"golang.org/x/net/html"
)

// ErrNotHTML is returned by ParseHTML for input with no <html> or <body> tag.
var ErrNotHTML = errors.New("corpus: html: not an HTML document")

// ErrEmptyHTML is returned by ParseHTML for a document with no visible text.
var ErrEmptyHTML = errors.New("corpus: html: no body text")

// ParsedHTML is an EDGAR inline-XBRL filing rendered to canonical text.
//
// Text holds one line per paragraph, heading or table row, and a form feed
// line at each page break, so page n is the text after the (n-1)th '\f'.
//
// Facts holds one Fact per ix:nonFraction that has a value (xsi:nil facts and
// values that cannot be read are left out), in document order. DocumentID is
// empty. Text[Start:End] is the value as displayed ("391,035", "—", "two").
// A fact that is not displayed, because it sits in ix:hidden or under a
// display:none element, has Start == End == -1.
//
// Entity is what the cover page tags about the issuer (registrant name,
// CIK, trading symbols) and the explicit dimension members of its facts.
// Facts are of kind FactXBRL, each displayed one labelled with the first
// cell of its table row.
type ParsedHTML struct {
	Text   string
	Facts  []Fact
	Entity Entity
}

// ParseHTML renders an EDGAR inline-XBRL HTML filing to canonical text and
// extracts its numeric facts.
//
// Rendering: the ix:header, <head>, <script>, <style> and display:none
// elements are dropped; block elements (p, div, h1-h6, li, tr, br, table...)
// end lines and inline ones (span, a, b, font, ix:*) do not, though one with
// a left padding or margin is set off by a space; a table row is one line of
// its non-empty cells joined by " | ", with cells holding only "$" dropped and
// cells holding only "(", ")" or "%" glued to their number, so a row reads
// "Total net sales | 391,035 | (1,234) | 2%". Page breaks are CSS page-break-before/after
// (or break-before/after) on any element; a document without such CSS breaks
// pages at each <hr> instead.
//
// Contexts and units are read from the ix:header wherever it sits, so facts
// may come before their contexts. Input larger than the source limit, or
// with no <html> or <body> tag (ErrNotHTML), or with no visible text
// (ErrEmptyHTML), is an error; ParseHTML does not panic on any input.
func ParseHTML(r io.Reader) (*ParsedHTML, error) {
	raw, err := io.ReadAll(io.LimitReader(r, maxSourceBytes+1))
	if err != nil {
		return nil, fmt.Errorf("corpus: html: %w", err)
	}
	if len(raw) > maxSourceBytes {
		return nil, fmt.Errorf("corpus: html: larger than %d MB", maxSourceBytes>>20)
	}
	p := &htmlParser{
		z:        html.NewTokenizer(bytes.NewReader(raw)),
		tags:     make(map[string]*htmlTag),
		ns:       map[string]xmlNS{"ix": nsIX, "xbrli": nsXBRLI, "xbrldi": nsXBRLDI},
		hrBreaks: !hasCSSPageBreak(raw),
		contexts: make(map[string]*ixContext),
		units:    make(map[string]string),
	}
	p.main.b = make([]byte, 0, len(raw)/4)
	if err := p.run(); err != nil {
		return nil, err
	}
	if !p.sawRoot {
		return nil, ErrNotHTML
	}
	if len(p.main.b) == 0 {
		return nil, ErrEmptyHTML
	}
	out := &ParsedHTML{Text: string(p.main.b), Facts: p.resolveFacts(), Entity: readEntity(raw)}
	labelFacts(out.Text, out.Facts)
	out.Entity.Members = entityMembers(out.Facts)
	return out, nil
}

// hasCSSPageBreak reports whether a tag in raw asks for a page break with
// CSS (page-break-before/after or break-before/after). Documents without one
// mark their pages with bare <hr> elements (older, non-Workiva filings);
// documents with them also use <hr> as a plain rule, which must not break
// pages. Only inline styles count, as ParseHTML reads no style sheets: a
// document whose breaks come from a class falls back to <hr>.
//
// It scans bytes rather than using a case-insensitive regexp, which took a
// fifth of the parse time.
func hasCSSPageBreak(raw []byte) bool {
	for i := 0; ; i++ {
		j := bytes.IndexByte(raw[i:], '-')
		if j < 0 {
			return false
		}
		i += j
		if i < 5 || !bytes.EqualFold(raw[i-5:i], []byte("break")) {
			continue
		}
		rest := raw[i+1:]
		switch {
		case hasPrefixFold(rest, "before"):
			rest = rest[len("before"):]
		case hasPrefixFold(rest, "after"):
			rest = rest[len("after"):]
		default:
			continue
		}
		rest = bytes.TrimLeft(rest, " \t\r\n")
		if len(rest) == 0 || rest[0] != ':' {
			continue
		}
		rest = bytes.TrimLeft(rest[1:], " \t\r\n")
		end := bytes.IndexFunc(rest, func(r rune) bool { return !unicode.IsLetter(r) })
		if end < 0 {
			end = len(rest)
		}
		if isPageBreakValue(bytes.ToLower(rest[:end])) && insideTag(raw[:i]) {
			return true
		}
	}
}

func hasPrefixFold(s []byte, prefix string) bool {
	return len(s) >= len(prefix) && bytes.EqualFold(s[:len(prefix)], []byte(prefix))
}

// insideTag reports whether the end of before is inside a tag (an attribute)
// rather than in element content such as a style sheet. It looks back only
// so far, so that many false candidates cost linear time.
func insideTag(before []byte) bool {
	before = before[max(0, len(before)-4096):]
	return bytes.LastIndexByte(before, '<') > bytes.LastIndexByte(before, '>')
}

// maxEndTagSearch bounds how far down the open-element stack an end tag looks
// for its start tag, so that malformed input cannot make parsing quadratic.
// Well-formed XHTML, which inline XBRL must be, always matches the top.
const maxEndTagSearch = 1024

// maxFactText bounds the displayed text of a fact read as a number; longer
// text is not a number, and reading it would only cost time.
const maxFactText = 1024

// maxScale bounds the scale attribute; real filings use -6..12.
const maxScale = 100

// xmlNS identifies the XML namespaces whose elements ParseHTML interprets.
type xmlNS uint8

const (
	nsOther  xmlNS = iota
	nsIX           // inline XBRL: ix:header, ix:nonFraction...
	nsXBRLI        // XBRL instance: contexts, units
	nsXBRLDI       // XBRL dimensions: explicit and typed members
)

var xmlNamespaces = map[string]xmlNS{
	"http://www.xbrl.org/2013/inlineXBRL": nsIX,
	"http://www.xbrl.org/2008/inlineXBRL": nsIX,
	"http://www.xbrl.org/2003/instance":   nsXBRLI,
	"http://xbrl.org/2006/xbrldi":         nsXBRLDI,
}

// tagKind is what an element means to the renderer.
type tagKind uint8

const (
	kindInline tagKind = iota // no effect of its own: span, a, b, ix:nonNumeric...
	kindBlock                 // ends a line before and after
	kindVoid                  // has no content or end tag: img, meta...
	kindBreak                 // br
	kindRule                  // hr
	kindSkip                  // content never displayed: script, style, title...
	kindHead
	kindBody
	kindRoot // html
	kindPre
	kindPara // p, which the next block start closes when its end tag is omitted
	kindTable
	kindRow
	kindCell
	kindIXHeader
	kindIXNonFraction
	kindContext
	kindUnit
	kindUnitDenominator
	kindMeasure
	kindStartDate
	kindEndDate
	kindInstant
	kindMember // explicit or typed dimension member
)

var htmlKinds = map[string]tagKind{
	"address": kindBlock, "article": kindBlock, "aside": kindBlock,
	"blockquote": kindBlock, "caption": kindBlock, "center": kindBlock,
	"dd": kindBlock, "details": kindBlock, "dialog": kindBlock, "dir": kindBlock,
	"div": kindBlock, "dl": kindBlock, "dt": kindBlock, "fieldset": kindBlock,
	"figcaption": kindBlock, "figure": kindBlock, "footer": kindBlock,
	"form": kindBlock, "h1": kindBlock, "h2": kindBlock, "h3": kindBlock,
	"h4": kindBlock, "h5": kindBlock, "h6": kindBlock, "header": kindBlock,
	"hgroup": kindBlock, "legend": kindBlock, "li": kindBlock, "main": kindBlock,
	"menu": kindBlock, "nav": kindBlock, "ol": kindBlock, "section": kindBlock,
	"summary": kindBlock, "tbody": kindBlock, "tfoot": kindBlock,
	"thead": kindBlock, "ul": kindBlock,

	"area": kindVoid, "base": kindVoid, "col": kindVoid, "embed": kindVoid,
	"img": kindVoid, "input": kindVoid, "link": kindVoid, "meta": kindVoid,
	"param": kindVoid, "source": kindVoid, "track": kindVoid, "wbr": kindVoid,

	"iframe": kindSkip, "noembed": kindSkip, "noframes": kindSkip,
	"noscript": kindSkip, "object": kindSkip, "script": kindSkip,
	"select": kindSkip, "style": kindSkip, "template": kindSkip,
	"textarea": kindSkip, "title": kindSkip,

	"br": kindBreak, "hr": kindRule, "head": kindHead, "body": kindBody,
	"html": kindRoot, "pre": kindPre, "xmp": kindPre, "listing": kindPre,
	"p": kindPara, "table": kindTable, "tr": kindRow, "td": kindCell, "th": kindCell,
}

var nsKinds = map[xmlNS]map[string]tagKind{
	nsIX: {"header": kindIXHeader, "nonfraction": kindIXNonFraction},
	nsXBRLI: {
		"context": kindContext, "unit": kindUnit, "unitdenominator": kindUnitDenominator,
		"measure": kindMeasure, "startdate": kindStartDate, "enddate": kindEndDate,
		"instant": kindInstant,
	},
	nsXBRLDI: {"explicitmember": kindMember, "typedmember": kindMember},
}

// htmlTag is an interned tag name with its meaning.
type htmlTag struct {
	name string
	kind tagKind
}

// elemFlag records what pushing an element did, so popping it can undo it.
type elemFlag uint16

const (
	elemHides      elemFlag = 1 << iota // counted in htmlParser.hidden
	elemBlock                           // ends a line when closed
	elemBreakAfter                      // page break when closed
	elemPre
	elemTable     // opened elem.table
	elemFlatTable // a table inside a cell, rendered inline
	elemRow       // opened row elem.row of elem.table
	elemCell      // opened elem.cell in elem.table
	elemFact      // opened elem.fact
	elemCapture   // captures its text for a context or unit
	elemContext
	elemUnit
	elemDenominator
)

// htmlElem is an open element. The pointers identify what it opened, so a
// cell or row that was closed early (a missing end tag) is not closed twice.
type htmlElem struct {
	tag   *htmlTag
	flags elemFlag
	table *htmlTable
	row   int
	cell  *htmlText
	fact  *htmlFact
	dim   string // dimension of a member element
}

// htmlAttrs holds the attributes of the current tag that ParseHTML reads.
// The slices are valid until the tokenizer's next Next.
type htmlAttrs struct {
	id, name, contextRef, unitRef, decimals, scale, sign, format, dimension []byte

	displayNone bool // display:none or the hidden attribute
	breakBefore bool
	breakAfter  bool
	indent      bool // a left padding or margin
	isNil       bool // xsi:nil="true"
}

// htmlFact is an ix:nonFraction as read, resolved into a Fact at the end when
// every context and unit is known.
type htmlFact struct {
	concept, contextRef, unitRef, decimals, scale, sign, format string

	isNil   bool
	visible bool      // displayed: not in ix:hidden or under display:none
	raw     [2]int    // offsets of its text, for the value, in htmlParser.factText
	buf     *htmlText // where start and end point, while the span is built
	start   int       // -1 until the first displayed rune
	end     int
	closed  bool // span ended (relative to buf until its cell's row is written)
	// outer is the open fact of the same concept, context and unit this
	// one is nested in, if any.
	outer *htmlFact
}

// htmlText accumulates canonical text as it is written, so offsets taken
// while writing are offsets into the final text: spaces are held back until
// a visible rune follows on the same line, and a page break until a line of
// text follows it. The main text and each table cell are htmlTexts; a cell
// is inline (its line ends become spaces) and its offsets are relative until
// its row is written out.
type htmlText struct {
	b         []byte
	lineStart int  // offset of the current line; len(b) when it is empty
	space     bool // a space is due before the next visible rune
	page      bool // a page break is due before the next visible rune
	inline    bool
	starts    []*htmlFact // facts whose start is the next visible rune
	facts     []*htmlFact // facts whose spans point into this cell
}

// isCanonicalSpace reports the runes that Canonicalize (collapseSpaces)
// collapses; the two must agree for Text to be canonical.
func isCanonicalSpace(r rune) bool {
	return unicode.IsSpace(r) || r == '\u200b' || r == '\ufeff'
}

// write appends text, collapsing white space. In pre mode a newline ends the
// line.
func (t *htmlText) write(s []byte, pre bool) {
	for len(s) > 0 {
		if c := s[0]; c < utf8.RuneSelf {
			s = s[1:]
			switch c {
			case '\n':
				if pre {
					t.endLine()
					continue
				}
				t.pendSpace()
			case ' ', '\t', '\v', '\f', '\r':
				t.pendSpace()
			default:
				t.visible()
				t.b = append(t.b, c)
			}
			continue
		}
		r, n := utf8.DecodeRune(s)
		s = s[n:]
		if isCanonicalSpace(r) {
			t.pendSpace()
			continue
		}
		t.visible()
		t.b = utf8.AppendRune(t.b, r) // U+FFFD for invalid UTF-8, as Canonicalize does
	}
}

func (t *htmlText) pendSpace() {
	if len(t.b) > t.lineStart {
		t.space = true
	}
}

// visible writes what is due before a visible rune and fixes the start of
// the facts waiting for it.
func (t *htmlText) visible() {
	if t.page {
		t.b = append(t.b, '\f', '\n')
		t.lineStart = len(t.b)
		t.page = false
	}
	if t.space {
		t.b = append(t.b, ' ')
		t.space = false
	}
	for _, f := range t.starts {
		if !f.closed {
			f.start = len(t.b)
		}
	}
	t.starts = t.starts[:0]
}

// endLine ends a non-empty line; in a cell it is a space.
func (t *htmlText) endLine() {
	if t.inline {
		t.pendSpace()
		return
	}
	if len(t.b) > t.lineStart {
		t.b = append(t.b, '\n')
		t.lineStart = len(t.b)
	}
	t.space = false
}

// pageBreak ends the line and breaks the page once text follows, so the text
// neither starts nor ends with a break and has no empty pages.
func (t *htmlText) pageBreak() {
	t.endLine()
	if len(t.b) > 0 {
		t.page = true
	}
}

// openFact starts f's span at the next visible rune.
func (t *htmlText) openFact(f *htmlFact) {
	f.buf = t
	f.start = -1
	t.starts = append(t.starts, f)
	if t.inline {
		t.facts = append(t.facts, f)
	}
}

// closeFact ends f's span at the current offset.
func (t *htmlText) closeFact(f *htmlFact) {
	if f.closed {
		return
	}
	f.closed = true
	f.end = len(t.b)
	if f.start < 0 {
		f.start = f.end // an empty span; visible skips closed facts
	}
}

// htmlTable is an open table: the cells of its open row, written out as one
// line when the row ends.
type htmlTable struct {
	cells []*htmlText // finished cells of the open row
	cell  *htmlText   // open cell, nil between cells
	row   int         // sequence number of the open row; 0 when none is open
	rows  int
}

// htmlParser renders one document. It keeps its own stack of open elements
// over the tokenizer rather than using html.Parse: inline XBRL is XHTML,
// whose self-closing tags (<td/>, <span/>) an HTML5 tree builder leaves
// open, and which it would rearrange by HTML's rules (moving ix elements
// that wrap table rows out of the table).
type htmlParser struct {
	z        *html.Tokenizer
	tags     map[string]*htmlTag // interned tag names, keyed by lower-case name
	ns       map[string]xmlNS    // namespace by prefix
	hrBreaks bool                // <hr> marks pages
	sawRoot  bool                // an <html> or <body> tag was seen
	attrs    htmlAttrs

	stack  []htmlElem
	hidden int // open elements that hide their content
	pre    int // open pre elements
	flat   int // open tables nested in a cell, rendered inline in it

	main   htmlText
	tables []*htmlTable

	facts []*htmlFact
	// factText is the text of every open ix:nonFraction, written once however
	// deeply they nest; a fact's value is its slice of it.
	factText  []byte
	openFacts int
	openStack []*htmlFact // the open facts, outermost first

	capture   []byte // text of the open context or unit part
	capturing bool
	ctx       *ixContext
	unit      *ixUnit
	contexts  map[string]*ixContext
	units     map[string]string
	styleBuf  []byte
}

// ixContext is an xbrli:context.
type ixContext struct {
	id         string
	start, end time.Time
	instant    bool
	dims       map[string]string
}

// ixUnit is an xbrli:unit being read.
type ixUnit struct {
	id       string
	num, den []string
	inDen    bool
}

func (p *htmlParser) run() error {
	for {
		switch p.z.Next() {
		case html.ErrorToken:
			if err := p.z.Err(); err != io.EOF {
				return fmt.Errorf("corpus: html: %w", err)
			}
			for len(p.stack) > 0 {
				p.pop()
			}
			p.main.endLine()
			return nil
		case html.TextToken:
			p.text(p.z.Text())
		case html.StartTagToken:
			p.startTag(false)
		case html.SelfClosingTagToken:
			p.startTag(true)
		case html.EndTagToken:
			p.endTag()
		}
	}
}

func (p *htmlParser) text(s []byte) {
	if p.openFacts > 0 {
		p.factText = append(p.factText, s...)
	}
	if p.capturing {
		p.capture = append(p.capture, s...)
	}
	if p.hidden == 0 {
		p.sink().write(s, p.pre > 0)
	}
}

// sink is where displayed text goes: the open cell, or the main text.
func (p *htmlParser) sink() *htmlText {
	if n := len(p.tables); n > 0 && p.tables[n-1].cell != nil {
		return p.tables[n-1].cell
	}
	return &p.main
}

// tag interns a tag name and classifies it.
func (p *htmlParser) tag(name []byte) *htmlTag {
	if t, ok := p.tags[string(name)]; ok {
		return t
	}
	t := &htmlTag{name: string(name)}
	if prefix, local, ok := strings.Cut(t.name, ":"); ok {
		t.kind = nsKinds[p.ns[prefix]][local]
	} else {
		t.kind = htmlKinds[t.name]
	}
	p.tags[t.name] = t
	return t
}

// readAttrs reads the current tag's attributes into p.attrs and records any
// namespace declarations.
func (p *htmlParser) readAttrs(more bool) {
	p.attrs = htmlAttrs{}
	a := &p.attrs
	for more {
		var key, val []byte
		key, val, more = p.z.TagAttr()
		switch string(key) {
		case "style":
			p.readStyle(val)
		case "hidden":
			a.displayNone = true
		case "id":
			a.id = val
		case "name":
			a.name = val
		case "contextref":
			a.contextRef = val
		case "unitref":
			a.unitRef = val
		case "decimals":
			a.decimals = val
		case "scale":
			a.scale = val
		case "sign":
			a.sign = val
		case "format":
			a.format = val
		case "dimension":
			a.dimension = val
		default:
			if prefix, ok := bytes.CutPrefix(key, []byte("xmlns:")); ok {
				p.declare(string(prefix), string(val))
			} else if bytes.HasSuffix(key, []byte(":nil")) {
				a.isNil = string(bytes.TrimSpace(val)) == "true"
			}
		}
	}
}

// declare binds a namespace prefix. Tags already classified under the old
// binding are classified again.
func (p *htmlParser) declare(prefix, uri string) {
	ns := xmlNamespaces[uri]
	if old, ok := p.ns[prefix]; ok && old == ns {
		return
	}
	p.ns[prefix] = ns
	clear(p.tags)
}

// readStyle picks display:none and page breaks out of a style attribute.
func (p *htmlParser) readStyle(val []byte) {
	style := append(p.styleBuf[:0], val...)
	p.styleBuf = style
	for i, c := range style {
		if 'A' <= c && c <= 'Z' {
			style[i] = c + 'a' - 'A'
		}
	}
	if !bytes.Contains(style, []byte("none")) && !bytes.Contains(style, []byte("break")) &&
		!bytes.Contains(style, []byte("left")) {
		return
	}
	for decl := range bytes.SplitSeq(style, []byte(";")) {
		prop, value, ok := bytes.Cut(decl, []byte(":"))
		if !ok {
			continue
		}
		value = bytes.TrimSpace(bytes.TrimSuffix(bytes.TrimSpace(value), []byte("!important")))
		switch string(bytes.TrimSpace(prop)) {
		case "display":
			p.attrs.displayNone = string(value) == "none"
		case "page-break-before", "break-before":
			p.attrs.breakBefore = isPageBreakValue(value)
		case "page-break-after", "break-after":
			p.attrs.breakAfter = isPageBreakValue(value)
		case "padding-left", "margin-left":
			p.attrs.indent = bytes.ContainsAny(value, "123456789")
		}
	}
}

func isPageBreakValue(v []byte) bool {
	switch string(v) {
	case "always", "page", "left", "right", "recto", "verso":
		return true
	}
	return false
}

func (p *htmlParser) startTag(selfClosing bool) {
	name, more := p.z.TagName()
	p.readAttrs(more)
	t := p.tag(name)
	a := &p.attrs
	if selfClosing && (t.kind == kindSkip || t.kind == kindPre) {
		// The tokenizer would read what follows <script/> as script text.
		p.z.NextIsNotRawText()
	}

	switch t.kind {
	case kindRoot:
		p.sawRoot = true
	case kindBody:
		p.sawRoot = true
		p.popTo(kindHead, nil) // a missing </head> must not hide the body
	case kindBlock, kindPara, kindTable, kindPre, kindRule:
		if n := len(p.stack); n > 0 && p.stack[n-1].tag.kind == kindPara {
			p.pop()
		}
	case kindRow:
		if tb := p.table(); tb != nil && p.flat == 0 {
			p.popTo(kindRow, tb)
			p.endRow(tb)
		}
	case kindCell:
		if tb := p.table(); tb != nil && p.flat == 0 {
			p.popTo(kindCell, tb)
			p.endCell(tb)
		}
	}

	switch t.kind {
	case kindVoid:
		if a.breakBefore || a.breakAfter {
			p.pageBreak()
		}
		return
	case kindBreak:
		p.lineBreak()
		return
	case kindRule:
		p.lineBreak()
		if a.breakBefore || a.breakAfter || p.hrBreaks {
			p.pageBreak()
		}
		return
	}

	e := htmlElem{tag: t}
	if a.displayNone || t.kind == kindSkip || t.kind == kindHead || t.kind == kindIXHeader {
		e.flags |= elemHides
		p.hidden++
	}
	if a.breakBefore {
		p.pageBreak()
	}
	if a.breakAfter && p.hidden == 0 {
		e.flags |= elemBreakAfter
	}
	switch t.kind {
	case kindBlock, kindPara:
		e.flags |= elemBlock
		p.lineBreak()
	case kindPre:
		e.flags |= elemBlock | elemPre
		p.lineBreak()
		p.pre++
	case kindTable:
		if tb := p.table(); (tb != nil && tb.cell != nil) || p.flat > 0 {
			e.flags |= elemFlatTable
			p.flat++
			p.lineBreak()
			break
		}
		p.lineBreak()
		e.flags |= elemTable
		e.table = &htmlTable{}
		p.tables = append(p.tables, e.table)
	case kindRow:
		tb := p.table()
		if tb == nil || p.flat > 0 {
			e.flags |= elemBlock
			p.lineBreak()
			break
		}
		e.flags |= elemRow
		e.table = tb
		e.row = p.startRow(tb)
	case kindCell:
		tb := p.table()
		if tb == nil || p.flat > 0 {
			e.flags |= elemBlock
			p.lineBreak()
			break
		}
		if tb.row == 0 {
			p.startRow(tb) // a cell outside any <tr> opens a row of its own
		}
		e.flags |= elemCell
		e.table = tb
		e.cell = &htmlText{inline: true}
		tb.cell = e.cell
	case kindIXNonFraction:
		e.flags |= elemFact
		e.fact = p.openFact(a)
	case kindContext:
		e.flags |= elemContext
		p.ctx = &ixContext{id: string(a.id)}
	case kindUnit:
		e.flags |= elemUnit
		p.unit = &ixUnit{id: string(a.id)}
	case kindUnitDenominator:
		if p.unit != nil {
			e.flags |= elemDenominator
			p.unit.inDen = true
		}
	case kindMeasure, kindStartDate, kindEndDate, kindInstant, kindMember:
		e.flags |= elemCapture
		e.dim = string(a.dimension)
		p.capture, p.capturing = p.capture[:0], true
	}
	if a.indent && p.hidden == 0 {
		// EDGAR sets a bullet or footnote mark off from its text with the
		// padding of the text's span, not with a space: "•" then
		// <span style="padding-left:19pt">Facebook</span>.
		p.sink().pendSpace()
	}
	p.stack = append(p.stack, e)
	if selfClosing {
		p.pop()
	}
}

func (p *htmlParser) endTag() {
	name, _ := p.z.TagName()
	t := p.tag(name)
	for i := len(p.stack) - 1; i >= 0 && i >= len(p.stack)-maxEndTagSearch; i-- {
		if p.stack[i].tag.name == t.name {
			for len(p.stack) > i {
				p.pop()
			}
			return
		}
	}
	if t.kind == kindBreak { // browsers read </br> as <br>
		p.lineBreak()
	}
}

// popTo pops the open elements down to and including the innermost one of
// kind, when there is one above the elements of table tb (or, for tb nil,
// anywhere near the top). It implements the end tags HTML lets authors omit.
func (p *htmlParser) popTo(kind tagKind, tb *htmlTable) {
	for i := len(p.stack) - 1; i >= 0 && i >= len(p.stack)-maxEndTagSearch; i-- {
		e := &p.stack[i]
		if tb != nil && e.flags&elemTable != 0 {
			return
		}
		if e.tag.kind == kind && (tb == nil || e.table == tb) {
			for len(p.stack) > i {
				p.pop()
			}
			return
		}
	}
}

// pop closes the innermost open element, undoing what opening it did.
func (p *htmlParser) pop() {
	e := p.stack[len(p.stack)-1]
	p.stack = p.stack[:len(p.stack)-1]
	if e.flags&elemFact != 0 {
		p.closeFact(e.fact)
	}
	if e.flags&elemCapture != 0 {
		p.endCapture(e)
	}
	if e.flags&elemDenominator != 0 && p.unit != nil {
		p.unit.inDen = false
	}
	if e.flags&elemContext != 0 && p.ctx != nil {
		p.contexts[p.ctx.id] = p.ctx
		p.ctx = nil
	}
	if e.flags&elemUnit != 0 && p.unit != nil {
		p.units[p.unit.id] = p.unit.String()
		p.unit = nil
	}
	if e.flags&elemCell != 0 && e.table.cell == e.cell {
		p.endCell(e.table)
	}
	if e.flags&elemRow != 0 && e.table.row == e.row {
		p.endRow(e.table)
	}
	if e.flags&elemTable != 0 {
		// Tables opened after this one belong to elements above it, already
		// popped; closing down to it only guards that invariant.
		if i := lastIndex(p.tables, e.table); i >= 0 {
			for len(p.tables) > i {
				tb := p.tables[len(p.tables)-1]
				p.tables = p.tables[:len(p.tables)-1]
				p.endRow(tb)
			}
		}
		p.lineBreak()
	}
	if e.flags&elemFlatTable != 0 {
		p.flat--
		p.lineBreak()
	}
	if e.flags&elemPre != 0 {
		p.pre--
	}
	if e.flags&elemBlock != 0 {
		p.lineBreak()
	}
	if e.flags&elemHides != 0 {
		p.hidden--
	}
	if e.flags&elemBreakAfter != 0 {
		p.pageBreak()
	}
}

// lineBreak ends the line (or, in a cell, the word) unless the element
// asking is not displayed: a display:none block makes no box, so it does not
// split the text around it.
func (p *htmlParser) lineBreak() {
	if p.hidden == 0 {
		p.sink().endLine()
	}
}

// lastIndex is slices.Index from the end, where an open table usually is.
func lastIndex(tables []*htmlTable, tb *htmlTable) int {
	for i := len(tables) - 1; i >= 0; i-- {
		if tables[i] == tb {
			return i
		}
	}
	return -1
}

// pageBreak breaks the page unless the element asking is not displayed.
func (p *htmlParser) pageBreak() {
	if p.hidden == 0 {
		p.main.pageBreak()
	}
}

// table returns the innermost open table that renders rows, or nil.
func (p *htmlParser) table() *htmlTable {
	if n := len(p.tables); n > 0 {
		return p.tables[n-1]
	}
	return nil
}

func (p *htmlParser) startRow(tb *htmlTable) int {
	p.endRow(tb)
	tb.rows++
	tb.row = tb.rows
	return tb.row
}

// endCell finishes the open cell, if any, and adds it to the row. Facts still
// open in it (a missing end tag) end where the cell ends.
func (p *htmlParser) endCell(tb *htmlTable) {
	c := tb.cell
	if c == nil {
		return
	}
	tb.cell = nil
	c.space = false
	for _, f := range c.facts {
		c.closeFact(f)
	}
	tb.cells = append(tb.cells, c)
}

// endRow writes the open row, if any, as one line of the main text.
func (p *htmlParser) endRow(tb *htmlTable) {
	p.endCell(tb)
	tb.row = 0
	cells := tb.cells
	tb.cells = nil
	if len(cells) == 0 {
		return
	}
	m := &p.main
	parts := mergeCells(cells)
	if len(parts) > 0 {
		m.endLine()
		m.visible()
	}
	for i, part := range parts {
		if i > 0 {
			m.b = append(m.b, " | "...)
		}
		for _, c := range part {
			base := len(m.b)
			m.b = append(m.b, c.b...)
			for _, f := range c.facts {
				f.start += base
				f.end += base
				f.buf = m
			}
			c.facts = nil
		}
	}
	// Facts of dropped cells keep an empty span where the row ends.
	for _, c := range cells {
		for _, f := range c.facts {
			f.start, f.end, f.buf = len(m.b), len(m.b), m
		}
	}
	if len(parts) > 0 {
		m.endLine()
	}
}

// mergeCells turns a row's cells into the parts of its line, each part one
// or more cells written together.
//
// EDGAR tables give currency symbols, parentheses and percent signs cells of
// their own ("$ | 391,035", "( | 1,234 | )", "2 | %"). The rule:
//   - empty cells (only white space or nbsp) are skipped;
//   - a cell holding only currency symbols ("$", "€") is dropped, so
//     "Total net sales | $ | 391,035" reads "Total net sales | 391,035";
//   - a cell of only opening parentheses (currency symbols in it dropped) is
//     glued to the front of the next cell: "(" + "1,234" → "(1,234";
//   - a cell of only closing parentheses and percent signs is glued to the
//     end of the previous part: "(1,234" + ")" → "(1,234)", "2" + "%" → "2%";
//   - every other cell, dashes and footnote marks included, is a part.
func mergeCells(cells []*htmlText) [][]*htmlText {
	var parts [][]*htmlText
	var prefix []*htmlText // opening cells waiting for the next cell
	for _, c := range cells {
		switch cellKind(c.b) {
		case cellEmpty, cellCurrency:
			continue
		case cellOpening:
			n := bytes.Count(c.b, []byte("("))
			c.b = bytes.Repeat([]byte("("), n)
			for _, f := range c.facts {
				f.start, f.end = 0, 0
			}
			prefix = append(prefix, c)
		case cellClosing:
			if len(prefix) == 0 && len(parts) > 0 {
				parts[len(parts)-1] = append(parts[len(parts)-1], c)
				continue
			}
			parts = append(parts, append(prefix, c))
			prefix = nil
		default:
			parts = append(parts, append(prefix, c))
			prefix = nil
		}
	}
	if len(prefix) > 0 {
		parts = append(parts, prefix)
	}
	return parts
}

type cellClass uint8

const (
	cellText cellClass = iota
	cellEmpty
	cellCurrency // "$", "€"...
	cellOpening  // "(", "$("
	cellClosing  // ")", "%", ")%"
)

func cellKind(b []byte) cellClass {
	if len(b) == 0 {
		return cellEmpty
	}
	if len(b) > 8 {
		return cellText
	}
	var currency, open, closing bool
	for _, r := range string(b) {
		switch {
		case r == '(':
			open = true
		case r == ')' || r == '%':
			closing = true
		case unicode.Is(unicode.Sc, r):
			currency = true
		default:
			return cellText
		}
	}
	switch {
	case open && closing:
		return cellText
	case open:
		return cellOpening
	case closing && !currency:
		return cellClosing
	case currency && !closing:
		return cellCurrency
	}
	return cellText
}

func (p *htmlParser) openFact(a *htmlAttrs) *htmlFact {
	f := &htmlFact{
		concept:    string(a.name),
		contextRef: string(a.contextRef),
		unitRef:    string(a.unitRef),
		decimals:   string(a.decimals),
		scale:      string(a.scale),
		sign:       string(a.sign),
		format:     string(a.format),
		isNil:      a.isNil,
		visible:    p.hidden == 0,
	}
	if f.visible {
		p.sink().openFact(f)
	}
	for _, o := range p.openStack {
		if o.concept == f.concept && o.contextRef == f.contextRef && o.unitRef == f.unitRef {
			f.outer = o
			break
		}
	}
	p.facts = append(p.facts, f)
	f.raw[0] = len(p.factText)
	p.openFacts++
	p.openStack = append(p.openStack, f)
	return f
}

func (p *htmlParser) closeFact(f *htmlFact) {
	f.raw[1] = len(p.factText)
	p.openFacts--
	if i := slices.Index(p.openStack, f); i >= 0 {
		p.openStack = slices.Delete(p.openStack, i, i+1)
	}
	if f.buf != nil {
		f.buf.closeFact(f)
	}
}

func (p *htmlParser) endCapture(e htmlElem) {
	s := string(bytes.TrimSpace(p.capture))
	p.capturing = false
	switch e.tag.kind {
	case kindMeasure:
		if u := p.unit; u != nil {
			if u.inDen {
				u.den = append(u.den, localName(s))
			} else {
				u.num = append(u.num, localName(s))
			}
		}
		return
	case kindMember:
		if p.ctx != nil && e.dim != "" {
			if p.ctx.dims == nil {
				p.ctx.dims = make(map[string]string)
			}
			p.ctx.dims[e.dim] = s
		}
		return
	}
	if p.ctx == nil {
		return
	}
	d, ok := parseXBRLDate(s)
	if !ok {
		return
	}
	switch e.tag.kind {
	case kindStartDate:
		p.ctx.start = d
	case kindEndDate:
		p.ctx.end = d
	case kindInstant:
		p.ctx.end = d
		p.ctx.instant = true
	}
}

// parseXBRLDate reads an xs:date or the date of an xs:dateTime.
func parseXBRLDate(s string) (time.Time, bool) {
	if len(s) > 10 {
		s = s[:10]
	}
	d, err := time.Parse(time.DateOnly, s)
	return d, err == nil
}

// String renders a unit as its measures' local names: "USD", "shares",
// "USD/shares"; several measures multiply: "USD*shares".
func (u *ixUnit) String() string {
	s := strings.Join(u.num, "*")
	if len(u.den) > 0 {
		s += "/" + strings.Join(u.den, "*")
	}
	return s
}

// localName strips a namespace prefix: "iso4217:USD" → "USD".
func localName(qname string) string {
	if i := strings.LastIndexByte(qname, ':'); i >= 0 {
		return qname[i+1:]
	}
	return qname
}

// resolveFacts turns the facts read into Facts, now that every context and
// unit is known. Facts without a value (xsi:nil) or whose value or scale
// cannot be read are left out, and a fact is kept once however many times
// it is tagged over the same text.
func (p *htmlParser) resolveFacts() []Fact {
	facts := make([]Fact, 0, len(p.facts))
	// A fact tagged again inside itself (an ix:nonFraction of the same
	// concept, context and unit nested in another, over the same text and
	// value) is one fact.
	type key struct {
		concept, context, unit, value, decimals string
		start, end                              int
	}
	keys := make(map[*htmlFact]key, len(p.facts))
	for _, f := range p.facts {
		if f.isNil {
			continue
		}
		if f.raw[1]-f.raw[0] > maxFactText || f.raw[1] < f.raw[0] {
			continue
		}
		raw := p.factText[f.raw[0]:f.raw[1]]
		v, ok := ixValue(string(raw), f.format)
		if !ok {
			continue
		}
		if f.scale != "" {
			scale, err := strconv.Atoi(strings.TrimSpace(f.scale))
			if err != nil || scale < -maxScale || scale > maxScale {
				continue
			}
			v = v.Shift(int32(scale))
		}
		if strings.TrimSpace(f.sign) == "-" {
			v = v.Neg()
		}
		fact := Fact{
			Concept:   f.concept,
			Value:     v,
			Unit:      p.units[f.unitRef],
			Decimals:  f.decimals,
			ContextID: f.contextRef,
			Start:     -1,
			End:       -1,
		}
		if f.visible && f.buf == &p.main && 0 <= f.start && f.start <= f.end && f.end <= len(p.main.b) {
			fact.Start, fact.End = f.start, f.end
		}
		k := key{fact.Concept, fact.ContextID, fact.Unit, fact.Value.String(), fact.Decimals, fact.Start, fact.End}
		if ok, seen := keys[f.outer]; f.outer != nil && seen && ok == k {
			keys[f] = k
			continue
		}
		keys[f] = k
		if c := p.contexts[f.contextRef]; c != nil {
			fact.PeriodEnd, fact.Instant = c.end, c.instant
			if !c.instant {
				fact.PeriodStart = c.start
			}
			if len(c.dims) > 0 {
				fact.Dimensions = maps.Clone(c.dims)
			}
		}
		facts = append(facts, fact)
	}
	return facts
}

// ixValue reads the displayed text of an ix:nonFraction under its format
// (an inline XBRL transformation; its prefix names the registry version and
// is ignored). A lone dash means zero, as it does in EDGAR tables.
func ixValue(text, format string) (decimal.Decimal, bool) {
	format = strings.ToLower(localName(strings.TrimSpace(format)))
	s := strings.Map(func(r rune) rune {
		if isCanonicalSpace(r) {
			return -1
		}
		return r
	}, text)
	switch {
	case format == "fixed-zero" || format == "fixedzero":
		return decimal.Zero, true
	case isDash(s):
		return decimal.Zero, true
	case strings.HasPrefix(format, "numwords") || strings.HasPrefix(format, "num-word"):
		n, ok := parseNumberWords(text)
		return decimal.NewFromInt(n), ok
	case format == "num-comma-decimal" || format == "numcommadecimal" || format == "numdotcomma" ||
		format == "numspacecomma":
		// "1.234,5": dots (or spaces) group thousands, the comma is the decimal point.
		s = strings.ReplaceAll(strings.ReplaceAll(s, ".", ""), ",", ".")
	default:
		// ixt:num-dot-decimal and untransformed values: commas group thousands.
		s = strings.ReplaceAll(s, ",", "")
	}
	s = strings.ReplaceAll(s, "'", "")
	if !isDecimalLiteral(s) {
		return decimal.Decimal{}, false
	}
	d, err := decimal.NewFromString(s)
	return d, err == nil
}

func isDash(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		switch r {
		case '-', '\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2015', '\u2212':
		default:
			return false
		}
	}
	return true
}

// isDecimalLiteral reports whether s is an optionally negative run of digits
// with at most one decimal point, the only input given to decimal parsing
// (which would also take exponents, letting input ask for huge numbers).
func isDecimalLiteral(s string) bool {
	s = strings.TrimPrefix(s, "-")
	digits, dot := 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			digits++
		case c == '.' && !dot:
			dot = true
		default:
			return false
		}
	}
	return digits > 0
}

var numberWords = map[string]int64{
	"zero": 0, "no": 0, "none": 0, "one": 1, "two": 2, "three": 3, "four": 4,
	"five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
	"eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
	"sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
	"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
	"seventy": 70, "eighty": 80, "ninety": 90,
}

var numberScales = map[string]int64{
	"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12,
}

// parseNumberWords reads English number words (ixt-sec:numwordsen): "no",
// "none", "two", "twenty-one", "one hundred thousand".
func parseNumberWords(s string) (int64, bool) {
	words := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return r == '-' || r == ',' || isCanonicalSpace(r)
	})
	var total, group int64
	seen := false
	for _, w := range words {
		if w == "and" {
			continue
		}
		if n, ok := numberWords[w]; ok {
			group += n
		} else if w == "hundred" {
			group *= 100
		} else if m, ok := numberScales[w]; ok && group < 1000 {
			total += group * m
			group = 0
		} else {
			return 0, false
		}
		if total > 1e15 || group > 1e6 {
			return 0, false
		}
		seen = true
	}
	return total + group, seen
}
