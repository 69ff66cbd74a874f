// Package staticmodel is megagit's built-in static embedding model and the
// BERT-uncased tokenisation it pools over, without the network: it reads
// the model files compiled into the binary, or a model folder, and links
// neither net nor sugarme's tokenizer. It gives the ids embedcache's
// sugarme-based tokenizer gives (embedcache's differential test and fuzz
// target hold the two together), so the prompt hook, megagit and the
// trainer tokenise one way.
package staticmodel
