package pgstore

import (
	"fmt"
	"strings"
)

// orQuery returns the OR reading of a tsquery in Postgres' text form (as
// websearch_to_tsquery(...)::text prints it) for the full-text fallback:
// the positive operands of every AND become alternatives, while negated
// operands stay required, so "gross margin -tariff" reads as
// ('gross' | 'margin') & !'tariff', never as "anything without tariff".
// Phrases (<->, <N>) and explicit ORs are kept as they are. A plain
// textual replace(' & ', ' | ') would be unsound exactly there: it turns
// a & !b into a | !b.
//
// The result uses only operands of the input, so it matches every chunk the
// input matches.
func orQuery(q string) (string, error) {
	p := &tsParser{src: q}
	n, err := p.parse()
	if err != nil {
		return "", fmt.Errorf("pgstore: tsquery %q: %w", q, err)
	}
	if n == nil {
		return "", nil
	}
	return orForm(n).String(), nil
}

// maxLevelOperands bounds the operands of one level of the ladder (see
// ladder): the GIN index evaluates the whole tsquery for every chunk
// holding any of its words, so a level of too many subsets costs more than
// it saves. It admits every level of queries of up to six words.
const maxLevelOperands = 64

// stage is one search of the bounded full-text search: the chunks matching
// match, ranked by ts_rank for rank.
type stage struct{ match, rank string }

// ladder is how the bounded full-text search reads a query. It searches
// first, then, when that finds fewer than k chunks, or. Either may match
// more chunks than the search ranks: a sample of the AND reading's matches
// still holds every word, but a sample of an OR's does not rank as the
// unbounded search would. So when or saturates, the search steps down the
// levels instead, each matching every chunk the ones before it match, and
// finally or again, to fill what is left: the chunks holding the most
// operands (words, phrases or groups) are found, and ranked, first.
type ladder struct {
	first  stage   // the query as written: the AND reading, or an OR query itself
	levels []stage // chunks holding at least m of or's operands, m decreasing
	or     stage   // the OR reading (orQuery); first itself for an OR query
}

// newLadder returns the ladder of q, the AND reading in Postgres' text
// form; ok is false when q has no OR reading (it is empty).
//
// For an AND of positive operands and negations, first ranks the AND by
// itself; level m, for m from n-1 down to 2, matches the chunks holding at
// least m of the n positive operands and none of the negated ones, ranked
// by the OR reading. For an OR of operands ("a or b or c"), the levels run
// from m = n (all of them) down to 2, ranked by the OR. A level of more than
// maxLevelOperands operands is left out; other queries have no levels.
func newLadder(q string) (l ladder, ok bool, err error) {
	or, err := orQuery(q)
	if err != nil || or == "" {
		return l, false, err
	}
	p := &tsParser{src: q}
	n, err := p.parse()
	if err != nil {
		return l, false, err
	}
	l = ladder{first: stage{q, q}, or: stage{or, or}}
	switch n.kind {
	case tsAnd:
		var pos, neg []*tsNode
		for _, k := range n.kids {
			if k.kind == tsNot {
				neg = append(neg, k)
			} else {
				pos = append(pos, k)
			}
		}
		for m := len(pos) - 1; m >= 2; m-- {
			if level := atLeast(pos, m, neg); level != "" {
				l.levels = append(l.levels, stage{level, or})
			}
		}
	case tsOr:
		l.or = l.first
		for m := len(n.kids); m >= 2; m-- {
			if level := atLeast(n.kids, m, nil); level != "" {
				l.levels = append(l.levels, stage{level, q})
			}
		}
	}
	return l, true, nil
}

// atLeast returns the tsquery of the chunks holding at least m of ops and
// none of neg, or "" when it would have more than maxLevelOperands
// operands.
func atLeast(ops []*tsNode, m int, neg []*tsNode) string {
	if subsets(len(ops), m)*m > maxLevelOperands {
		return ""
	}
	level := &tsNode{kind: tsOr}
	for _, sub := range combinations(len(ops), m) {
		and := &tsNode{kind: tsAnd}
		for _, i := range sub {
			and.kids = appendFlat(and.kids, tsAnd, ops[i])
		}
		level.kids = append(level.kids, and)
	}
	if len(level.kids) == 1 {
		level = level.kids[0]
	}
	if len(neg) > 0 {
		level = &tsNode{kind: tsAnd, kids: append(appendFlat(nil, tsAnd, level), neg...)}
	}
	return level.String()
}

