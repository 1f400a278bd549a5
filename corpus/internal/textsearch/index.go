package textsearch

import (
	"math"
	"slices"
)

// BM25 parameters: the usual defaults.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// Index is an in-memory inverted index with positions over texts numbered
// from 0 in the order they are added. It ranks matches with BM25 (k1=1.2,
// b=0.75), taking document frequencies and the average length over every
// text in the index. Postgres ranks with ts_rank (term frequency) instead,
// so the two stores' scores differ, while which texts match, and the shape
// of a result list, are the same.
//
// The zero Index is empty and ready. Add and AddBatch must not run
// concurrently with anything else; Search may run concurrently with other
// calls to Search.
type Index struct {
	analyzer Analyzer
	postings map[string]*postingList
	lengths  []uint32 // lexemes per text
	total    uint64   // sum of lengths
}

// postingList holds the texts a term occurs in, ascending, and its
// positions in each: those of docs[i] are pos[ends[i-1]:ends[i]].
type postingList struct {
	docs []uint32
	ends []uint32
	pos  []uint32
}

func (pl *postingList) positions(i int) []uint32 {
	start := uint32(0)
	if i > 0 {
		start = pl.ends[i-1]
	}
	return pl.pos[start:pl.ends[i]:pl.ends[i]]
}

// Len returns the number of texts added.
func (ix *Index) Len() int { return len(ix.lengths) }

// Add indexes a text and returns its number.
func (ix *Index) Add(text string) int {
	var b Batch
	b.Add(&ix.analyzer, text)
	return ix.AddBatch(&b)
}

// Batch is a run of texts analysed for an Index. Building a batch is most
// of the work of indexing, and may run on any goroutine; [Index.AddBatch]
// then only merges it. The zero Batch is empty and ready.
type Batch struct {
	postings map[string]*postingList // numbered from 0 within the batch
	lengths  []uint32
	scratch  []Lexeme
}

// Add analyses a text with a and appends it to the batch.
func (b *Batch) Add(a *Analyzer, text string) {
	doc := uint32(len(b.lengths))
	b.scratch = a.Lexemes(b.scratch[:0], text)
	b.lengths = append(b.lengths, uint32(len(b.scratch)))
	if b.postings == nil {
		b.postings = make(map[string]*postingList)
	}
	for _, l := range b.scratch {
		pl := b.postings[l.Term]
		if pl == nil {
			pl = &postingList{}
			b.postings[l.Term] = pl
		}
		if n := len(pl.docs); n == 0 || pl.docs[n-1] != doc {
			pl.docs = append(pl.docs, doc)
			pl.ends = append(pl.ends, 0)
		}
		pl.pos = append(pl.pos, uint32(l.Pos))
		pl.ends[len(pl.ends)-1] = uint32(len(pl.pos))
	}
}

// Len returns the number of texts in the batch.
func (b *Batch) Len() int { return len(b.lengths) }

// AddBatch indexes the texts of a batch, which it consumes, and returns the
// number of the first; the others follow in order.
func (ix *Index) AddBatch(b *Batch) int {
	base := uint32(len(ix.lengths))
	for _, n := range b.lengths {
		ix.lengths = append(ix.lengths, n)
		ix.total += uint64(n)
	}
	if ix.postings == nil {
		ix.postings = make(map[string]*postingList, len(b.postings))
	}
	for term, bl := range b.postings {
		pl := ix.postings[term]
		if pl == nil { // adopt the batch's list
			for i := range bl.docs {
				bl.docs[i] += base
			}
			ix.postings[term] = bl
			continue
		}
		offset := uint32(len(pl.pos))
		for i, d := range bl.docs {
			pl.docs = append(pl.docs, d+base)
			pl.ends = append(pl.ends, bl.ends[i]+offset)
		}
		pl.pos = append(pl.pos, bl.pos...)
	}
	*b = Batch{}
	return int(base)
}

// Hit is a text found by Search.
type Hit struct {
	Doc   int     // the text's number
	Score float64 // BM25; higher is better
}

