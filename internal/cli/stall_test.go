package cli

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"net"
	"os"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
	"golang.org/x/crypto/ssh"
)

// cmdStall is `stall VAR [FIRST]`: a loopback TCP server, for the rest of
// the script, that accepts every connection, writes FIRST (Go escapes such
// as \r\n read; nothing when absent) and then never answers nor hangs up;
// $VAR is its host:port.
func cmdStall(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: stall VAR [FIRST]")
	}
	first := ""
	if len(args) == 2 {
		s, err := strconv.Unquote(`"` + args[1] + `"`)
		ts.Check(err)
		first = s
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	done := make(chan struct{})
	ts.Defer(func() { close(done); ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				if strings.HasPrefix(first, "HTTP/") {
					// An HTTP answer follows the request: sent before it,
					// the client's transport may take the bytes for a
					// stray response on an idle connection, and fail
					// there rather than wait (a flaky test, not a stall).
					readHead(c)
				}
				_, _ = c.Write([]byte(first))
				<-done
			}()
		}
	}()
	ts.Setenv(args[0], ln.Addr().String())
}

// cmdSSHKey is `sshkey FILE`: a new ed25519 private key, without a
// passphrase, in OpenSSH's format (what MEGAGIT_SSH_KEY names).
func cmdSSHKey(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: sshkey FILE")
	}
	_, key, err := ed25519.GenerateKey(rand.Reader)
	ts.Check(err)
	block, err := ssh.MarshalPrivateKey(key, "")
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), pem.EncodeToMemory(block), 0o600))
}

// readHead reads a request's head (up to the blank line), at most 64 KiB.
func readHead(c net.Conn) {
	buf := make([]byte, 0, 4096)
	one := make([]byte, 1024)
	for len(buf) < 64<<10 {
		n, err := c.Read(one)
		buf = append(buf, one[:n]...)
		if strings.Contains(string(buf), "\r\n\r\n") || err != nil {
			return
		}
	}
}
