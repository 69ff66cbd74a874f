//go:build unix

package testhome

import "syscall"

// setUmask makes the umask 022, the common default.
func setUmask() { syscall.Umask(0o022) }
