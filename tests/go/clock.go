// SPDX-License-Identifier: GPL-2.0

package main

import (
	"syscall"
	"unsafe"
)

const clockMonotonic = 1

// monoNow reads CLOCK_MONOTONIC in ns, the clock of bpf_ktime_get_ns(),
// so the tracer's timestamps can be checked against brackets taken here.
// A raw clock_gettime: no scheduler involvement, never intercepted.
func monoNow() int64 {
	var ts syscall.Timespec
	syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, clockMonotonic,
		uintptr(unsafe.Pointer(&ts)), 0)
	return ts.Nano()
}
