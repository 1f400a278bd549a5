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
