package route

import "testing"

// TestEnglishWord: a real word the catalog may lack is never read as a
// typo, whether the tokeniser's vocabulary or the word list knows it;
// a misspelling is not a word.
func TestEnglishWord(t *testing.T) {
	for _, w := range []string{"stash", "unset", "constrictor", "deployment", "stashes", "mulling"} {
		if !englishWord(w) {
			t.Errorf("%q is a word", w)
		}
	}
	for _, w := range []string{"seperate", "pipline", "kuberntes", "deploymnet"} {
		if englishWord(w) {
			t.Errorf("%q is a typo, not a word", w)
		}
	}
}
