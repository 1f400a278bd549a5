package textsearch

import (
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Query is a parsed full-text query. The zero Query, like the parse of a
// query without lexemes, is empty and matches nothing.
type Query struct {
	root  *node    // nil when empty
	terms []string // the distinct lexemes; nodes refer to them by index
}

type nodeKind uint8

const (
	nodePhrase nodeKind = iota // words at fixed offsets; one word is a plain term
	nodeNot
	nodeAnd
	nodeOr
)

type node struct {
	kind  nodeKind
	words []phraseWord // nodePhrase
	kids  []*node      // nodeNot (one), nodeAnd, nodeOr (two or more)
}

// phraseWord is a lexeme of a phrase and its distance from the first.
type phraseWord struct {
	term   int // index into Query.terms
	offset int
}

// Parse reads a query with the semantics of Postgres' websearch_to_tsquery
// under the english configuration, which it follows character by
// character:
//
//   - words are ANDed;
//   - "quoted text" is a phrase: its lexemes must appear in order, at the
//     distances they have in the quote (a stop word inside counts as a word);
//   - -word and -"phrase" exclude;
//   - "or" (any case) between two operands makes alternatives, and binds
//     more loosely than AND: `a b or c` is (a AND b) OR c;
//   - one word that holds several lexemes ("391,035", "forward-looking") is
//     the phrase of them;
//   - the characters ! & | ( ) < : are separators, not operators;
//   - stop words, and operators left without an operand, are dropped.
//
// Parse never fails: any string is a query, possibly an empty one.
func Parse(q string) *Query {
	p := &queryParser{q: &Query{}}
	var ors, ands []*node
	nots := 0
	for _, tok := range lexQuery(q) {
		switch tok.kind {
		case tokNot:
			nots++
		case tokValue:
			n := p.value(tok.text)
			for ; nots > 0; nots-- {
				if n != nil {
					n = &node{kind: nodeNot, kids: []*node{n}}
				}
			}
			if n != nil {
				ands = append(ands, n)
			}
		case tokOr:
			if n := join(nodeAnd, ands); n != nil {
				ors = append(ors, n)
			}
			ands = nil
		}
	}
	if n := join(nodeAnd, ands); n != nil {
		ors = append(ors, n)
	}
	p.q.root = join(nodeOr, ors)
	return p.q
}

// join combines operands with an operator: none gives nil, one itself.
func join(kind nodeKind, kids []*node) *node {
	switch len(kids) {
	case 0:
		return nil
	case 1:
		return kids[0]
	}
	return &node{kind: kind, kids: kids}
}

type queryParser struct {
	q        *Query
	index    map[string]int // term → its index in q.terms
	analyzer Analyzer
	lex      []Lexeme
}

// value turns one operand (a word or a quoted text) into a phrase node, or
// nil when it holds no lexeme.
func (p *queryParser) value(text string) *node {
	p.lex = p.analyzer.Lexemes(p.lex[:0], text)
	if len(p.lex) == 0 {
		return nil
	}
	n := &node{kind: nodePhrase, words: make([]phraseWord, len(p.lex))}
	for i, l := range p.lex {
		n.words[i] = phraseWord{term: p.term(l.Term), offset: l.Pos - p.lex[0].Pos}
	}
	return n
}

func (p *queryParser) term(t string) int {
	if i, ok := p.index[t]; ok {
		return i
	}
	if p.index == nil {
		p.index = make(map[string]int)
	}
	p.index[t] = len(p.q.terms)
	p.q.terms = append(p.q.terms, t)
	return len(p.q.terms) - 1
}

type tokenKind uint8

const (
	tokValue tokenKind = iota
	tokNot
	tokAnd
	tokOr
)

type queryToken struct {
	kind tokenKind
	text string // tokValue
}

// lexQuery splits a query into operands and operators as Postgres'
// gettoken_query_websearch does.
func lexQuery(q string) []queryToken {
	var toks []queryToken
	waitOperand := true
	for i := 0; i < len(q); {
		c := q[i]
		if waitOperand {
			switch {
			case c == '-':
				toks = append(toks, queryToken{kind: tokNot})
				i++
			case c == '"':
				// Everything up to the closing quote (or the end) is one operand.
				i++
				end := strings.IndexByte(q[i:], '"')
				if end < 0 {
					end = len(q) - i
				}
				toks = append(toks, queryToken{kind: tokValue, text: q[i : i+end]})
				i = min(i+end+1, len(q))
				waitOperand = false
			case isQueryOperator(c):
				i++
			case isSpaceAt(q, i):
				i += runeLen(q, i)
			default:
				// A word runs to a space, an operator, a quote or a colon.
				j := i + runeLen(q, i)
				for j < len(q) && !isSpaceAt(q, j) && !isQueryOperator(q[j]) && q[j] != '"' && q[j] != ':' {
					j += runeLen(q, j)
				}
				toks = append(toks, queryToken{kind: tokValue, text: q[i:j]})
				i = j
				waitOperand = false
			}
			continue
		}
		switch {
		case c == '"':
			toks = append(toks, queryToken{kind: tokAnd})
			waitOperand = true
		case isOrOperator(q[i:]):
			toks = append(toks, queryToken{kind: tokOr})
			i += 2
			waitOperand = true
		case isQueryOperator(c):
			i++
		case isSpaceAt(q, i):
			i += runeLen(q, i)
		default:
			toks = append(toks, queryToken{kind: tokAnd})
			waitOperand = true
		}
	}
	return toks
}

// isQueryOperator reports the characters tsquery syntax reserves; a web
// search query ignores them.
func isQueryOperator(c byte) bool {
	switch c {
	case '!', '&', '|', '(', ')', '<':
		return true
	}
	return false
}

// isOrOperator reports whether s opens with the operator "or": the word or
// (any case), not part of a longer word, with an operand somewhere after.
func isOrOperator(s string) bool {
	if len(s) < 3 || !strings.EqualFold(s[:2], "or") {
		return false
	}
	r, size := utf8.DecodeRuneInString(s[2:])
	if r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) {
		return false
	}
	for i := 2 + size; i < len(s); i += runeLen(s, i) {
		if !isSpaceAt(s, i) {
			return true
		}
	}
	return false
}

