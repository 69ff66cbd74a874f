// Package gitnet is how megagit reaches a git remote over the network: it
// installs go-git's transports for http(s), ssh and git:// behind
// connections that give up when the remote does not connect, or stops
// sending, within the timeout (SetTimeout; network.timeout_ms), so a
// server that accepts and never answers ends a fetch, a push, a list or a
// clone with an error instead of hanging it for ever. Watch tells such a
// timeout from go-git's other errors, whatever go-git made of it.
package gitnet
