package pgstore

import (
	"context"
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
