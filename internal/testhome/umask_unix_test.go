//go:build unix

package testhome_test

import "syscall"

func setUmask077() { syscall.Umask(0o077) }
