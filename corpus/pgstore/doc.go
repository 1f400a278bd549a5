// Package pgstore is the Postgres implementation of [corpus.Store], the
// system of record: documents, chunks with a generated tsvector and a
// pgvector embedding, and facts, in the tables of package migrations.
//
// Every query filters on the store's tenant. Full-text search runs
// websearch_to_tsquery against a GIN index; vector search uses an HNSW index
// with pgvector 0.8's iterative index scans, so a selective filter still
// yields k results.
//
// Documents are written one transaction each, their chunks and facts with
// COPY. A bulk load (Store.BeginBulkLoad) into an empty or small table
// builds the HNSW index once after the load, with parallel workers, instead
// of inserting every chunk into it.
package pgstore
