package corpus

import "strings"

// Company facts: the XBRL values an issuer reported, as the SEC's company
// facts API lists them per filing (package edgar reads them). A filing's
// values are stored as a document of their own, whose text lists them one
// a line naming the filing's accession number and form, and whose facts
// point at the values in that text: a fact from company facts is cited,
// like any other, to a span of a stored document.
const (
	// FormatCompanyFacts is the format of a company facts document.
	FormatCompanyFacts Format = "companyfacts"
	// FactCompanyFacts is the kind of a fact read from company facts.
	FactCompanyFacts = "companyfacts"
	// CompanyFactsFormSuffix ends the form of a company facts document:
	// "10-K XBRL" holds the values the 10-K reported. The form differs
	// from the filing's own so that the two are never taken for copies of
	// one filing, and starts with it so that it ranks with it.
	CompanyFactsFormSuffix = " XBRL"
)

// CompanyFactsForm returns the form of the company facts document of a
// filing of form: "10-K" -> "10-K XBRL".
func CompanyFactsForm(form string) string { return form + CompanyFactsFormSuffix }

// FilingForm returns the form of the filing whose company facts a document
// of form holds ("10-K XBRL" -> "10-K"), or form itself for any other.
func FilingForm(form string) string { return strings.TrimSuffix(form, CompanyFactsFormSuffix) }
