// SPDX-License-Identifier: GPL-2.0

package main

import (
	"sync/atomic"
	"time"
)

var (
	stopLoad int32
	sink     uint64 // keeps the spin loops' results alive
)

// spinFor runs a loop without function calls (the atomic load is an
// intrinsic): nothing in it is a cooperative preemption point, so only
// the runtime's asynchronous preemption (SIGURG) can stop it.
func spinFor(iters uint64) {
	x := uint64(1)
	for i := uint64(0); i < iters; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	atomic.AddUint64(&sink, x)
}

// spinIters calibrates spinFor: iterations that take about d.
func spinIters(d time.Duration) uint64 {
	if d <= 0 {
		return 0
	}
	const probe = 1 << 22
	best := time.Duration(1 << 62)
	for i := 0; i < 3; i++ {
		t0 := time.Now()
		spinFor(probe)
		if dt := time.Since(t0); dt < best {
			best = dt
		}
	}
	if best <= 0 {
		best = 1
	}
	return uint64(float64(probe) * float64(d) / float64(best))
}

// spinner computes until told to stop: a goroutine sysmon has to preempt
// every 10 ms, so SIGURG is in the air all the time.
func spinner() {
	x := uint64(1)
	for atomic.LoadInt32(&stopLoad) == 0 {
		x = x*6364136223846793005 + 1442695040888963407
	}
	atomic.AddUint64(&sink, x)
}

// allocator keeps the heap churning so that GC cycles (stop-the-world and
// stack scans, which preempt running goroutines) happen all the time.
func allocator() {
	ring := make([][]byte, 64)
	for i := 0; atomic.LoadInt32(&stopLoad) == 0; i++ {
		ring[i%len(ring)] = make([]byte, 32<<10)
	}
	heapSink = ring // escapes: the buffers are heap allocations
}

var heapSink [][]byte
