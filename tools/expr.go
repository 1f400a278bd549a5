package tools

import (
	"errors"
	"fmt"
	"strings"

	"github.com/shopspring/decimal"
)

// DivisionPlaces is the number of decimal places a division is rounded to
// (half away from zero), in calculate and in Evaluate.
const DivisionPlaces = 10

// maxDepth bounds the nesting of parentheses and unary minus, so that no
// expression can exhaust the stack.
const maxDepth = 64

// Evaluate computes an arithmetic expression over decimal values exactly:
// names ([a-z_][a-z0-9_]*) bound in vars, decimal literals ("12", "0.5"),
// the binary operators + - * / with the usual precedence (left to right
// within one), unary minus and parentheses. Each division is rounded to
// DivisionPlaces places. It is the evaluator calculate runs, exported so
// that a validator can recompute a calculation from the same inputs.
// Malformed input, an unbound name and a division by zero (ErrDivisionByZero)
// are errors; Evaluate never panics.
func Evaluate(expr string, vars map[string]decimal.Decimal) (decimal.Decimal, error) {
	n, err := parseExpr(expr)
	if err != nil {
		return decimal.Decimal{}, err
	}
	return n.eval(vars)
}

// exprKind is the kind of an expression node.
type exprKind int

const (
	exprNum exprKind = iota
	exprName
	exprNeg
	exprAdd
	exprSub
	exprMul
	exprDiv
)

// exprNode is a node of a parsed expression.
type exprNode struct {
	kind exprKind
	num  decimal.Decimal // exprNum
	name string          // exprName
	l, r *exprNode       // operands; exprNeg uses l
}

func (n *exprNode) eval(vars map[string]decimal.Decimal) (decimal.Decimal, error) {
	switch n.kind {
	case exprNum:
		return n.num, nil
	case exprName:
		v, ok := vars[n.name]
		if !ok {
			return decimal.Decimal{}, fmt.Errorf("expression: %q has no value", n.name)
		}
		return v, nil
	case exprNeg:
		v, err := n.l.eval(vars)
		if err != nil {
			return decimal.Decimal{}, err
		}
		return v.Neg(), nil
	}
	a, err := n.l.eval(vars)
	if err != nil {
		return decimal.Decimal{}, err
	}
	b, err := n.r.eval(vars)
	if err != nil {
		return decimal.Decimal{}, err
	}
	switch n.kind {
	case exprAdd:
		return a.Add(b), nil
	case exprSub:
		return a.Sub(b), nil
	case exprMul:
		return a.Mul(b), nil
	default: // exprDiv
		if b.IsZero() {
			return decimal.Decimal{}, fmt.Errorf("expression: %w", ErrDivisionByZero)
		}
		return a.DivRound(b, DivisionPlaces), nil
	}
}

// names returns the distinct names of the expression in order of first use.
func (n *exprNode) names() []string {
	var out []string
	seen := map[string]bool{}
	var walk func(*exprNode)
	walk = func(n *exprNode) {
		if n == nil {
			return
		}
		if n.kind == exprName && !seen[n.name] {
			seen[n.name] = true
			out = append(out, n.name)
		}
		walk(n.l)
		walk(n.r)
	}
	walk(n)
	return out
}

// tokKind is the kind of a token.
type tokKind int

const (
	tokEOF tokKind = iota
	tokNum
	tokName
	tokOp // + - * / ( )
)

// token is one lexeme and its byte offset in the expression.
type token struct {
	kind tokKind
	text string
	pos  int
}

func (t token) String() string {
	if t.kind == tokEOF {
		return "end of expression"
	}
	return fmt.Sprintf("%q at %d", t.text, t.pos)
}

// tokenize splits an expression into tokens, ending with tokEOF.
func tokenize(s string) ([]token, error) {
	var toks []token
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case strings.IndexByte("+-*/()", c) >= 0:
			toks = append(toks, token{tokOp, s[i : i+1], i})
			i++
		case isDigit(c):
			j := i
			for j < len(s) && isDigit(s[j]) {
				j++
			}
			if j < len(s) && s[j] == '.' {
				j++
				if j == len(s) || !isDigit(s[j]) {
					return nil, fmt.Errorf("expression: number %q at %d: want digits after the point", s[i:j], i)
				}
				for j < len(s) && isDigit(s[j]) {
					j++
				}
			}
			toks = append(toks, token{tokNum, s[i:j], i})
			i = j
		case isNameStart(c):
			j := i + 1
			for j < len(s) && (isNameStart(s[j]) || isDigit(s[j])) {
				j++
			}
			toks = append(toks, token{tokName, s[i:j], i})
			i = j
		case c >= 'A' && c <= 'Z':
			return nil, fmt.Errorf("expression: %q at %d: names are lower-case letters, digits and _", string(c), i)
		default:
			r := []rune(s[i:])[0]
			return nil, fmt.Errorf("expression: unexpected %q at %d: want names, numbers, + - * / and parentheses", r, i)
		}
	}
	return append(toks, token{kind: tokEOF, pos: len(s)}), nil
}

