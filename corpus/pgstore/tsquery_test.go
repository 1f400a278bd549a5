package pgstore

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ledgerline/research/internal/pgtest"
)

func TestOrQuery(t *testing.T) {
	tests := []struct{ in, want string }{
		{``, ``},
		{`'gross'`, `'gross'`},
		{`'gross' & 'margin'`, `'gross' | 'margin'`},
		{`'gross' & 'margin' & !'tariff' & !'inventori'`, `( 'gross' | 'margin' ) & !'tariff' & !'inventori'`},
		{`'data' <-> 'center' & 'revenu'`, `( 'data' <-> 'center' ) | 'revenu'`},
		{`'gross' <2> 'margin'`, `'gross' <2> 'margin'`},
		{`'appl' | 'gross' <-> 'margin' & !( 'data' <-> 'center' )`, `'appl' | ( ( 'gross' <-> 'margin' ) & !( 'data' <-> 'center' ) )`},
		{`'b' | 'c' & 'd'`, `'b' | 'c' | 'd'`},
		{`!( 'x' <-> 'y' ) & 'z'`, `'z' & !( 'x' <-> 'y' )`},
		{`!'b' & 'c'`, `'c' & !'b'`},
		{`!'gross'`, `!'gross'`},
		{`'o''brien' & 'a\\b'`, `'o''brien' | 'a\\b'`},
		{`'pre':* & 'fix':AB`, `'pre':* | 'fix':AB`},
		{`( 'a' | 'b' ) & ( 'c' | 'd' )`, `'a' | 'b' | 'c' | 'd'`},
		{`'a' & ( 'b' & !'c' )`, `( 'a' | 'b' ) & !'c'`}, // nested ANDs are one AND
	}
	for _, tt := range tests {
		got, err := orQuery(tt.in)
		if err != nil {
			t.Errorf("orQuery(%q): %v", tt.in, err)
			continue
		}
		if got != tt.want {
			t.Errorf("orQuery(%q)\n got %s\nwant %s", tt.in, got, tt.want)
		}
	}
}

func TestOrQueryRejectsMalformed(t *testing.T) {
	for _, in := range []string{`'a`, `'a' &`, `( 'a'`, `'a' )`, `'a' <x> 'b'`, `'a' <-`, `a`, `!`, `'a' 'b'`} {
		if got, err := orQuery(in); err == nil {
			t.Errorf("orQuery(%q) = %q, want an error", in, got)
		}
	}
}

// operands lists the operand texts of a parsed query.
func operands(n *tsNode) []string {
	if n == nil {
		return nil
	}
	if n.kind == tsOperand {
		return []string{n.text}
	}
	var out []string
	for _, k := range n.kids {
		out = append(out, operands(k)...)
	}
	return out
}

func FuzzOrQuery(f *testing.F) {
	for _, s := range []string{
		`'gross' & 'margin' & !'tariff'`, `'appl' | 'gross' <-> 'margin' & !( 'data' <-> 'center' )`,
		`'o''brien' & 'a\\b'`, `'pre':* & ( 'a' | !'b' ) <3> 'c'`, `!!'a'`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		p := &tsParser{src: in}
		n, err := p.parse()
		if err != nil {
			return
		}
		out, err := orQuery(in)
		if err != nil {
			t.Fatalf("orQuery(%q) fails where parse succeeds: %v", in, err)
		}
		// The output parses, keeps the operands, and is a fixed point.
		p2 := &tsParser{src: out}
		n2, err := p2.parse()
		if err != nil {
			t.Fatalf("orQuery(%q) = %q, which does not parse: %v", in, out, err)
		}
		a, b := operands(n), operands(n2)
		slices.Sort(a)
		slices.Sort(b)
		if !slices.Equal(a, b) {
			t.Fatalf("orQuery(%q) = %q changed the operands", in, out)
		}
		again, err := orQuery(out)
		if err != nil || again != out {
			t.Fatalf("orQuery(orQuery(%q)) = %q, %v; want %q", in, again, err, out)
		}
	})
}

