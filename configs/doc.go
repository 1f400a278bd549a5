// Package configs holds the default configuration shipped in the binary,
// starting with the model price table (prices.json) that the budget package
// charges model calls against.
//
// Prices are list prices in USD per million tokens, kept as decimal strings
// so that no price is ever rounded through a float. A model missing from the
// table has no price: asking for it is an error, never a free call.
package configs
