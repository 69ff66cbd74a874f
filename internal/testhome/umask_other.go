//go:build !unix

package testhome

// setUmask does nothing: only Unix has a umask.
func setUmask() {}
