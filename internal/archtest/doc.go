// Package archtest holds no code: its test checks megagit's package layout
// (ARCHITECTURE.md): the pure packages stay pure and imports flow one way.
package archtest
