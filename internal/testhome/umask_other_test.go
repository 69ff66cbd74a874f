//go:build !unix

package testhome_test

func setUmask077() {}
