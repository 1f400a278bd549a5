package corpus

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// ErrNoPDFTool is returned when pdftotext is not installed.
var ErrNoPDFTool = errors.New("corpus: pdf: pdftotext not found; install poppler-utils (apt-get install poppler-utils)")

// ParsePDF converts the PDF at path with `pdftotext -layout` and returns
// its canonical text and page count. pdftotext separates pages with form
// feeds, so the text keeps its pages.
func ParsePDF(ctx context.Context, path string) (text string, pages int, err error) {
	bin, err := exec.LookPath("pdftotext")
	if err != nil {
		return "", 0, ErrNoPDFTool
	}
	f, err := os.Open(path)
	if err != nil {
		return "", 0, fmt.Errorf("corpus: pdf: %w", err)
	}
	head, err := readHead(f, 5)
	f.Close()
	if err != nil {
		return "", 0, fmt.Errorf("corpus: pdf: cannot read %s: %w", path, err)
	}
	if !bytes.Equal(head, []byte("%PDF-")) {
		return "", 0, fmt.Errorf("corpus: pdf: %s is not a PDF (no %%PDF- header)", path)
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, "-layout", "-enc", "UTF-8", path, "-")
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return "", 0, fmt.Errorf("corpus: pdf: pdftotext could not read %s: %s", path, firstLine(msg))
	}
	text, pages, err = ParseText(&stdout)
	if err != nil {
		return "", 0, fmt.Errorf("corpus: pdf: %s: no text extracted (a scanned PDF needs OCR first)", path)
	}
	return text, pages, nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
