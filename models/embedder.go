// Package models turns text into vectors: the Embedder interface, megagit's
// own static model (one vector per WordPiece token, sentence = normalised
// mean; trained by models/train and shipped inside the binary), ONNX
// sentence models behind the same interface, their profiles, tokenizers and
// download. The vectors a registry keeps are embedcache's.
package models

// Kind says which side of an asymmetric retrieval pair a text is on: models
// with a query instruction prefix apply it to queries only.
type Kind int

// The two sides of retrieval.
const (
	Query Kind = iota
	Document
)

// Embedder turns texts into L2-normalised vectors of a fixed dimension.
type Embedder interface {
	// ID names the model; cached vectors are keyed by it.
	ID() string
	// Dim is the vector length.
	Dim() int
	// Embed returns one unit vector per text (a zero vector for a text with
	// no known tokens).
	Embed(texts []string, kind Kind) ([][]float32, error)
}
