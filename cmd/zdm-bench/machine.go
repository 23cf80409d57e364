package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// machine describes where the benchmark ran.
type machine struct {
	CPUs      int       `json:"cpus"`
	CPUModel  string    `json:"cpu_model"`
	MemoryGiB float64   `json:"memory_gib"`
	LoadStart string    `json:"load_average_start"`
	Kernel    string    `json:"kernel"`
	GoVersion string    `json:"go_version"`
	Terraform string    `json:"terraform_version"`
	Started   time.Time `json:"started"`
}

func describeMachine(ctx context.Context, terraform string) machine {
	m := machine{
		CPUs:      runtime.NumCPU(),
		CPUModel:  "unknown",
		GoVersion: runtime.Version(),
		Started:   time.Now().UTC(),
		LoadStart: loadAverage(),
	}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for line := range strings.SplitSeq(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPUModel = strings.TrimSpace(v)
				break
			}
		}
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		for line := range strings.SplitSeq(string(b), "\n") {
			if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
				f := strings.Fields(rest)
				if len(f) > 0 {
					kb, _ := strconv.ParseFloat(f[0], 64)
					m.MemoryGiB = kb / (1 << 20)
				}
			}
		}
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = "Linux " + strings.TrimSpace(string(b))
	}
	out, err := exec.CommandContext(ctx, terraform, "version", "-json").Output()
	if err == nil {
		var v struct {
			Version string `json:"terraform_version"`
		}
		if json.Unmarshal(out, &v) == nil {
			m.Terraform = v.Version
		}
	}
	return m
}

// loadAverage returns the 1, 5 and 15 minute load averages.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// repoRoot finds the directory of the provider module's go.mod above the
// working directory (the bench's own go.mod, cmd/zdm-bench/go.mod, names
// another module).
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && //nolint:gosec // G304: go.mod files above the working directory.
			bytes.Contains(b, []byte("module github.com/zdm/terraform-provider-zdm\n")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("run zdm-bench inside the terraform-provider-zdm repository")
		}
		dir = parent
	}
}

// installTerraform runs scripts/install-terraform.sh and returns the path it
// prints last.
func installTerraform(ctx context.Context, root string) (string, error) {
	cmd := exec.CommandContext(ctx, "bash", filepath.Join(root, "scripts", "install-terraform.sh")) //nolint:gosec // G204: the repository's script.
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("scripts/install-terraform.sh: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	p := strings.TrimSpace(lines[len(lines)-1])
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("scripts/install-terraform.sh printed %q: %w", p, err)
	}
	return p, nil
}
