package bench

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestNewVocabulary(t *testing.T) {
	t.Parallel()
	v, err := NewVocabulary([]string{"the", "revenue", "of", "revenue", " margin ", ""})
	if err != nil {
		t.Fatal(err)
	}
	if got := v.Words(); !slices.Equal(got, []string{"the", "revenue", "of", "margin"}) {
		t.Errorf("words %v", got)
	}
	if !slices.Equal(v.content, []int{1, 3}) {
		t.Errorf("content ranks %v, want [1 3]: stop words excluded", v.content)
	}
	if _, err := NewVocabulary([]string{"the", "of", "and"}); err == nil {
		t.Error("a vocabulary of stop words was accepted")
	}
}

func TestBuiltinVocabulary(t *testing.T) {
	t.Parallel()
	a, b := BuiltinVocabulary(200, 1), BuiltinVocabulary(200, 1)
	if !slices.Equal(a.words, b.words) {
		t.Error("the same seed gave another vocabulary")
	}
	if slices.Equal(a.words, BuiltinVocabulary(200, 2).words) {
		t.Error("another seed gave the same rare words")
	}
	if a.Len() != BuiltinVocabulary(0, 1).Len()+200 {
		t.Errorf("%d words with 200 rare ones, %d without", a.Len(), BuiltinVocabulary(0, 1).Len())
	}
	if a.words[0] != "the" || len(a.content) < a.Len()-100 {
		t.Errorf("first word %q, %d content words of %d", a.words[0], len(a.content), a.Len())
	}
}

func TestReadVocabulary(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.txt", "The revenue of the Company's segment rose 12% in 2024; revenue grew.\f\nThe long-term debt.")
	write("b.txt", "The margin. The margin, the revenue")
	write("c.md", "ignored ignored ignored ignored ignored ignored")
	tests := []struct {
		size int
		want []string
	}{
		{3, []string{"the", "revenue", "margin"}},
		{100, []string{"the", "revenue", "margin", "company's", "debt", "grew", "in", "long-term", "of", "rose", "segment"}},
	}
	for _, tt := range tests {
		v, err := ReadVocabulary(dir, tt.size)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(v.Words(), tt.want) {
			t.Errorf("size %d: %v, want %v", tt.size, v.Words(), tt.want)
		}
	}
	if _, err := ReadVocabulary(t.TempDir(), 10); err == nil {
		t.Error("a directory without text files gave a vocabulary")
	}
}
