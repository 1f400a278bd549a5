package edgar

import (
	"bytes"
	"context"
	"os"

	"github.com/ledgerline/research/configs"
)

// RefreshIssuers downloads the SEC's issuer list (/files/company_tickers.json
// on the main site; a cached copy is revalidated, so an unchanged list costs
// a 304), checks that it reads as one, and writes it to dst through a
// temporary file, so dst holds the old list or the whole new one. opts
// may observe the request; nil means none.
func RefreshIssuers(ctx context.Context, c *Client, dst string, opts *GetOpts) (*configs.IssuerList, *Result, error) {
	var get GetOpts
	if opts != nil {
		get.Observe = opts.Observe
	}
	res, err := c.Get(ctx, c.BaseURL()+"/files/company_tickers.json", &get)
	if err != nil {
		return nil, nil, err
	}
	raw, err := os.ReadFile(res.Path)
	if err != nil {
		return nil, nil, err
	}
	list, err := configs.LoadIssuers(bytes.NewReader(raw))
	if err != nil {
		return nil, nil, err
	}
	if err := WriteFileAtomic(dst, raw); err != nil {
		return nil, nil, err
	}
	return list, res, nil
}
