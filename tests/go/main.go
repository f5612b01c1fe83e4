// SPDX-License-Identifier: GPL-2.0

// go-target: a Go program whose goroutines make seccomp-notified syscalls
// while others spin and allocate, so that the runtime's asynchronous
// preemption (SIGURG) meets the notification waits. Run it as the
// target of nw-workload's exec mode; at exit it writes what it saw as
// one JSON object (tests/go/README.md).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
	"syscall"
	"time"
)

type config struct {
	out        string
	duration   time.Duration
	grace      time.Duration
	callers    int
	spinners   int
	allocators int
	work       time.Duration
	raw        bool
	gomaxprocs int
	nr         int
	expect     int64
	maxCalls   int
	gogc       int
}

type stats struct {
	issued, completed, eintr, retries, errors, unexpected int64
	sigurg                                                int64
}

type report struct {
	Type           string       `json:"type"`
	Pid            int          `json:"pid"`
	GoVersion      string       `json:"go_version"`
	Gomaxprocs     int          `json:"gomaxprocs"`
	Call           string       `json:"call"`
	Nr             int          `json:"nr"`
	Callers        int          `json:"callers"`
	Spinners       int          `json:"spinners"`
	Allocators     int          `json:"allocators"`
	WorkNs         int64        `json:"work_ns"`
	Issued         int64        `json:"calls_issued"`
	Completed      int64        `json:"calls_completed"`
	InFlight       int64        `json:"calls_in_flight"`
	Eintr          int64        `json:"eintr"`
	Retries        int64        `json:"retries"`
	Errors         int64        `json:"errors"`
	Unexpected     int64        `json:"unexpected_values"`
	SigurgNotified int64        `json:"sigurg_notified"`
	Gogc           int          `json:"gogc"`
	GcCycles       uint64       `json:"gc_cycles"`
	TStart         int64        `json:"t_start"`
	TEnd           int64        `json:"t_end"`
	Calls          []callRecord `json:"calls"`
}

func usageError(format string, a ...interface{}) {
	fmt.Fprintf(os.Stderr, "go-target: "+format+"\n", a...)
	os.Exit(2)
}

