// Package bench measures the corpus stores: search latency per mode on a
// synthetic corpus of any size (RunScale) or on whatever a store already
// holds (RunSearch), and the recall of Postgres' approximate HNSW vector
// search against exact search computed in Go.
//
// The command `research bench` drives it; docs/benchmarks.md records its
// figures with the commands that produced them.
package bench
