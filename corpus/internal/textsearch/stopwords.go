package textsearch

// stopWords is Postgres' english.stop (the Snowball English stop word
// list), the words the english text search configuration does not index.
var stopWords = func() map[string]bool {
	m := make(map[string]bool, len(stopWordList))
	for _, w := range stopWordList {
		m[w] = true
	}
	return m
}()

// IsStopWord reports whether a lower-case word is an English stop word.
func IsStopWord(word string) bool { return stopWords[word] }

var stopWordList = [...]string{
	"i", "me", "my", "myself", "we", "our", "ours", "ourselves", "you", "your", "yours", "yourself", "yourselves", "he", "him", "his", "himself", "she", "her",
	"hers", "herself", "it", "its", "itself", "they", "them", "their", "theirs", "themselves", "what", "which", "who", "whom", "this", "that", "these",
	"those", "am", "is", "are", "was", "were", "be", "been", "being", "have", "has", "had", "having", "do", "does", "did", "doing", "a", "an", "the", "and", "but", "if", "or",
	"because", "as", "until", "while", "of", "at", "by", "for", "with", "about", "against", "between", "into", "through", "during", "before", "after",
	"above", "below", "to", "from", "up", "down", "in", "out", "on", "off", "over", "under", "again", "further", "then", "once", "here", "there", "when", "where",
	"why", "how", "all", "any", "both", "each", "few", "more", "most", "other", "some", "such", "no", "nor", "not", "only", "own", "same", "so", "than", "too", "very", "s",
	"t", "can", "will", "just", "don", "should", "now",
}
