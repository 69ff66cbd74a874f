// Command megagit keeps an AI coding agent's skills in a git repository,
// routes each prompt to the few skills worth injecting, and learns from every
// verdict. See README.md.
package main

import (
	"os"

	"github.com/megagit/megagit/internal/cli"
)

func main() {
	os.Exit(cli.Run(os.Args[1:], cli.Streams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr}))
}