// subsets returns the binomial coefficient C(n, m), or any number above
// maxLevelOperands when it is larger, so that a long query cannot overflow.
func subsets(n, m int) int {
	m = min(m, n-m) // C(n, 1), ..., C(n, m) increase from here on
	c := 1
	for i := range m {
		if c = c * (n - i) / (i + 1); c > maxLevelOperands {
			return c
		}
	}
	return c
}

// combinations returns every m-element subset of 0..n-1, in lexical order.
func combinations(n, m int) [][]int {
	var out [][]int
	sub := make([]int, 0, m)
	var walk func(from int)
	walk = func(from int) {
		if len(sub) == m {
			out = append(out, append([]int(nil), sub...))
			return
		}
		for i := from; i <= n-(m-len(sub)); i++ {
			sub = append(sub, i)
			walk(i + 1)
			sub = sub[:len(sub)-1]
		}
	}
	walk(0)
	return out
}

type tsKind int

const (
	tsOperand tsKind = iota // 'lexeme', with any :* or weight suffix
	tsNot                   // !x
	tsPhrase                // x <-> y, x <N> y
	tsAnd
	tsOr
)

type tsNode struct {
	kind tsKind
	text string    // the operand, or the phrase operator ("<->", "<2>")
	kids []*tsNode // one for tsNot, two for tsPhrase, two or more for tsAnd, tsOr
}

// String prints n in tsquery input syntax, parenthesising every compound
// operand so precedence never matters.
func (n *tsNode) String() string {
	var b strings.Builder
	n.write(&b)
	return b.String()
}

func (n *tsNode) write(b *strings.Builder) {
	switch n.kind {
	case tsOperand:
		b.WriteString(n.text)
	case tsNot:
		b.WriteByte('!')
		n.kids[0].writeOperand(b)
	case tsPhrase:
		n.kids[0].writeOperand(b)
		b.WriteString(" " + n.text + " ")
		n.kids[1].writeOperand(b)
	case tsAnd, tsOr:
		sep := " & "
		if n.kind == tsOr {
			sep = " | "
		}
		for i, k := range n.kids {
			if i > 0 {
				b.WriteString(sep)
			}
			k.writeOperand(b)
		}
	}
}

// writeOperand writes n as the operand of an operator. ! binds tightest and
// writes its own parentheses, so only binary nodes need them.
func (n *tsNode) writeOperand(b *strings.Builder) {
	if n.kind == tsOperand || n.kind == tsNot {
		n.write(b)
		return
	}
	b.WriteString("( ")
	n.write(b)
	b.WriteString(" )")
}

// orForm rewrites each AND into (OR of its rewritten positive operands) AND
// its negated operands.
func orForm(n *tsNode) *tsNode {
	switch n.kind {
	case tsOr:
		out := &tsNode{kind: tsOr}
		for _, k := range n.kids {
			out.kids = appendFlat(out.kids, tsOr, orForm(k))
		}
		return out
	case tsAnd:
		var pos, neg []*tsNode
		for _, k := range n.kids {
			if k.kind == tsNot {
				neg = append(neg, k)
			} else {
				pos = appendFlat(pos, tsOr, orForm(k))
			}
		}
		if len(pos) == 0 {
			return n
		}
		var alt *tsNode
		if len(pos) == 1 {
			alt = pos[0]
		} else {
			alt = &tsNode{kind: tsOr, kids: pos}
		}
		if len(neg) == 0 {
			return alt
		}
		return &tsNode{kind: tsAnd, kids: append([]*tsNode{alt}, neg...)}
	default:
		return n
	}
}

// appendFlat appends n to kids, splicing in n's own kids when n is of kind.
func appendFlat(kids []*tsNode, kind tsKind, n *tsNode) []*tsNode {
	if n.kind == kind {
		return append(kids, n.kids...)
	}
	return append(kids, n)
}

// tsParser parses tsquery text with Postgres' precedence: ! binds tightest,
// then <-> and <N>, then &, then |.
type tsParser struct {
	src string
	pos int
}

func (p *tsParser) parse() (*tsNode, error) {
	p.skipSpace()
	if p.pos == len(p.src) {
		return nil, nil
	}
	n, err := p.parseOr()
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.pos != len(p.src) {
		return nil, fmt.Errorf("unexpected %q at %d", p.src[p.pos:], p.pos)
	}
	return n, nil
}

