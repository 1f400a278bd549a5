package configs_test

import (
	"strings"
	"testing"

	"github.com/ledgerline/research/configs"
)

func TestEmbeddedWords(t *testing.T) {
	w, err := configs.Words()
	if err != nil {
		t.Fatal(err)
	}
	if w.Len() < 50_000 {
		t.Fatalf("Len() = %d", w.Len())
	}
	for word, want := range map[string]int{
		"target": 35, "Block": 35, "cost": 35, "apps": 50, "tech": 50,
		"nflx": 0, "aapl": 0, "waymo": 0, "": 0,
	} {
		if got := w.Level(word); got != want {
			t.Errorf("Level(%q) = %d, want %d", word, got, want)
		}
	}
}

func TestLoadWords(t *testing.T) {
	w, err := configs.LoadWords(strings.NewReader("# notice\n[35]\ncat\n\n[50]\ncat\nzebu\n"))
	if err != nil {
		t.Fatal(err)
	}
	if w.Level("cat") != 35 || w.Level("ZEBU") != 50 || w.Level("dog") != 0 {
		t.Errorf("levels: cat %d, zebu %d, dog %d", w.Level("cat"), w.Level("zebu"), w.Level("dog"))
	}
	for _, bad := range []string{"cat\n", "[x]\ncat\n", "[35]\nCat\n", "[35]\ntwo words\n", "# only\n"} {
		if _, err := configs.LoadWords(strings.NewReader(bad)); err == nil {
			t.Errorf("LoadWords(%q) did not fail", bad)
		}
	}
}