// TestOrQueryInPostgres checks the OR reading against Postgres itself:
// Postgres accepts it, it matches every text the AND reading matches, and
// it never matches a text holding a negated word.
func TestOrQueryInPostgres(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.Pool(t)
	queries := []string{
		"gross margin -tariff -inventory", `"data center" revenue`, "apple or \"gross margin\" -\"data center\"",
		"a or -b gross", `"the gross of margin" pressure`, "it's O'Brien's margin", `foo:* bar & baz | (x) !y`,
		"-\"x y\" z w", `back\slash 'quote' margin`, "margin or revenue or cost", "the", "-gross",
	}
	texts := []string{
		"Gross margin decreased on tariffs.", "Gross profit rose.", "Operating margin held at the data center.",
		"Data center revenue grew.", "O'Brien's margin pressure on the gross of margin.", "x y z", "z w",
		"foo bar baz x", "foo bar baz x y", "back\\slash quote margin", "Apple revenue and cost",
	}
	for _, q := range queries {
		var and string
		if err := pool.QueryRow(ctx, `SELECT websearch_to_tsquery('english', $1)::text`, q).Scan(&and); err != nil {
			t.Fatal(err)
		}
		or, err := orQuery(and)
		if err != nil {
			t.Fatalf("%q: orQuery(%q): %v", q, and, err)
		}
		if or == "" {
			if strings.TrimSpace(and) != "" {
				t.Errorf("%q: empty OR reading of %q", q, and)
			}
			continue
		}
		for _, text := range texts {
			var matchAnd, matchOr bool
			err := pool.QueryRow(ctx, `SELECT to_tsvector('english', $1) @@ $2::tsquery, to_tsvector('english', $1) @@ $3::tsquery`,
				text, and, or).Scan(&matchAnd, &matchOr)
			if err != nil {
				t.Fatalf("%q: OR reading %q: %v", q, or, err)
			}
			if matchAnd && !matchOr {
				t.Errorf("%q: %q matches the AND reading %q but not the OR reading %q", q, text, and, or)
			}
		}
		// A negated word (top level) still excludes in the OR reading.
		if strings.Contains(and, " & !'tariff'") {
			var m bool
			if err := pool.QueryRow(ctx, `SELECT to_tsvector('english', 'gross tariff') @@ $1::tsquery`, or).Scan(&m); err != nil {
				t.Fatal(err)
			}
			if m {
				t.Errorf("%q: OR reading %q matches a text with the negated word", q, or)
			}
		}
	}
}

