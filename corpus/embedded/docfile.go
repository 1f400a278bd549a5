package embedded

import (
	"bytes"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/shopspring/decimal"

	"github.com/ledgerline/research/corpus"
)

// A document file holds one document with its chunks, embeddings and facts:
//
//	magic "RSRCHDOC" | version uint32 | added int64 (unix ns) | gob(docRecord) | crc32c
//
// integers big-endian, the CRC-32C covering everything before it. The
// header's added time lets Open restore the order documents were added in
// (ties in search results go to the first added) without decoding them.
// The record types below are the format, independent of package corpus's
// types, so that a change there cannot silently change what old files mean.
const (
	fileMagic   = "RSRCHDOC"
	fileVersion = 1
	headerLen   = len(fileMagic) + 4 + 8
	fileExt     = ".doc"
)

var crcTable = crc32.MakeTable(crc32.Castagnoli)

type docRecord struct {
	ID, Ticker, Company, Form string
	FiscalYear                int
	PeriodEnd, Filed          time.Time
	Source, Format            string
	Pages                     int
	Embedder                  string
	Entity                    corpus.Entity
	Text                      string
	Dim                       int
	Chunks                    []chunkRecord
	Vectors                   []byte // little-endian float32s, Dim for each chunk with HasVector, in order
	Facts                     []factRecord
}

type chunkRecord struct {
	ID               string
	Ordinal          int
	Section          string
	Page, Start, End int
	Text             string // only when OwnText: it differs from the document's Text[Start:End]
	OwnText          bool
	HasVector        bool
}

type factRecord struct {
	Concept                string
	Value                  string // decimal
	Unit, Decimals         string
	PeriodStart, PeriodEnd time.Time
	Instant                bool
	Dimensions             map[string]string
	ContextID              string
	Start, End             int
	Kind, Label            string
}

// encodeDocFile returns the file holding a validated document.
func encodeDocFile(added time.Time, doc *corpus.Document, chunks []corpus.Chunk, facts []corpus.Fact, dim int) ([]byte, error) {
	rec := docRecord{
		ID: doc.ID, Ticker: doc.Ticker, Company: doc.Company, Form: doc.Form, FiscalYear: doc.FiscalYear,
		PeriodEnd: doc.PeriodEnd, Filed: doc.Filed, Source: doc.Source, Format: string(doc.Format),
		Pages: doc.Pages, Embedder: doc.Embedder, Entity: doc.Entity, Text: doc.Text, Dim: dim,
		Chunks: make([]chunkRecord, len(chunks)),
		Facts:  make([]factRecord, len(facts)),
	}
	nvec := 0
	for i, c := range chunks {
		own := c.Start < 0 || c.End > len(doc.Text) || c.Start > c.End || doc.Text[c.Start:c.End] != c.Text
		rec.Chunks[i] = chunkRecord{
			ID: c.ID, Ordinal: c.Ordinal, Section: c.Section, Page: c.Page, Start: c.Start, End: c.End,
			OwnText: own, HasVector: c.Embedding != nil,
		}
		if own {
			rec.Chunks[i].Text = c.Text
		}
		if c.Embedding != nil {
			nvec++
		}
	}
	rec.Vectors = make([]byte, 0, 4*dim*nvec)
	for _, c := range chunks {
		for _, x := range c.Embedding {
			rec.Vectors = binary.LittleEndian.AppendUint32(rec.Vectors, math.Float32bits(x))
		}
	}
	for i, f := range facts {
		rec.Facts[i] = factRecord{
			Concept: f.Concept, Value: f.Value.String(), Unit: f.Unit, Decimals: f.Decimals,
			PeriodStart: f.PeriodStart, PeriodEnd: f.PeriodEnd, Instant: f.Instant, Dimensions: f.Dimensions,
			ContextID: f.ContextID, Start: f.Start, End: f.End, Kind: f.Kind, Label: f.Label,
		}
	}

	var buf bytes.Buffer
	buf.Grow(headerLen + len(doc.Text) + len(rec.Vectors) + 64*len(chunks) + 4096)
	buf.WriteString(fileMagic)
	buf.Write(binary.BigEndian.AppendUint32(nil, fileVersion))
	buf.Write(binary.BigEndian.AppendUint64(nil, uint64(added.UnixNano())))
	if err := gob.NewEncoder(&buf).Encode(&rec); err != nil {
		return nil, fmt.Errorf("encode document %s: %w", doc.ID, err)
	}
	buf.Write(binary.BigEndian.AppendUint32(nil, crc32.Checksum(buf.Bytes(), crcTable)))
	return buf.Bytes(), nil
}

