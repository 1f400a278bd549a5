package ledger_test

import (
	"crypto/sha256"
	"encoding/hex"
)

func sha64(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func sha12(s string) string { return sha64(s)[:12] }
