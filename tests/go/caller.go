// SPDX-License-Identifier: GPL-2.0

package main

import (
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
)

// One intercepted syscall as this program saw it. TAfter is nil while the
// call is still blocked (in flight at exit).
type callRecord struct {
	Caller   int    `json:"caller"`
	Tid      int    `json:"tid"`
	TBefore  int64  `json:"t_before"`
	TAfter   *int64 `json:"t_after"`
	Ret      int64  `json:"ret"`
	Errno    int    `json:"errno"`
	Attempts int    `json:"attempts"` // > 1: retried after EINTR
}

type caller struct {
	index int
	mu    sync.Mutex
	calls []callRecord
}

var stopCalls int32

// notified makes the intercepted syscall. RawSyscall is what the syscall
// package itself uses for getppid (syscall.Getppid): the scheduler is not
// told, the P stays "running", and sysmon preempts it after 10 ms with a
// SIGURG to the thread, which is blocked in the seccomp wait. Syscall
// tells the scheduler first (entersyscall): sysmon then hands the P off
// instead of signalling, and SIGURG only hits by a race.
func notified(raw bool, nr uintptr) (uintptr, syscall.Errno) {
	var r1 uintptr
	var e syscall.Errno
	if raw {
		r1, _, e = syscall.RawSyscall(nr, 0, 0, 0)
	} else {
		r1, _, e = syscall.Syscall(nr, 0, 0, 0)
	}
	return r1, e
}

// run computes for workIters, then makes the intercepted syscall, retrying
// on EINTR as the os package does, until stopCalls or maxCalls.
func (c *caller) run(cfg *config, workIters uint64, st *stats, running *int32) {
	defer atomic.AddInt32(running, -1)
	// Each call is attributed to the thread the tracer sees it on.
	runtime.LockOSThread()
	tid := syscall.Gettid()
	for n := 0; atomic.LoadInt32(&stopCalls) == 0 && (cfg.maxCalls == 0 || n < cfg.maxCalls); n++ {
		spinFor(workIters)
		// t_before first, so a call still blocked at exit has its bracket
		rec := callRecord{Caller: c.index, Tid: tid, TBefore: monoNow()}
		c.mu.Lock()
		c.calls = append(c.calls, rec)
		i := len(c.calls) - 1
		c.mu.Unlock()
		atomic.AddInt64(&st.issued, 1)

		var r1 uintptr
		var e syscall.Errno
		for {
			rec.Attempts++
			r1, e = notified(cfg.raw, uintptr(cfg.nr))
			if e != syscall.EINTR {
				break
			}
			atomic.AddInt64(&st.eintr, 1)
			atomic.AddInt64(&st.retries, 1)
		}
		t1 := monoNow()

		rec.TAfter = &t1
		rec.Ret, rec.Errno = int64(r1), int(e)
		if e != 0 {
			rec.Ret = -1
			atomic.AddInt64(&st.errors, 1)
		} else if int64(r1) != cfg.expect {
			atomic.AddInt64(&st.unexpected, 1)
		}
		atomic.AddInt64(&st.completed, 1)
		c.mu.Lock()
		c.calls[i] = rec
		c.mu.Unlock()
	}
}

// snapshot copies the records; a call still blocked has TAfter nil.
func (c *caller) snapshot() []callRecord {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]callRecord(nil), c.calls...)
}
