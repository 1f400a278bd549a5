// Package corpus turns SEC filings into searchable evidence: it reads EDGAR
// inline-XBRL HTML, text with page breaks and PDF into one canonical text per
// filing, finds the 10-K/10-Q item sections, cuts overlapping chunks that know
// their section, page and byte span, extracts tagged XBRL facts with their
// source spans, embeds chunks, and answers hybrid (full text + vector)
// searches fused with reciprocal rank fusion.
//
// Offsets (Start, End) are byte offsets into a document's canonical text, so
// doc.Text[c.Start:c.End] is exactly the chunk's text. The canonical text has
// every run of spaces and tabs inside a line collapsed to one space, lines
// trimmed, runs of blank lines collapsed to one, and page breaks kept as form
// feeds ('\f').
//
// Storage sits behind [Store], implemented by a Postgres store (the system of
// record) and an embedded store (no setup), both held to one contract suite.
package corpus
