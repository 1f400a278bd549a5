package corpus

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDetectFormat(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if err := os.Mkdir(filepath.Join(dir, "folder.txt"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path string
		want Format
		err  string
	}{
		{write("a.html", "<html><body>x</body></html>"), FormatHTML, ""},
		{write("a.HTM", "<html>"), FormatHTML, ""},
		{write("a.txt", "Item 7."), FormatText, ""},
		{write("empty.txt", ""), FormatText, ""},
		{write("a.pdf", "%PDF-1.7\n"), FormatPDF, ""},
		{write("fake.pdf", "hello"), "", "not a PDF"},
		{write("pdf.txt", "%PDF-1.4"), "", "holds a PDF"},
		{write("notes.docx", "PK"), "", `unknown format ".docx"`},
		{filepath.Join(dir, "missing.txt"), "", "no such file"},
		{filepath.Join(dir, "folder.txt"), "", "cannot read"},
	}
	for _, tt := range tests {
		got, err := DetectFormat(tt.path)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("DetectFormat(%s) = %q, %v; want an error mentioning %q", filepath.Base(tt.path), got, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("DetectFormat(%s) = %q, %v; want %q", filepath.Base(tt.path), got, err, tt.want)
		}
	}
}
