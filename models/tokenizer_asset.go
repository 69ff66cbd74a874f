package models

// DefaultTokenizerJSON is the shipped all-MiniLM-L6-v2 tokenizer.json,
// decompressed: what a test or a script puts next to a model.onnx to make
// a model folder without downloading anything.
func DefaultTokenizerJSON() ([]byte, error) { return defaultTokenizerJSON() }