// decodeDocFile reads a document file back into the values AddDocument was
// given. Any damage yields an error wrapping ErrCorrupt.
func decodeDocFile(data []byte) (added int64, doc *corpus.Document, chunks []corpus.Chunk, facts []corpus.Fact, err error) {
	added, err = decodeHeader(data)
	if err != nil {
		return 0, nil, nil, nil, err
	}
	body := data[:len(data)-4]
	if sum := binary.BigEndian.Uint32(data[len(data)-4:]); sum != crc32.Checksum(body, crcTable) {
		return 0, nil, nil, nil, fmt.Errorf("%w: checksum mismatch", ErrCorrupt)
	}
	var rec docRecord
	r := bytes.NewReader(body[headerLen:])
	if err := gob.NewDecoder(r).Decode(&rec); err != nil {
		return 0, nil, nil, nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if r.Len() != 0 {
		return 0, nil, nil, nil, fmt.Errorf("%w: %d bytes after the record", ErrCorrupt, r.Len())
	}

	doc = &corpus.Document{
		ID: rec.ID, Ticker: rec.Ticker, Company: rec.Company, Form: rec.Form, FiscalYear: rec.FiscalYear,
		PeriodEnd: rec.PeriodEnd, Filed: rec.Filed, Source: rec.Source, Format: corpus.Format(rec.Format),
		Pages: rec.Pages, Embedder: rec.Embedder, Entity: rec.Entity, Text: rec.Text,
	}
	nvec := 0
	for _, c := range rec.Chunks {
		if c.HasVector {
			nvec++
		}
	}
	if rec.Dim < 0 || len(rec.Vectors) != 4*rec.Dim*nvec {
		return 0, nil, nil, nil, fmt.Errorf("%w: %d vector bytes for %d vectors of %d dimensions", ErrCorrupt, len(rec.Vectors), nvec, rec.Dim)
	}
	floats := make([]float32, rec.Dim*nvec)
	for i := range floats {
		floats[i] = math.Float32frombits(binary.LittleEndian.Uint32(rec.Vectors[4*i:]))
	}
	chunks = make([]corpus.Chunk, len(rec.Chunks))
	for i, c := range rec.Chunks {
		chunks[i] = corpus.Chunk{
			ID: c.ID, DocumentID: rec.ID, Ordinal: c.Ordinal, Section: c.Section, Page: c.Page,
			Start: c.Start, End: c.End, Text: c.Text,
		}
		if !c.OwnText {
			if c.Start < 0 || c.Start > c.End || c.End > len(rec.Text) {
				return 0, nil, nil, nil, fmt.Errorf("%w: chunk %s span [%d,%d) outside the text", ErrCorrupt, c.ID, c.Start, c.End)
			}
			chunks[i].Text = rec.Text[c.Start:c.End]
		}
		if c.HasVector {
			chunks[i].Embedding, floats = floats[:rec.Dim:rec.Dim], floats[rec.Dim:]
		}
	}
	facts = make([]corpus.Fact, len(rec.Facts))
	for i, f := range rec.Facts {
		v, err := decimal.NewFromString(f.Value)
		if err != nil {
			return 0, nil, nil, nil, fmt.Errorf("%w: fact %d value: %v", ErrCorrupt, i, err)
		}
		kind := f.Kind
		if kind == "" { // written before facts had kinds
			kind = corpus.FactXBRL
		}
		facts[i] = corpus.Fact{
			DocumentID: rec.ID, Concept: f.Concept, Value: v, Unit: f.Unit, Decimals: f.Decimals,
			PeriodStart: f.PeriodStart, PeriodEnd: f.PeriodEnd, Instant: f.Instant, Dimensions: f.Dimensions,
			ContextID: f.ContextID, Start: f.Start, End: f.End, Kind: kind, Label: f.Label,
		}
	}
	return added, doc, chunks, facts, nil
}

// decodeHeader checks a document file's header and returns its added time.
func decodeHeader(data []byte) (int64, error) {
	if len(data) < headerLen+4 || string(data[:len(fileMagic)]) != fileMagic {
		return 0, fmt.Errorf("%w: not a document file", ErrCorrupt)
	}
	if v := binary.BigEndian.Uint32(data[len(fileMagic):]); v != fileVersion {
		return 0, fmt.Errorf("%w: unsupported version %d", ErrCorrupt, v)
	}
	return int64(binary.BigEndian.Uint64(data[len(fileMagic)+4:])), nil
}

// readAdded returns the added time in a document file's header.
func readAdded(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	head := make([]byte, headerLen+4)
	if _, err := io.ReadFull(f, head); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return 0, fmt.Errorf("%w: truncated", ErrCorrupt)
		}
		return 0, err
	}
	return decodeHeader(head)
}

// writeFileNoReplace writes data to path atomically and durably: to a
// temporary file in the same directory, synced, then hard-linked to path,
// which fails with fs.ErrExist when path exists, and the directory synced.
// Readers see either no file or the whole file; a crash leaves at most a
// temporary file, which Open removes once it is stale.
func writeFileNoReplace(path string, data []byte) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, tempPrefix+"*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Link(tmp.Name(), path); err != nil {
		return err
	}
	return syncDir(dir)
}

const tempPrefix = ".tmp-"

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