// Search returns up to k texts matching q among those allow accepts (nil
// accepts all), best first. Texts matching the query as written come first.
// When fewer than k do, texts matching its OR reading follow them, best
// first, up to k in all: each AND of the query becomes the OR of its
// positive operands, still ANDed with its negated ones, so "gross margin
// -tariff" reads as (gross OR margin) AND NOT tariff; phrases stay phrases.
// Ties go to the text added first.
//
// A query that requires no word, which could match a text without any of
// its words ("-tariff", "gross or -margin"), finds nothing: Postgres'
// querytree() is T for exactly these queries, and the Postgres store
// refuses them too rather than return arbitrary chunks.
func (ix *Index) Search(q *Query, k int, allow func(doc int) bool) []Hit {
	if q.Empty() || k <= 0 || ix.Len() == 0 || !q.root.needsWord() {
		return nil
	}
	n := len(q.terms)
	lists := make([]*postingList, n)
	for i, t := range q.terms {
		lists[i] = ix.postings[t]
	}
	positive := q.root.positive(nil)
	idf := make([]float64, n)
	for _, t := range positive {
		if lists[t] != nil {
			df := float64(len(lists[t].docs))
			idf[t] = math.Log(1 + (float64(ix.Len())-df+0.5)/(df+0.5))
		}
	}
	avgLen := float64(ix.total) / float64(ix.Len())
	score := func(doc int, pos [][]uint32) float64 {
		norm := bm25K1 * (1 - bm25B + bm25B*float64(ix.lengths[doc])/max(avgLen, 1))
		s := 0.0
		for _, t := range positive {
			if tf := float64(len(pos[t])); tf > 0 {
				s += idf[t] * tf * (bm25K1 + 1) / (tf + norm)
			}
		}
		return s
	}
	orReading := q.root.orForm()

	// Every match holds a positive term: visit the texts in the union of
	// their posting lists, in order, with the positions of every term.
	exact, partial := newTopK(k), newTopK(k)
	exactCount := 0
	pos := make([][]uint32, n)
	cur := make([]int, n)
	for {
		doc := -1
		for _, t := range positive {
			if pl := lists[t]; pl != nil && cur[t] < len(pl.docs) && (doc < 0 || int(pl.docs[cur[t]]) < doc) {
				doc = int(pl.docs[cur[t]])
			}
		}
		if doc < 0 {
			break
		}
		for i, pl := range lists {
			pos[i] = nil
			if pl == nil {
				continue
			}
			for cur[i] < len(pl.docs) && int(pl.docs[cur[i]]) < doc {
				cur[i]++
			}
			if cur[i] < len(pl.docs) && int(pl.docs[cur[i]]) == doc {
				pos[i] = pl.positions(cur[i])
				cur[i]++
			}
		}
		switch {
		case allow != nil && !allow(doc):
		case q.root.match(pos):
			exactCount++
			exact.push(Hit{doc, score(doc, pos)})
		case orReading.match(pos):
			partial.push(Hit{doc, score(doc, pos)})
		}
	}

	hits := exact.sorted()
	if exactCount < k {
		more := partial.sorted()
		hits = append(hits, more[:min(len(more), k-len(hits))]...)
	}
	return hits
}

// topK keeps the k best hits in a min-heap, worst at the root.
type topK struct {
	k    int
	heap []Hit
}

func newTopK(k int) *topK { return &topK{k: k} }

// worse orders hits: lower score, then later text.
func worse(a, b Hit) bool {
	return a.Score < b.Score || a.Score == b.Score && a.Doc > b.Doc
}

func (t *topK) push(h Hit) {
	if len(t.heap) < t.k {
		t.heap = append(t.heap, h)
		for i := len(t.heap) - 1; i > 0; {
			parent := (i - 1) / 2
			if !worse(t.heap[i], t.heap[parent]) {
				break
			}
			t.heap[i], t.heap[parent] = t.heap[parent], t.heap[i]
			i = parent
		}
		return
	}
	if !worse(t.heap[0], h) {
		return
	}
	t.heap[0] = h
	for i := 0; ; {
		least, l, r := i, 2*i+1, 2*i+2
		if l < len(t.heap) && worse(t.heap[l], t.heap[least]) {
			least = l
		}
		if r < len(t.heap) && worse(t.heap[r], t.heap[least]) {
			least = r
		}
		if least == i {
			return
		}
		t.heap[i], t.heap[least] = t.heap[least], t.heap[i]
		i = least
	}
}

// sorted returns the hits best first.
func (t *topK) sorted() []Hit {
	out := slices.Clone(t.heap)
	slices.SortFunc(out, func(a, b Hit) int {
		if worse(a, b) {
			return 1
		}
		if worse(b, a) {
			return -1
		}
		return 0
	})
	return out
}