func parseFlags() *config {
	c := &config{}
	var call string
	fs := flag.NewFlagSet("go-target", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are one line, below
	fs.StringVar(&c.out, "o", "", "write the JSON report to FILE (default stdout)")
	fs.DurationVar(&c.duration, "duration", 2*time.Second, "issue calls for this long")
	fs.DurationVar(&c.grace, "grace", 2*time.Second, "then wait this long for calls in flight")
	fs.IntVar(&c.callers, "callers", 2, "goroutines making the intercepted syscall")
	fs.IntVar(&c.spinners, "spinners", 2, "goroutines in call-free loops (async preemption only)")
	fs.IntVar(&c.allocators, "allocators", 1, "goroutines allocating (GC cycles)")
	fs.DurationVar(&c.work, "work", 2*time.Millisecond, "call-free computation before each call")
	fs.StringVar(&call, "call", "raw", "raw (RawSyscall, as syscall.Getppid) or syscall (Syscall)")
	fs.IntVar(&c.gomaxprocs, "gomaxprocs", 2, "GOMAXPROCS")
	fs.IntVar(&c.nr, "nr", int(syscall.SYS_GETPPID), "the intercepted syscall's number")
	fs.Int64Var(&c.expect, "expect", 42, "the value the supervisor replies")
	fs.IntVar(&c.maxCalls, "max-calls", 0, "calls per caller, 0: until -duration")
	fs.IntVar(&c.gogc, "gogc", 100, "GOGC; -1 turns the GC off (no stop-the-world)")
	if err := fs.Parse(os.Args[1:]); err == flag.ErrHelp {
		fmt.Println("Usage: go-target [OPTIONS] (tests/go/README.md)")
		fs.SetOutput(os.Stdout)
		fs.PrintDefaults()
		os.Exit(0)
	} else if err != nil {
		usageError("%v", err)
	}
	if fs.NArg() > 0 {
		usageError("unexpected argument %q", fs.Arg(0))
	}
	switch call {
	case "raw":
		c.raw = true
	case "syscall":
	default:
		usageError("invalid -call %q: expected raw or syscall", call)
	}
	if c.callers < 1 || c.spinners < 0 || c.allocators < 0 || c.gomaxprocs < 1 ||
		c.maxCalls < 0 || c.duration <= 0 || c.grace < 0 || c.work < 0 || c.nr < 0 {
		usageError("-callers, -gomaxprocs >= 1; durations, counts and -nr >= 0")
	}
	return c
}

func gcCycles() uint64 {
	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// countSigurg counts the SIGURGs os/signal passes on. Notify does not
// disable preemption; deliveries that arrive before the counter reads the
// previous one coalesce, so this is a lower bound.
func countSigurg(st *stats) {
	c := make(chan os.Signal, 1024)
	signal.Notify(c, syscall.SIGURG)
	go func() {
		for range c {
			atomic.AddInt64(&st.sigurg, 1)
		}
	}()
}

// sleepFor sleeps in the kernel, not on a runtime timer: timers live on
// the Ps, and a P whose goroutine is blocked in a RawSyscall runs none of
// them (its timers fire only once the call returns).
func sleepFor(d time.Duration) {
	ts := syscall.NsecToTimespec(d.Nanoseconds())
	for syscall.Nanosleep(&ts, &ts) == syscall.EINTR {
	}
}

// waitCallers waits up to d for every caller to return.
func waitCallers(running *int32, d time.Duration) {
	const step = 10 * time.Millisecond
	for t := time.Duration(0); atomic.LoadInt32(running) > 0 && t < d; t += step {
		sleepFor(step)
	}
}

func writeReport(cfg *config, r *report) {
	data, err := json.Marshal(r)
	if err != nil {
		fmt.Fprintf(os.Stderr, "go-target: %v\n", err)
		os.Exit(1)
	}
	data = append(data, '\n')
	if cfg.out == "" {
		_, err = os.Stdout.Write(data)
	} else {
		err = os.WriteFile(cfg.out, data, 0o644)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "go-target: %v\n", err)
		os.Exit(1)
	}
}

func main() {
	cfg := parseFlags()
	runtime.GOMAXPROCS(cfg.gomaxprocs)
	debug.SetGCPercent(cfg.gogc)
	st := &stats{}
	countSigurg(st)
	workIters := spinIters(cfg.work)

	r := &report{
		Type: "go_report", Pid: os.Getpid(), GoVersion: runtime.Version(),
		Gomaxprocs: cfg.gomaxprocs, Call: map[bool]string{true: "raw", false: "syscall"}[cfg.raw],
		Nr: cfg.nr, Callers: cfg.callers, Spinners: cfg.spinners,
		Allocators: cfg.allocators, WorkNs: cfg.work.Nanoseconds(), Gogc: cfg.gogc,
		TStart: monoNow(),
	}
	for i := 0; i < cfg.spinners; i++ {
		go spinner()
	}
	for i := 0; i < cfg.allocators; i++ {
		go allocator()
	}
	callers := make([]*caller, cfg.callers)
	running := int32(cfg.callers)
	for i := range callers {
		callers[i] = &caller{index: i}
		go callers[i].run(cfg, workIters, st, &running)
	}

	waitCallers(&running, cfg.duration)
	atomic.StoreInt32(&stopCalls, 1)
	waitCallers(&running, cfg.grace)
	atomic.StoreInt32(&stopLoad, 1)
	r.TEnd = monoNow()

	r.Issued = atomic.LoadInt64(&st.issued)
	r.Completed = atomic.LoadInt64(&st.completed)
	r.InFlight = r.Issued - r.Completed
	r.Eintr = atomic.LoadInt64(&st.eintr)
	r.Retries = atomic.LoadInt64(&st.retries)
	r.Errors = atomic.LoadInt64(&st.errors)
	r.Unexpected = atomic.LoadInt64(&st.unexpected)
	r.SigurgNotified = atomic.LoadInt64(&st.sigurg)
	r.GcCycles = gcCycles()
	r.Calls = []callRecord{}
	for _, c := range callers {
		r.Calls = append(r.Calls, c.snapshot()...)
	}
	writeReport(cfg, r)
	// Calls still blocked in the notified wait die with the process.
	os.Exit(0)
}
