package tools

import (
	"strconv"
	"strings"
)

// Metric is a reported figure the tools can look up by name, with the
// XBRL concepts issuers tag it with, most specific first, and the words
// analysts and filings use for it.
type Metric struct {
	Name     string   // "revenue", "gross_profit", ...
	Label    string   // how an answer names it
	Concepts []string // qualified concepts, tried in order
	Aliases  []string // lower-case labels lookup_fact accepts for it, and row labels that print it
	// Instant is set for a balance (cash, assets, debt, shares
	// outstanding): a value at a date, not over a period.
	Instant bool
	// Prefer are starts of row labels that print the figure as the
	// standard defines it, where a filing prints a broader row beside it
	// ("net income attributable to" the company, not to all owners).
	Prefer []string
	// Outflow is set for a cost or a payment (cost of sales, R&D, capital
	// expenditures, repurchases): its tagged concept is a positive amount,
	// and so is its figure, though a table may print it in parentheses.
	Outflow bool
}

// Metrics is the catalogue of reported figures: the finance vocabulary of
// the standard US-GAAP taxonomy, not of any issuer. Issuers tag the same
// figure with different concepts (revenue as Revenues or as
// RevenueFromContractWithCustomerExcludingAssessedTax; cost of sales as
// CostOfRevenue or CostOfGoodsAndServicesSold), so a lookup by metric tries
// each in turn; a figure outside the catalogue is found by the words of its
// concept and of the row label the filing prints beside it.
var Metrics = []Metric{
	{Name: "revenue", Label: "revenue", Concepts: []string{
		"us-gaap:Revenues", "us-gaap:RevenueFromContractWithCustomerExcludingAssessedTax",
		"us-gaap:RevenueFromContractWithCustomerIncludingAssessedTax", "us-gaap:SalesRevenueNet"},
		Aliases: []string{"revenue", "revenues", "net revenue", "net revenues", "total revenue", "total revenues", "net sales", "total net sales", "sales", "total net revenue", "total net revenues"}},
	{Name: "cost_of_revenue", Outflow: true, Label: "cost of revenue", Concepts: []string{
		"us-gaap:CostOfRevenue", "us-gaap:CostOfGoodsAndServicesSold", "us-gaap:CostOfGoodsSold"},
		Aliases: []string{"cost of revenue", "cost of revenues", "cost of sales", "total cost of sales", "cost of goods sold", "total cost of revenue", "total cost of revenues", "cogs", "cost of net revenues", "cost of net revenue", "total cost of net revenues", "cost of sales and services", "merchandise costs", "cost of merchandise sold"}},
	{Name: "gross_profit", Label: "gross profit", Concepts: []string{"us-gaap:GrossProfit"},
		Aliases: []string{"gross profit", "gross margin dollars", "total gross margin"}},
	{Name: "operating_income", Label: "operating income", Concepts: []string{"us-gaap:OperatingIncomeLoss"},
		Aliases: []string{"operating income", "income from operations", "operating profit", "operating income (loss)", "total operating income", "operating loss", "loss from operations", "operating profit (loss)", "operating line", "op income"}},
	{Name: "net_income", Label: "net income", Prefer: []string{"net income attributable to"}, Concepts: []string{"us-gaap:NetIncomeLoss", "us-gaap:ProfitLoss"},
		Aliases: []string{"net income", "net earnings", "profit", "net income (loss)", "net profit", "net loss", "net earnings (loss)"}},
	{Name: "rd_expense", Outflow: true, Label: "research and development expense", Concepts: []string{
		"us-gaap:ResearchAndDevelopmentExpense", "us-gaap:ResearchAndDevelopmentExpenseExcludingAcquiredInProcessCost"},
		Aliases: []string{"research and development", "r&d", "research and development expense", "research and development expenses", "r&d expense", "r&d spending", "technology and development", "technology and content"}},
	{Name: "sga_expense", Outflow: true, Label: "selling, general and administrative expense", Concepts: []string{
		"us-gaap:SellingGeneralAndAdministrativeExpense", "us-gaap:GeneralAndAdministrativeExpense"},
		Aliases: []string{"selling, general and administrative", "selling general and administrative", "sg&a", "sga", "selling, general and administrative expense", "selling, general and administrative expenses", "general and administrative"}},
	{Name: "operating_expenses", Outflow: true, Label: "operating expenses", Concepts: []string{
		"us-gaap:OperatingExpenses", "us-gaap:CostsAndExpenses"},
		Aliases: []string{"operating expenses", "total operating expenses", "opex", "total costs and expenses", "costs and expenses"}},
	{Name: "capex", Label: "capital expenditures", Outflow: true, Concepts: []string{
		"us-gaap:PaymentsToAcquirePropertyPlantAndEquipment", "us-gaap:PaymentsToAcquireProductiveAssets"},
		Aliases: []string{"capital expenditures", "capex", "capital spending", "purchases of property and equipment", "payments for acquisition of property, plant and equipment", "purchases of property, plant and equipment", "capital expenditure", "additions to property and equipment", "purchases of property and equipment, net", "capital expenditures, net"}},
	{Name: "operating_cash_flow", Label: "operating cash flow", Concepts: []string{
		"us-gaap:NetCashProvidedByUsedInOperatingActivities", "us-gaap:NetCashProvidedByUsedInOperatingActivitiesContinuingOperations"},
		Aliases: []string{"operating cash flow", "cash from operations", "net cash provided by operating activities", "cash generated by operating activities", "cash flow from operations", "cash flows from operating activities", "net cash from operating activities"}},
	{Name: "investing_cash_flow", Label: "investing cash flow", Concepts: []string{
		"us-gaap:NetCashProvidedByUsedInInvestingActivities", "us-gaap:NetCashProvidedByUsedInInvestingActivitiesContinuingOperations"},
		Aliases: []string{"investing cash flow", "cash flow from investing activities", "net cash used in investing activities", "net cash provided by (used in) investing activities",
			"cash flows from investing activities", "cash used in investing activities", "net cash from investing activities", "cash from investing", "investing cash flows"}},
	{Name: "financing_cash_flow", Label: "financing cash flow", Concepts: []string{
		"us-gaap:NetCashProvidedByUsedInFinancingActivities", "us-gaap:NetCashProvidedByUsedInFinancingActivitiesContinuingOperations"},
		Aliases: []string{"financing cash flow", "cash flow from financing activities", "net cash used in financing activities", "net cash provided by (used in) financing activities",
			"cash flows from financing activities", "cash used in financing activities", "net cash from financing activities", "cash from financing", "financing cash flows"}},
	{Name: "income_tax", Label: "income tax expense", Concepts: []string{"us-gaap:IncomeTaxExpenseBenefit"},
		Aliases: []string{"income tax expense", "provision for income taxes", "provision for taxes", "income taxes", "income tax provision", "tax expense"}},
	{Name: "pretax_income", Label: "income before income taxes", Concepts: []string{
		"us-gaap:IncomeLossFromContinuingOperationsBeforeIncomeTaxesExtraordinaryItemsNoncontrollingInterest",
		"us-gaap:IncomeLossFromContinuingOperationsBeforeIncomeTaxesMinorityInterestAndIncomeLossFromEquityMethodInvestments",
		"us-gaap:IncomeLossFromContinuingOperationsBeforeIncomeTaxesDomestic"},
		Aliases: []string{"income before income taxes", "income before provision for income taxes", "pretax income", "pre-tax income", "earnings before income taxes", "income before taxes"}},
	{Name: "eps_diluted", Label: "diluted earnings per share", Prefer: []string{"diluted net income per common share attributable to", "diluted earnings per share attributable to"}, Concepts: []string{"us-gaap:EarningsPerShareDiluted", "us-gaap:EarningsPerShareBasicAndDiluted"},
		Aliases: []string{"diluted earnings per share", "diluted eps", "eps", "earnings per share", "diluted net income per share", "diluted earnings per share of common stock"}},
	{Name: "eps_basic", Label: "basic earnings per share", Concepts: []string{"us-gaap:EarningsPerShareBasic", "us-gaap:EarningsPerShareBasicAndDiluted"},
		Aliases: []string{"basic earnings per share", "basic eps", "basic net income per share"}},
	{Name: "diluted_shares", Label: "weighted-average diluted shares", Concepts: []string{"us-gaap:WeightedAverageNumberOfDilutedSharesOutstanding"},
		Aliases: []string{"diluted shares", "weighted-average diluted shares", "diluted share count", "weighted average diluted shares outstanding"}},
	{Name: "cash", Label: "cash and cash equivalents", Instant: true, Concepts: []string{
		"us-gaap:CashAndCashEquivalentsAtCarryingValue", "us-gaap:CashCashEquivalentsRestrictedCashAndRestrictedCashEquivalents", "us-gaap:Cash"},
		Aliases: []string{"cash and cash equivalents", "cash balance", "cash on hand", "cash", "cash position"}},
	{Name: "total_assets", Label: "total assets", Instant: true, Concepts: []string{"us-gaap:Assets"},
		Aliases: []string{"total assets", "assets"}},
	{Name: "total_liabilities", Label: "total liabilities", Instant: true, Concepts: []string{"us-gaap:Liabilities"},
		Aliases: []string{"total liabilities", "liabilities"}},
	{Name: "equity", Label: "shareholders' equity", Instant: true, Concepts: []string{
		"us-gaap:StockholdersEquity", "us-gaap:StockholdersEquityIncludingPortionAttributableToNoncontrollingInterest"},
		Aliases: []string{"shareholders' equity", "stockholders' equity", "total shareholders' equity", "total stockholders' equity", "shareholders equity", "stockholders equity", "total equity", "book value"}},
	{Name: "long_term_debt", Label: "long-term debt", Instant: true, Concepts: []string{
		"us-gaap:LongTermDebtNoncurrent", "us-gaap:LongTermDebt", "us-gaap:LongTermDebtAndCapitalLeaseObligations"},
		Aliases: []string{"long-term debt", "long term debt", "term debt", "non-current term debt", "long-term borrowings"}},
	{Name: "total_debt", Label: "total debt", Instant: true, Concepts: []string{
		"us-gaap:DebtLongtermAndShorttermCombinedAmount", "us-gaap:LongTermDebt", "us-gaap:DebtInstrumentCarryingAmount"},
		Aliases: []string{"total debt", "total borrowings", "gross debt", "debt outstanding"}},
	{Name: "inventory", Label: "inventories", Instant: true, Concepts: []string{"us-gaap:InventoryNet"},
		Aliases: []string{"inventories", "inventory", "merchandise inventories"}},
	{Name: "shares_outstanding", Label: "shares outstanding", Instant: true, Concepts: []string{
		"dei:EntityCommonStockSharesOutstanding", "us-gaap:CommonStockSharesOutstanding"},
		Aliases: []string{"shares outstanding", "common shares outstanding", "share count", "number of shares outstanding"}},
	{Name: "buybacks", Label: "share repurchases", Outflow: true, Concepts: []string{
		"us-gaap:PaymentsForRepurchaseOfCommonStock", "us-gaap:StockRepurchasedDuringPeriodValue"},
		Aliases: []string{"share repurchases", "buybacks", "stock buybacks", "share buybacks", "stock repurchases", "repurchases of common stock", "repurchases of common stock, net", "payments for repurchase of common stock", "common stock repurchased", "repurchase of common stock", "repurchases of class a common stock", "repurchase", "repurchased", "bought back", "buy back"}},
	{Name: "dividends", Label: "dividends paid", Outflow: true, Concepts: []string{
		"us-gaap:PaymentsOfDividends", "us-gaap:PaymentsOfDividendsCommonStock"},
		Aliases: []string{"dividends paid", "dividends", "payments for dividends", "cash dividends paid"}},
	{Name: "dividends_per_share", Label: "dividends per share", Concepts: []string{
		"us-gaap:CommonStockDividendsPerShareDeclared", "us-gaap:CommonStockDividendsPerShareCashPaid"},
		Aliases: []string{"dividends per share", "dividend per share", "dividends paid per share", "dividends declared per share", "dividend per common share", "dividends per common share", "dps"}},
	{Name: "depreciation", Outflow: true, Label: "depreciation and amortization", Concepts: []string{
		"us-gaap:DepreciationDepletionAndAmortization", "us-gaap:DepreciationAmortizationAndAccretionNet", "us-gaap:DepreciationAndAmortization"},
		Aliases: []string{"depreciation and amortization", "d&a", "depreciation"}},
	{Name: "sbc", Outflow: true, Label: "stock-based compensation", Concepts: []string{"us-gaap:ShareBasedCompensation", "us-gaap:AllocatedShareBasedCompensationExpense"},
		Aliases: []string{"stock-based compensation", "share-based compensation", "stock based compensation", "sbc", "stock-based compensation expense"}},
}

