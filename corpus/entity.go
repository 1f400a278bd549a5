package corpus

import (
	"bytes"
	"slices"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
)

// maxMembers bounds the dimension members an Entity keeps.
const maxMembers = 4000

// maxEntityText bounds the text read for one dei element.
const maxEntityText = 512

// readEntity reads what an inline-XBRL filing's cover page tags about its
// issuer: dei:EntityRegistrantName, dei:EntityCentralIndexKey and every
// dei:TradingSymbol, from ix:nonNumeric elements wherever they sit
// (ix:hidden included). It never fails: what it cannot read stays empty.
func readEntity(raw []byte) Entity {
	var e Entity
	z := html.NewTokenizer(bytes.NewReader(raw))
	var field string // the dei element being read; "" when none
	depth := 0       // ix:nonNumeric elements open inside it
	var text strings.Builder
	finish := func() {
		v := strings.Join(strings.Fields(text.String()), " ")
		switch field {
		case "EntityRegistrantName":
			if e.Registrant == "" {
				e.Registrant = v
			}
		case "EntityCentralIndexKey":
			if e.CIK == "" {
				e.CIK = strings.TrimLeft(v, "0")
			}
		case "TradingSymbol":
			if v = strings.ToUpper(v); v != "" && len(v) <= 12 && !slices.Contains(e.Symbols, v) {
				e.Symbols = append(e.Symbols, v)
			}
		}
		field, depth = "", 0
		text.Reset()
	}
	for {
		switch z.Next() {
		case html.ErrorToken:
			slices.Sort(e.Symbols)
			return e
		case html.StartTagToken:
			name, more := z.TagName()
			if !bytes.EqualFold(name, []byte("ix:nonnumeric")) {
				continue
			}
			if field != "" {
				depth++
				continue
			}
			for more {
				var k, v []byte
				k, v, more = z.TagAttr()
				if !bytes.EqualFold(k, []byte("name")) {
					continue
				}
				prefix, local, ok := strings.Cut(string(v), ":")
				if ok && strings.EqualFold(prefix, "dei") {
					switch local {
					case "EntityRegistrantName", "EntityCentralIndexKey", "TradingSymbol":
						field = local
					}
				}
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			if field == "" || !bytes.EqualFold(name, []byte("ix:nonnumeric")) {
				continue
			}
			if depth > 0 {
				depth--
				continue
			}
			finish()
		case html.TextToken:
			if field != "" && text.Len() < maxEntityText {
				text.Write(z.Text())
			}
		}
	}
}

// entityMembers returns the distinct explicit dimension members of facts,
// sorted, at most maxMembers.
func entityMembers(facts []Fact) []string {
	seen := map[string]bool{}
	for _, f := range facts {
		for _, m := range f.Dimensions {
			if m != "" {
				seen[m] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for m := range seen {
		out = append(out, m)
	}
	slices.Sort(out)
	if len(out) > maxMembers {
		out = out[:maxMembers]
	}
	return out
}

// maxLabel bounds a fact's row label, in bytes.
const maxLabel = 200

// rowLabel returns the label of the table row a displayed value sits in:
// the row's first cell when the value is in a later one ("Total net sales"
// of "Total net sales | 391,035 | 383,285"), else "". text is canonical.
func rowLabel(text string, start, end int) string {
	if start < 0 || end > len(text) || start > end {
		return ""
	}
	ls := strings.LastIndexByte(text[:start], '\n') + 1
	cell, _, ok := strings.Cut(text[ls:start], " | ")
	if !ok {
		return ""
	}
	cell = strings.TrimSpace(cell)
	if len(cell) > maxLabel {
		i := maxLabel
		for i > 0 && !utf8.RuneStart(cell[i]) {
			i--
		}
		cell = cell[:i]
	}
	if !hasLetter(cell) {
		return ""
	}
	return cell
}

func hasLetter(s string) bool {
	for _, r := range s {
		if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || r >= 0x80 {
			return true
		}
	}
	return false
}

// labelFacts marks facts read from inline XBRL as such and gives each
// displayed one the row label printed beside it.
func labelFacts(text string, facts []Fact) {
	for i := range facts {
		f := &facts[i]
		if f.Kind == "" {
			f.Kind = FactXBRL
		}
		if f.Label == "" && f.Start >= 0 {
			f.Label = rowLabel(text, f.Start, f.End)
		}
	}
}
