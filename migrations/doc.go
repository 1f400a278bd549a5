// Package migrations holds the SQL schema as numbered files embedded in the
// binary (sql/0001_corpus.sql, ...) and applies them in order.
//
// Each file runs in its own transaction together with its row in
// schema_migrations, under an advisory lock, so Apply is safe to run twice and
// from several processes at once. Objects are created unqualified, in the
// first schema of the connection's search_path; the vector extension is
// created in public, so search_path must include public.
package migrations