// MetricByName returns the metric called name, or false.
func MetricByName(name string) (Metric, bool) {
	for _, m := range Metrics {
		if m.Name == name {
			return m, true
		}
	}
	return Metric{}, false
}

// MetricForLabel returns the metric a label (or a metric name) names,
// case-insensitively, or false.
func MetricForLabel(label string) (Metric, bool) {
	l := strings.ToLower(strings.TrimSpace(label))
	for _, m := range Metrics {
		if l == m.Name || l == m.Label {
			return m, true
		}
		for _, a := range m.Aliases {
			if l == a {
				return m, true
			}
		}
	}
	return Metric{}, false
}

// PeriodLabel is how evidence and requirements name a filing's period:
// "FY" and the fiscal year the filing reports on.
func PeriodLabel(fiscalYear int) string {
	return "FY" + strconv.Itoa(fiscalYear)
}

// MetricPhrases are the catalogue's words a question may use for each
// metric: its aliases of two or more words, and one-word aliases that are
// not also the everyday word for a broader topic ("sales", "profit",
// "cash" and the like name an aspect, which the planner reads as such).
func MetricPhrases(m Metric) []string {
	var out []string
	for _, a := range m.Aliases {
		if strings.ContainsAny(a, " -&") || !broadWords[a] {
			out = append(out, a)
		}
	}
	return out
}

// broadWords are one-word aliases that do not by themselves ask for a
// figure in a question.
var broadWords = map[string]bool{
	"revenue": true, "revenues": true, "sales": true, "profit": true, "cash": true, "assets": true,
	"liabilities": true, "depreciation": true, "dividends": true,
	// "How much stock did Intel repurchase": the verb asks the figure
	// where a number is asked.
	"repurchase": true, "repurchased": true,
}
