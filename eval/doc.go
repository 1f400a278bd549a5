// Package eval measures the engine against sets the team wrote by reading
// the filings. The retrieval set (retrieval.jsonl) holds analyst queries
// with the passages that answer them; RunRetrieval scores full-text, vector
// and hybrid search on it by recall@k and nDCG@k.
package eval
