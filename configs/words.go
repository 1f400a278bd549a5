package configs

import (
	"bufio"
	"bytes"
	_ "embed"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
)

// wordsTxt is a general English word list: the lower-case entries of SCOWL
// as Debian's wamerican-small (size 35) and wamerican (size 50) packages
// carry them, with SCOWL's notices at its head. It was made with
//
//	apt-get install wamerican-small wamerican
//	grep -x '[a-z]*' /usr/share/dict/american-english-small | sort >small # under [35]
//	grep -x '[a-z]*' /usr/share/dict/american-english | grep -vxFf small | sort # under [50]
//
// below a header of "#" lines holding /usr/share/doc/wamerican/copyright.
// The planner uses it to tell ordinary English words ("target", "block",
// "cost") from names and tickers; it names no issuer.
//
//go:embed words.txt
var wordsTxt []byte

// WordList is a general English word list in which each word carries the
// SCOWL size of the smallest list holding it: 35 for common words, 50 for
// less common ones. It is read-only and safe for concurrent use.
type WordList struct {
	level map[string]uint8
}

// LoadWords reads a word list: "#" comments, section lines "[N]" giving the
// SCOWL size of the words below them, and one lower-case word a line. A
// word listed in two sections keeps the smaller size.
func LoadWords(r io.Reader) (*WordList, error) {
	w := &WordList{level: map[string]uint8{}}
	sc := bufio.NewScanner(r)
	level := 0
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
			continue
		case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
			l, err := strconv.Atoi(line[1 : len(line)-1])
			if err != nil || l <= 0 || l > 100 {
				return nil, fmt.Errorf("configs: word list: line %d: bad section %q", n, line)
			}
			level = l
			continue
		}
		if level == 0 {
			return nil, fmt.Errorf("configs: word list: line %d: word %q before any section", n, line)
		}
		if line != strings.ToLower(line) || strings.ContainsAny(line, " \t") {
			return nil, fmt.Errorf("configs: word list: line %d: %q is not one lower-case word", n, line)
		}
		if old, ok := w.level[line]; !ok || int(old) > level {
			w.level[line] = uint8(level)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("configs: word list: %w", err)
	}
	if len(w.level) == 0 {
		return nil, fmt.Errorf("configs: word list: no words")
	}
	return w, nil
}

var embeddedWords = sync.OnceValues(func() (*WordList, error) {
	return LoadWords(bytes.NewReader(wordsTxt))
})

// Words returns the word list embedded in the binary (words.txt), parsed on
// first use.
func Words() (*WordList, error) { return embeddedWords() }

// Level returns the SCOWL size of the smallest list holding word, looked up
// in lower case: 35 for a common word, 50 for a less common one, 0 when the
// list lacks it.
func (w *WordList) Level(word string) int {
	if w == nil {
		return 0
	}
	return int(w.level[strings.ToLower(word)])
}

// Len returns the number of words.
func (w *WordList) Len() int {
	if w == nil {
		return 0
	}
	return len(w.level)
}