func isDigit(c byte) bool     { return c >= '0' && c <= '9' }
func isNameStart(c byte) bool { return c >= 'a' && c <= 'z' || c == '_' }

// validName reports whether s is a name an expression may use.
func validName(s string) bool {
	if s == "" || !isNameStart(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isNameStart(s[i]) && !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// parser is a recursive-descent parser over a token list:
//
//	expr    = term { ("+" | "-") term }
//	term    = unary { ("*" | "/") unary }
//	unary   = "-" unary | primary
//	primary = number | name | "(" expr ")"
type parser struct {
	toks  []token
	i     int
	depth int
}

var errEmptyExpr = errors.New("expression: empty")

func parseExpr(s string) (*exprNode, error) {
	toks, err := tokenize(s)
	if err != nil {
		return nil, err
	}
	if len(toks) == 1 {
		return nil, errEmptyExpr
	}
	p := &parser{toks: toks}
	n, err := p.expr()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tokEOF {
		return nil, fmt.Errorf("expression: unexpected %v: want an operator", t)
	}
	return n, nil
}

func (p *parser) peek() token { return p.toks[p.i] }

func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tokEOF {
		p.i++
	}
	return t
}

func (p *parser) isOp(ops string) bool {
	t := p.peek()
	return t.kind == tokOp && strings.Contains(ops, t.text)
}

func (p *parser) expr() (*exprNode, error) {
	l, err := p.term()
	if err != nil {
		return nil, err
	}
	for p.isOp("+-") {
		op := p.next()
		r, err := p.term()
		if err != nil {
			return nil, err
		}
		k := exprAdd
		if op.text == "-" {
			k = exprSub
		}
		l = &exprNode{kind: k, l: l, r: r}
	}
	return l, nil
}

func (p *parser) term() (*exprNode, error) {
	l, err := p.unary()
	if err != nil {
		return nil, err
	}
	for p.isOp("*/") {
		op := p.next()
		r, err := p.unary()
		if err != nil {
			return nil, err
		}
		k := exprMul
		if op.text == "/" {
			k = exprDiv
		}
		l = &exprNode{kind: k, l: l, r: r}
	}
	return l, nil
}

func (p *parser) unary() (*exprNode, error) {
	if p.depth++; p.depth > maxDepth {
		return nil, fmt.Errorf("expression: nested more than %d deep", maxDepth)
	}
	defer func() { p.depth-- }()
	if p.isOp("-") {
		p.next()
		n, err := p.unary()
		if err != nil {
			return nil, err
		}
		return &exprNode{kind: exprNeg, l: n}, nil
	}
	return p.primary()
}

func (p *parser) primary() (*exprNode, error) {
	t := p.next()
	switch t.kind {
	case tokNum:
		d, err := decimal.NewFromString(t.text)
		if err != nil {
			return nil, fmt.Errorf("expression: number %v: %v", t, err)
		}
		return &exprNode{kind: exprNum, num: d}, nil
	case tokName:
		return &exprNode{kind: exprName, name: t.text}, nil
	case tokOp:
		if t.text == "(" {
			n, err := p.expr()
			if err != nil {
				return nil, err
			}
			if c := p.next(); c.kind != tokOp || c.text != ")" {
				return nil, fmt.Errorf("expression: unexpected %v: want \")\" closing \"(\" at %d", c, t.pos)
			}
			return n, nil
		}
	}
	return nil, fmt.Errorf("expression: unexpected %v: want a number, a name or \"(\"", t)
}

// substitute returns expr with every name replaced by its value, the
// rest as written: "a / b" becomes "180683000000 / 391035000000".
// Negative values are parenthesised so the text still reads right.
func substitute(expr string, vars map[string]decimal.Decimal) string {
	toks, err := tokenize(expr)
	if err != nil {
		return expr
	}
	var b strings.Builder
	last := 0
	for _, t := range toks {
		if t.kind != tokName {
			continue
		}
		v, ok := vars[t.text]
		if !ok {
			continue
		}
		b.WriteString(expr[last:t.pos])
		if v.IsNegative() {
			b.WriteString("(" + v.String() + ")")
		} else {
			b.WriteString(v.String())
		}
		last = t.pos + len(t.text)
	}
	b.WriteString(expr[last:])
	return b.String()
}
