// Package textsearch is the embedded store's full-text search: an English
// [Analyzer] (tokenizer, Postgres' english stop words and the Snowball
// English stemmer), a [Parse]r for web-search style queries with the
// semantics of Postgres' websearch_to_tsquery, and an inverted [Index] with
// positions ranked by BM25.
//
// It mirrors Postgres' english text search configuration so that a query
// matches the same chunks in the embedded store as in the Postgres store;
// the tests hold the stemmer and the query parser to tables produced by
// Postgres itself. Scores differ: see [Index].
package textsearch
