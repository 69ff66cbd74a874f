// Package gitauth finds the credentials of a git remote from what git
// users already have, without running git: ssh keys and agents, tokens in
// the environment, git's credential helpers (spoken to with git's
// credential protocol, git-credential(7), from the credential.* settings of
// the config files git reads) and git's credential store. After the remote
// answers, Done tells the helpers to store or erase, as git does.
//
// A password a helper answers goes back to the helpers only (store and
// erase), never into a message.
package gitauth
