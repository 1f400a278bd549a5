// Package edgar reads filings and reported facts from SEC EDGAR, politely,
// and hands the filings to the corpus ingester.
//
// The SEC's fair-access rules are enforced here, not left to the caller:
// every request names the user's organisation and email address in its
// User-Agent, one process sends at most 10 requests per second across all
// its workers, 429 and 5xx replies are retried with exponential backoff and
// jitter inside a deadline (honouring Retry-After), and responses are
// accepted gzipped.
//
// Every response is kept in a raw on-disk cache keyed by URL, with its
// validators (ETag, Last-Modified): a re-run revalidates what may change
// (the issuer list, submissions, company facts) with conditional requests
// and reads what cannot (archived filing documents) from the cache without
// asking. A response enters the cache only whole: it is written to a
// temporary file and renamed into place.
//
// Both SEC hosts are configurable, so an enterprise mirror or proxy (or a
// test server) can stand in for them; every path is relative to one of them:
//
//	www.sec.gov   /files/company_tickers.json
//	              /Archives/edgar/data/{cik}/{accession without dashes}/{document}
//	data.sec.gov  /submissions/CIK##########.json (and its older pages)
//	              /api/xbrl/companyfacts/CIK##########.json
//
// Company facts are stored per filing as a document of their own (see
// FactsDocument), so a fact read from them is cited, like any other, to a
// span of a stored document, here the line that names its value and the
// filing that reported it. A fetch reports every request it made and how
// it was answered (Report.Accesses); NewLogRecord and AppendLog keep that
// as the fetch log a user can audit.
package edgar
