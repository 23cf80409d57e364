package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// procPeak is what was seen of the provider processes of one command.
type procPeak struct {
	// RSS is the largest peak resident set size (VmHWM) of one process, in bytes.
	RSS int64
	// CPU is the user and system CPU time of all of them.
	CPU time.Duration
	// Procs is the number of provider processes.
	Procs int
}

// commName is how Linux names a process running the binary name in /proc
// (the first 15 bytes).
func commName(name string) string {
	if len(name) > 15 {
		return name[:15]
	}
	return name
}

// clockTick is the unit of the CPU times of /proc/<pid>/stat (USER_HZ, 100
// on every Linux architecture Go supports).
const clockTick = 10 * time.Millisecond

// watchChildren polls the children of pid whose command is name until stop
// is closed, and then sends their peak RSS and CPU time. VmHWM is a
// high-water mark kept by the kernel, so polling misses only growth in the
// last interval before a process ends.
func watchChildren(pid int, name string, stop <-chan struct{}) <-chan procPeak {
	out := make(chan procPeak, 1)
	comm := commName(name)
	go func() {
		hwm := map[int]int64{}
		cpu := map[int]time.Duration{}
		poll := func() {
			for _, child := range childrenOf(pid) {
				c, ticks, ok := readStat(child)
				if !ok || c != comm {
					continue
				}
				if _, seen := hwm[child]; !seen {
					hwm[child] = 0
				}
				if ticks > 0 {
					cpu[child] = time.Duration(ticks) * clockTick
				}
				if v := readVmHWM(child); v > hwm[child] {
					hwm[child] = v
				}
			}
		}
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			poll()
			select {
			case <-stop:
				var p procPeak
				for child, v := range hwm {
					p.Procs++
					p.RSS = max(p.RSS, v)
					p.CPU += cpu[child]
				}
				out <- p
				return
			case <-t.C:
			}
		}
	}()
	return out
}

// childrenOf lists the children of pid from /proc/<pid>/task/*/children.
func childrenOf(pid int) []int {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	var out []int
	for _, f := range tasks {
		b, err := os.ReadFile(f) //nolint:gosec // G304: a file of /proc.
		if err != nil {
			continue
		}
		for _, s := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(s); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

// readStat returns the command name and the user+system CPU ticks of pid.
func readStat(pid int) (string, int64, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return "", 0, false
	}
	open, closing := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || closing < open {
		return "", 0, false
	}
	comm := string(b[open+1 : closing])
	// Fields after the command: state(3) ppid(4) ... utime(14) stime(15).
	f := strings.Fields(string(b[closing+1:]))
	if len(f) < 13 {
		return comm, 0, true
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return comm, ut + st, true
}

// readVmHWM returns the peak RSS of pid in bytes (0 when unknown).
func readVmHWM(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				kb, _ := strconv.ParseInt(f[0], 10, 64)
				return kb << 10
			}
		}
	}
	return 0
}

// debugProvider is a provider binary served in debug mode: Terraform
// attaches to it through TF_REATTACH_PROVIDERS instead of starting it.
type debugProvider struct {
	cmd      *exec.Cmd
	reattach string
	done     chan struct{}
}

// startDebugProvider runs bin -debug with env and waits for its reattach
// configuration.
func startDebugProvider(ctx context.Context, bin string, env []string) (*debugProvider, error) {
	cmd := exec.CommandContext(ctx, bin, "-debug") //nolint:gosec // G204: the provider the benchmark built.
	cmd.Env = env
	cmd.Stderr = io.Discard
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &debugProvider{cmd: cmd, done: make(chan struct{})}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		sent := false
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			if v, ok := strings.CutPrefix(line, "TF_REATTACH_PROVIDERS='"); ok && !sent {
				found <- strings.TrimSuffix(v, "'")
				sent = true
			}
		}
		_, _ = io.Copy(io.Discard, stdout)
		close(p.done)
	}()
	select {
	case p.reattach = <-found:
		return p, nil
	case <-p.done:
		_ = cmd.Wait()
		return nil, errors.New("the provider in debug mode ended without a reattach configuration")
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, errors.New("no reattach configuration from the provider after 30s")
	}
}

// stop interrupts the provider and returns its peak RSS and CPU time. The
// peak RSS is read from /proc before the provider ends: the rusage of a
// child started with vfork, as Go starts them, also counts the parent's
// memory at the time of the fork.
func (p *debugProvider) stop() (procPeak, error) {
	hwm := readVmHWM(p.cmd.Process.Pid)
	_ = p.cmd.Process.Signal(os.Interrupt)
	timer := time.AfterFunc(10*time.Second, func() { _ = p.cmd.Process.Kill() })
	defer timer.Stop()
	<-p.done
	err := p.cmd.Wait()
	st := p.cmd.ProcessState
	if st == nil {
		return procPeak{}, err
	}
	return procPeak{Procs: 1, CPU: st.UserTime() + st.SystemTime(), RSS: hwm}, nil
}