func (p *tsParser) parseOr() (*tsNode, error) {
	return p.parseList(tsOr, '|', p.parseAnd)
}

func (p *tsParser) parseAnd() (*tsNode, error) {
	return p.parseList(tsAnd, '&', p.parsePhrase)
}

func (p *tsParser) parseList(kind tsKind, op byte, next func() (*tsNode, error)) (*tsNode, error) {
	first, err := next()
	if err != nil {
		return nil, err
	}
	kids := []*tsNode{first}
	for {
		p.skipSpace()
		if p.pos == len(p.src) || p.src[p.pos] != op {
			break
		}
		p.pos++
		n, err := next()
		if err != nil {
			return nil, err
		}
		kids = appendFlat(kids, kind, n)
	}
	if len(kids) == 1 {
		return first, nil
	}
	return &tsNode{kind: kind, kids: kids}, nil
}

// parsePhrase parses a left-associative chain of phrase operators.
func (p *tsParser) parsePhrase() (*tsNode, error) {
	left, err := p.parseUnary()
	if err != nil {
		return nil, err
	}
	for {
		p.skipSpace()
		if p.pos == len(p.src) || p.src[p.pos] != '<' {
			return left, nil
		}
		end := strings.IndexByte(p.src[p.pos:], '>')
		if end < 0 {
			return nil, fmt.Errorf("unterminated phrase operator at %d", p.pos)
		}
		op := p.src[p.pos : p.pos+end+1]
		if !validPhraseOp(op) {
			return nil, fmt.Errorf("bad phrase operator %q", op)
		}
		p.pos += end + 1
		right, err := p.parseUnary()
		if err != nil {
			return nil, err
		}
		left = &tsNode{kind: tsPhrase, text: op, kids: []*tsNode{left, right}}
	}
}

func validPhraseOp(op string) bool {
	inner := op[1 : len(op)-1]
	if inner == "-" {
		return true
	}
	if inner == "" {
		return false
	}
	for i := 0; i < len(inner); i++ {
		if inner[i] < '0' || inner[i] > '9' {
			return false
		}
	}
	return true
}

func (p *tsParser) parseUnary() (*tsNode, error) {
	p.skipSpace()
	if p.pos == len(p.src) {
		return nil, fmt.Errorf("operand expected at end")
	}
	switch p.src[p.pos] {
	case '!':
		p.pos++
		n, err := p.parseUnary()
		if err != nil {
			return nil, err
		}
		return &tsNode{kind: tsNot, kids: []*tsNode{n}}, nil
	case '(':
		p.pos++
		n, err := p.parseOr()
		if err != nil {
			return nil, err
		}
		p.skipSpace()
		if p.pos == len(p.src) || p.src[p.pos] != ')' {
			return nil, fmt.Errorf("missing ) at %d", p.pos)
		}
		p.pos++
		return n, nil
	case '\'':
		return p.parseOperand()
	default:
		return nil, fmt.Errorf("unexpected %q at %d", p.src[p.pos], p.pos)
	}
}

// parseOperand reads a quoted lexeme (a doubled quote or a backslash
// escapes a character)
// and its optional :* / weight suffix, keeping the text verbatim.
func (p *tsParser) parseOperand() (*tsNode, error) {
	start := p.pos
	p.pos++ // opening quote
	for {
		if p.pos >= len(p.src) {
			return nil, fmt.Errorf("unterminated operand at %d", start)
		}
		c := p.src[p.pos]
		p.pos++
		if c == '\\' {
			p.pos++
			continue
		}
		if c == '\'' {
			if p.pos < len(p.src) && p.src[p.pos] == '\'' {
				p.pos++
				continue
			}
			break
		}
	}
	if p.pos < len(p.src) && p.src[p.pos] == ':' {
		p.pos++
		for p.pos < len(p.src) && strings.IndexByte("*ABCDabcd", p.src[p.pos]) >= 0 {
			p.pos++
		}
	}
	return &tsNode{kind: tsOperand, text: p.src[start:p.pos]}, nil
}

func (p *tsParser) skipSpace() {
	for p.pos < len(p.src) && (p.src[p.pos] == ' ' || p.src[p.pos] == '\t' || p.src[p.pos] == '\n') {
		p.pos++
	}
}
