package tools

import (
	"container/list"
	"strings"
	"sync"

	"github.com/ledgerline/research/corpus"
)

// DefaultTextCacheBytes bounds a TextCache made with a size of 0: room for
// a few hundred filings' text.
const DefaultTextCacheBytes = 256 << 20

// TextCache keeps documents' text, with the page index and sections that
// evidence needs of it, across tool calls and runs, so that a lookup does
// not read a filing's whole text from the store and split it into pages
// and sections again on every call. A document's id is the hash of its
// text, so a kept entry never goes stale. It holds at most its size in
// bytes (about the text's length and its indexes'), dropping the least
// recently used first. It is safe for concurrent use. A cache must serve
// one tenant's store only: an Env's Texts are its Store's.
type TextCache struct {
	mu    sync.Mutex
	max   int64
	size  int64
	order *list.List // of *textEntry, most recently used first
	byID  map[string]*list.Element
}

type textEntry struct {
	id   string
	text *docText
	size int64
}

// NewTextCache returns a cache holding at most maxBytes; 0 means
// DefaultTextCacheBytes.
func NewTextCache(maxBytes int64) *TextCache {
	if maxBytes <= 0 {
		maxBytes = DefaultTextCacheBytes
	}
	return &TextCache{max: maxBytes, order: list.New(), byID: map[string]*list.Element{}}
}

// Len is the number of documents kept; a nil cache keeps none.
func (c *TextCache) Len() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}

func (c *TextCache) get(id string) (*docText, bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byID[id]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(el)
	return el.Value.(*textEntry).text, true
}

// put keeps t under id unless it alone is larger than the cache.
func (c *TextCache) put(id string, t *docText) {
	if c == nil {
		return
	}
	n := t.size()
	if n > c.max {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byID[id]; ok {
		return // another call read it meanwhile: the same text
	}
	c.byID[id] = c.order.PushFront(&textEntry{id: id, text: t, size: n})
	c.size += n
	for c.size > c.max {
		last := c.order.Back()
		e := last.Value.(*textEntry)
		c.order.Remove(last)
		delete(c.byID, e.id)
		c.size -= e.size
	}
}

// newDocText indexes a document's text for evidence.
func newDocText(text string) *docText {
	return &docText{text: text, pages: corpus.NewPageIndex(text), sections: corpus.Sections(text)}
}

// size is about the bytes t holds.
func (t *docText) size() int64 {
	const sectionBytes = 64 // two string headers and two ints, with the names' bytes about as many
	return int64(len(t.text)) + int64(len(t.sections))*sectionBytes + int64(strings.Count(t.text, "\f"))*8
}
