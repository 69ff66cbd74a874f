// Package embedcache keeps the vectors of a registry's skills: the
// committed cache under .megagit/embeddings/<model>/ (vectors.npy and
// index.json, keyed by the sha256 of each embedded text, so only changed
// skills are re-embedded), the plan that re-embeds what changed, the
// three-way merge of caches that sync uses, the anchor that notices a
// model whose vectors drifted, and the verify and status reports. The
// models that make the vectors are in package models.
package embedcache
