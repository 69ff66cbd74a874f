// Command megagit keeps an AI coding agent's skills in a git repository,
// routes each prompt to the few skills worth injecting, and learns from every
// verdict. See README.md.
package main

import "os"

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
