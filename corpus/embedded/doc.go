// Package embedded is the corpus.Store that needs no database: everything
// is held in memory and persisted in a local data directory, so that
// `research ingest` and `research search` in separate invocations see the
// same corpus.
//
// # Data directory
//
//	FORMAT               marks the directory and its format version
//	docs/<id>.doc        one file per document: the document, its chunks with
//	                     their embeddings, and its facts
//
// A document file is written once and never changed. It is written to a
// temporary file, synced, then hard-linked to its name (which fails if the
// name exists) and the directory synced; so a crash never leaves a partial
// document, and two processes may share a directory without a lock: a
// document both add is stored once. Each Store sees the documents present
// when it was opened, plus those it adds. A file is a fixed header (magic,
// version, the time the document was added), a gob-encoded record with the
// embeddings as raw little-endian float32s, and a CRC-32C of all of it; Open
// refuses a damaged file, naming it, rather than drop a document silently.
//
// # Search
//
// Full text goes through package textsearch, which follows Postgres'
// english configuration (Snowball stemmer, stop words, websearch_to_tsquery
// syntax) so a query matches the same chunks here as in the Postgres store;
// ranking is BM25 rather than ts_rank, so scores differ. Vector search
// is exact: every admitted chunk's cosine similarity is computed, so a
// filter matching few chunks still yields k results when k exist.
package embedded
