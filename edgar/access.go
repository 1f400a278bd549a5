package edgar

import (
	"errors"
	"time"
)

// AccessOutcome says how a request for a URL was answered.
type AccessOutcome string

// Outcomes of one Get.
const (
	AccessDownloaded  AccessOutcome = "downloaded"   // the source sent the body (200)
	AccessNotModified AccessOutcome = "not_modified" // the source confirmed the cached copy (304)
	AccessCached      AccessOutcome = "cached"       // the cache answered without a request
	AccessFailed      AccessOutcome = "failed"       // see Error
)

// Access is what one Get did, as a fetch's audit trail records it.
type Access struct {
	URL      string        `json:"url"`
	Time     time.Time     `json:"time"` // when the Get began
	Outcome  AccessOutcome `json:"outcome"`
	Attempts int           `json:"attempts,omitempty"` // requests sent, retries included; 0 when the cache answered
	Bytes    int64         `json:"bytes,omitempty"`    // the body's size as cached
	SHA256   string        `json:"sha256,omitempty"`   // the body's hash, as its cache entry holds it
	Status   int           `json:"status,omitempty"`   // the last status of a failed request, when one came
	Error    string        `json:"error,omitempty"`
}

func newAccess(url string, start time.Time, res *Result, attempts int, err error) Access {
	a := Access{URL: url, Time: start.UTC(), Attempts: attempts}
	switch {
	case err != nil:
		a.Outcome, a.Error = AccessFailed, err.Error()
		var se *StatusError
		if errors.As(err, &se) {
			a.Status = se.StatusCode
		}
		return a
	case res.NotModified:
		a.Outcome = AccessNotModified
	case res.FromCache:
		a.Outcome = AccessCached
	default:
		a.Outcome = AccessDownloaded
	}
	a.Bytes, a.SHA256 = res.Size, res.SHA256
	return a
}