func runeLen(s string, i int) int {
	if s[i] < utf8.RuneSelf {
		return 1
	}
	_, size := utf8.DecodeRuneInString(s[i:])
	return size
}

func isSpaceAt(s string, i int) bool {
	if c := s[i]; c < utf8.RuneSelf {
		return c == ' ' || '\t' <= c && c <= '\r'
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return unicode.IsSpace(r)
}

// Empty reports whether the query has no lexeme to look for.
func (q *Query) Empty() bool { return q == nil || q.root == nil }

// String returns the query in Postgres' tsquery syntax, as Postgres prints
// it ("'gross' <-> 'margin' & !'tariff'"), or "" for an empty query.
func (q *Query) String() string {
	if q.Empty() {
		return ""
	}
	var b strings.Builder
	q.write(&b, q.root, 0)
	return b.String()
}

// priority is the binding strength of each operator in tsquery syntax.
func priority(n *node) int {
	switch n.kind {
	case nodeNot:
		return 4
	case nodePhrase:
		if len(n.words) == 1 {
			return 5
		}
		return 3
	case nodeAnd:
		return 2
	}
	return 1
}

func (q *Query) write(b *strings.Builder, n *node, parent int) {
	paren := priority(n) < parent
	if paren {
		b.WriteString("( ")
	}
	switch n.kind {
	case nodePhrase:
		for i, w := range n.words {
			if i > 0 {
				if d := w.offset - n.words[i-1].offset; d == 1 {
					b.WriteString(" <-> ")
				} else {
					b.WriteString(" <" + strconv.Itoa(d) + "> ")
				}
			}
			b.WriteString("'" + strings.ReplaceAll(q.terms[w.term], "'", "''") + "'")
		}
	case nodeNot:
		b.WriteByte('!')
		q.write(b, n.kids[0], priority(n))
	default:
		op := " & "
		if n.kind == nodeOr {
			op = " | "
		}
		for i, k := range n.kids {
			if i > 0 {
				b.WriteString(op)
			}
			q.write(b, k, priority(n))
		}
	}
	if paren {
		b.WriteString(" )")
	}
}

// match reports whether a text satisfies n, given the positions of each of
// the query's terms in it (nil when absent).
func (n *node) match(pos [][]uint32) bool {
	switch n.kind {
	case nodePhrase:
		first := pos[n.words[0].term]
		if len(n.words) == 1 {
			return len(first) > 0
		}
	start:
		for _, p := range first {
			for _, w := range n.words[1:] {
				if _, ok := slices.BinarySearch(pos[w.term], p+uint32(w.offset)); !ok {
					continue start
				}
			}
			return true
		}
		return false
	case nodeNot:
		return !n.kids[0].match(pos)
	case nodeAnd:
		for _, k := range n.kids {
			if !k.match(pos) {
				return false
			}
		}
		return true
	default:
		for _, k := range n.kids {
			if k.match(pos) {
				return true
			}
		}
		return false
	}
}

// positive appends the terms n looks for outside any negation.
func (n *node) positive(dst []int) []int {
	switch n.kind {
	case nodePhrase:
		for _, w := range n.words {
			if !slices.Contains(dst, w.term) {
				dst = append(dst, w.term)
			}
		}
	case nodeAnd, nodeOr:
		for _, k := range n.kids {
			dst = k.positive(dst)
		}
	}
	return dst
}

// needsWord reports whether every text n matches holds one of n's
// positive terms: false when n could match a text with none of its words.
// It is false exactly when Postgres' querytree() of the query is T.
func (n *node) needsWord() bool {
	switch n.kind {
	case nodePhrase:
		return true
	case nodeNot:
		return false
	case nodeAnd:
		return slices.ContainsFunc(n.kids, (*node).needsWord)
	default:
		for _, k := range n.kids {
			if !k.needsWord() {
				return false
			}
		}
		return true
	}
}

// orForm returns the OR reading of n: each AND becomes the OR of its
// positive operands (themselves read so), ANDed with its negated operands.
// Phrases and ORs stay as they are. It matches every text n matches.
func (n *node) orForm() *node {
	switch n.kind {
	case nodeOr:
		var kids []*node
		for _, k := range n.kids {
			kids = appendFlat(kids, nodeOr, k.orForm())
		}
		return join(nodeOr, kids)
	case nodeAnd:
		var pos, neg []*node
		for _, k := range n.kids {
			if k.kind == nodeNot {
				neg = append(neg, k)
			} else {
				pos = appendFlat(pos, nodeOr, k.orForm())
			}
		}
		if len(pos) == 0 {
			return n
		}
		return join(nodeAnd, append([]*node{join(nodeOr, pos)}, neg...))
	}
	return n
}

// appendFlat appends n to kids, splicing in n's own kids when it is of kind.
func appendFlat(kids []*node, kind nodeKind, n *node) []*node {
	if n.kind == kind {
		return append(kids, n.kids...)
	}
	return append(kids, n)
}
