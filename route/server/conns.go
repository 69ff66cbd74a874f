package server

import (
	"errors"
	"net"
	"sync"
	"syscall"
	"time"
)

// maxConns caps the connections the server holds open at once. Requests
// are ranked one at a time (under the server's lock) and each is answered
// in milliseconds, so a handful is all a user's agents ever use; 64 leaves
// most of the usual 1,024 file descriptors to the registry's files, which a
// rebuild opens. connCap lowers it under a smaller open-file limit.
const maxConns = 64

// requestWait is how long a connection may stay silent before its request
// line: megagit's clients send it as soon as they connect, and wait 5 s at
// most for the answer, so a connection silent this long has no one
// waiting on it.
const requestWait = 5 * time.Second

// temporary says an accept error passes: out of file descriptors or
// memory, a connection aborted before it was accepted, an interrupted call
// (the errors net/http's server waits out, named here rather than through
// the deprecated net.Error.Temporary).
func temporary(err error) bool {
	for _, e := range []error{syscall.EMFILE, syscall.ENFILE, syscall.ENOBUFS, syscall.ENOMEM, syscall.ECONNABORTED, syscall.EINTR, syscall.EAGAIN} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// connCap is maxConns, or a quarter of the process's open-file limit when
// that is lower (at least 4), so connections never use up the descriptors.
func connCap() int {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil || lim.Cur >= 4*maxConns {
		return maxConns
	}
	return max(int(lim.Cur/4), 4)
}

// connSlots counts the open connections. When all slots are taken, a new
// connection takes the slot of the oldest one still silent (no request
// read yet), which is closed: a pile of idle connections cannot keep a
// client out. With none silent, it waits for one to finish.
type connSlots struct {
	max  int
	mu   sync.Mutex
	open int
	free chan struct{}         // a slot was released
	idle map[net.Conn]struct{} // open, request not read yet
	ages []net.Conn            // idle connections, oldest first (may hold busy ones)
}

func newConnSlots(n int) *connSlots {
	return &connSlots{max: n, free: make(chan struct{}, 1), idle: map[net.Conn]struct{}{}}
}

// take gives c a slot, closing the oldest silent connection or waiting for
// one to finish when all are taken; false when stop closed first.
func (s *connSlots) take(c net.Conn, stop <-chan struct{}) bool {
	for {
		s.mu.Lock()
		if s.open < s.max {
			s.open++
			s.idle[c] = struct{}{}
			s.ages = append(s.ages, c)
			s.mu.Unlock()
			return true
		}
		s.evictLocked()
		s.mu.Unlock()
		select {
		case <-s.free:
		case <-stop:
			return false
		}
	}
}

// evictLocked closes the oldest connection still silent, if any; its
// handler then releases the slot.
func (s *connSlots) evictLocked() {
	for len(s.ages) > 0 {
		old := s.ages[0]
		s.ages = s.ages[1:]
		if _, ok := s.idle[old]; ok {
			delete(s.idle, old)
			old.Close()
			return
		}
	}
}

// busy marks c's request as read: it is no longer evicted.
func (s *connSlots) busy(c net.Conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.idle, c)
}

// release frees c's slot.
func (s *connSlots) release(c net.Conn) {
	s.mu.Lock()
	delete(s.idle, c)
	s.open--
	if len(s.ages) > 2*s.max { // drop the connections no longer silent
		kept := s.ages[:0]
		for _, a := range s.ages {
			if _, ok := s.idle[a]; ok {
				kept = append(kept, a)
			}
		}
		clear(s.ages[len(kept):])
		s.ages = kept
	}
	s.mu.Unlock()
	select {
	case s.free <- struct{}{}:
	default:
	}
}