func TestLadder(t *testing.T) {
	type st = stage
	abc := `( 'a' & 'b' ) | ( 'a' & 'c' ) | ( 'b' & 'c' )`
	tests := []struct {
		in   string
		want ladder
	}{
		{`'gross'`, ladder{first: st{`'gross'`, `'gross'`}, or: st{`'gross'`, `'gross'`}}},
		{`'gross' & 'margin'`, ladder{first: st{`'gross' & 'margin'`, `'gross' & 'margin'`}, or: st{`'gross' | 'margin'`, `'gross' | 'margin'`}}},
		{`'a' & 'b' & 'c'`, ladder{
			first:  st{`'a' & 'b' & 'c'`, `'a' & 'b' & 'c'`},
			levels: []st{{abc, `'a' | 'b' | 'c'`}},
			or:     st{`'a' | 'b' | 'c'`, `'a' | 'b' | 'c'`},
		}},
		{`'a' & 'b' & 'c' & 'd' & !'x'`, ladder{
			first: st{`'a' & 'b' & 'c' & 'd' & !'x'`, `'a' & 'b' & 'c' & 'd' & !'x'`},
			levels: []st{
				{`( ( 'a' & 'b' & 'c' ) | ( 'a' & 'b' & 'd' ) | ( 'a' & 'c' & 'd' ) | ( 'b' & 'c' & 'd' ) ) & !'x'`, `( 'a' | 'b' | 'c' | 'd' ) & !'x'`},
				{`( ( 'a' & 'b' ) | ( 'a' & 'c' ) | ( 'a' & 'd' ) | ( 'b' & 'c' ) | ( 'b' & 'd' ) | ( 'c' & 'd' ) ) & !'x'`, `( 'a' | 'b' | 'c' | 'd' ) & !'x'`},
			},
			or: st{`( 'a' | 'b' | 'c' | 'd' ) & !'x'`, `( 'a' | 'b' | 'c' | 'd' ) & !'x'`},
		}},
		{`'data' <-> 'center' & 'revenu' & 'growth'`, ladder{
			first:  st{`'data' <-> 'center' & 'revenu' & 'growth'`, `'data' <-> 'center' & 'revenu' & 'growth'`},
			levels: []st{{`( ( 'data' <-> 'center' ) & 'revenu' ) | ( ( 'data' <-> 'center' ) & 'growth' ) | ( 'revenu' & 'growth' )`, `( 'data' <-> 'center' ) | 'revenu' | 'growth'`}},
			or:     st{`( 'data' <-> 'center' ) | 'revenu' | 'growth'`, `( 'data' <-> 'center' ) | 'revenu' | 'growth'`},
		}},
		{`'a' | 'b' | 'c'`, ladder{ // an explicit OR: all, then two of three, then any
			first:  st{`'a' | 'b' | 'c'`, `'a' | 'b' | 'c'`},
			levels: []st{{`'a' & 'b' & 'c'`, `'a' | 'b' | 'c'`}, {abc, `'a' | 'b' | 'c'`}},
			or:     st{`'a' | 'b' | 'c'`, `'a' | 'b' | 'c'`},
		}},
		{`'a' & 'b' | 'c'`, ladder{ // "a b or c"
			first:  st{`'a' & 'b' | 'c'`, `'a' & 'b' | 'c'`},
			levels: []st{{`'a' & 'b' & 'c'`, `'a' & 'b' | 'c'`}},
			or:     st{`'a' & 'b' | 'c'`, `'a' & 'b' | 'c'`},
		}},
	}
	for _, tt := range tests {
		got, ok, err := newLadder(tt.in)
		if err != nil || !ok {
			t.Errorf("newLadder(%q): %v, %v", tt.in, ok, err)
			continue
		}
		if got.first != tt.want.first || got.or != tt.want.or || !slices.Equal(got.levels, tt.want.levels) {
			t.Errorf("newLadder(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
	if _, ok, err := newLadder(``); ok || err != nil {
		t.Errorf("newLadder of nothing: %v, %v", ok, err)
	}
	// A hundred words: no level, and no overflow on the way.
	words := make([]string, 100)
	for i := range words {
		words[i] = fmt.Sprintf("'w%d'", i)
	}
	if got, _, err := newLadder(strings.Join(words, " & ")); err != nil || len(got.levels) != 0 {
		t.Errorf("ladder of a hundred words: %d levels, %v", len(got.levels), err)
	}
	// Eight words: the levels of at most 64 operands (7 of 8: 56; 2 of 8: 56).
	got, _, err := newLadder(`'a' & 'b' & 'c' & 'd' & 'e' & 'f' & 'g' & 'h'`)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.levels) != 2 || strings.Count(got.levels[0].match, "'")/2 != 56 || strings.Count(got.levels[1].match, "'")/2 != 56 {
		t.Errorf("ladder of eight words = %q", got)
	}
}

// TestLadderInPostgres checks the ladder's levels against Postgres: level
// m matches exactly the texts holding at least m of the query's positive
// operands and none of its negated ones.
func TestLadderInPostgres(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.Pool(t)
	words := []string{"alpha", "bravo", "delta", "kilo", "lima"}
	var texts []string
	for mask := 1; mask < 1<<len(words); mask++ {
		var ws []string
		for i, w := range words {
			if mask&(1<<i) != 0 {
				ws = append(ws, w)
			}
		}
		texts = append(texts, strings.Join(ws, " "), strings.Join(ws, " ")+" zulu")
	}
	for _, q := range []string{"alpha bravo delta kilo lima", "alpha bravo delta -zulu", `"alpha bravo" delta kilo`} {
		var and string
		if err := pool.QueryRow(ctx, `SELECT websearch_to_tsquery('english', $1)::text`, q).Scan(&and); err != nil {
			t.Fatal(err)
		}
		l, _, err := newLadder(and)
		if err != nil {
			t.Fatal(err)
		}
		var levels []string // down to the OR reading, level 1
		for _, st := range append(l.levels, l.or) {
			levels = append(levels, st.match)
		}
		var pos []string // the positive operands, as text
		for _, f := range strings.Fields(strings.ReplaceAll(q, `"`, "")) {
			if !strings.HasPrefix(f, "-") {
				pos = append(pos, f)
			}
		}
		phrase := strings.HasPrefix(q, `"`)
		n := len(pos)
		if phrase {
			n-- // "alpha bravo" is one operand
		}
		if len(levels) != n-1 {
			t.Fatalf("%q: %d levels %q, want %d", q, len(levels), levels, n-1)
		}
		for li, level := range levels {
			m := n - 1 - li
			for _, text := range texts {
				var match bool
				if err := pool.QueryRow(ctx, `SELECT to_tsvector('english', $1) @@ $2::tsquery`, text, level).Scan(&match); err != nil {
					t.Fatalf("%q level %q: %v", q, level, err)
				}
				held := 0
				fields := strings.Fields(text)
				if phrase {
					if strings.Contains(text, "alpha bravo") {
						held++
					}
					pos = pos[2:]
				}
				for _, w := range pos {
					if slices.Contains(fields, w) {
						held++
					}
				}
				if phrase {
					pos = append([]string{"alpha", "bravo"}, pos...)
				}
				want := held >= m && !(strings.Contains(q, "-zulu") && slices.Contains(fields, "zulu"))
				if match != want {
					t.Errorf("%q level %d (%s) on %q: match %v, want %v", q, m, level, text, match, want)
				}
			}
		}
	}
}
