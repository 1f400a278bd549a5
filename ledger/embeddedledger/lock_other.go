//go:build !unix

package embeddedledger

import "os"

// lockFile does nothing where flock is missing: there, one process at a
// time may use a data directory (the in-process mutexes still hold).
func lockFile(f *os.File, exclusive bool) error { return nil }

func unlockFile(f *os.File) error { return nil }
