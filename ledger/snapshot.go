package ledger

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
)

// CorpusSnapshot returns the content hash of the corpus a run could see:
// the hex sha256 of its document ids, sorted and deduplicated, each followed
// by a newline. Document ids are themselves content hashes, so the snapshot
// changes exactly when a document is added or removed. The order of ids
// does not matter; ids is not modified.
func CorpusSnapshot(documentIDs []string) string {
	ids := slices.Compact(slices.Sorted(slices.Values(documentIDs)))
	h := sha256.New()
	for _, id := range ids {
		h.Write([]byte(id))
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil))
}
