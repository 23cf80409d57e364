package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
	"github.com/zdm/terraform-provider-zdm/internal/logging"
)

// providerAddress is the provider's source address in configurations.
const providerAddress = "registry.terraform.io/zdm/zdm"

// providerBinary is the name of the built provider.
const providerBinary = "terraform-provider-zdm"

// bench holds what the steps share: the local server, the provider binary
// and the Terraform CLI.
type bench struct {
	o         options
	root      string
	work      string
	srv       *localzdm.Server
	provider  string // binary
	cliConfig string
	// nullProvider and nullConfig are the null provider's binary (a link
	// to this program) and CLI configuration; empty without -floor.
	nullProvider string
	nullConfig   string
	wsCount      int
}

func newBench(ctx context.Context, o options, root, work string) (*bench, error) {
	b := &bench{o: o, root: root, work: work}
	pluginDir := filepath.Join(work, "plugins")
	b.provider = filepath.Join(pluginDir, providerBinary)
	logf("building the provider")
	build := exec.CommandContext(ctx, "go", "build", "-o", b.provider, ".") //nolint:gosec // G204: builds this repository's provider.
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go build: %w: %s", err, out)
	}
	// dev_overrides: Terraform runs the built binary without init; with
	// -reattach the provider is served by us instead.
	b.cliConfig = filepath.Join(work, "cli.tfrc")
	if err := writeCLIConfig(b.cliConfig, pluginDir); err != nil {
		return nil, err
	}
	if o.floor {
		self, err := os.Executable()
		if err != nil {
			return nil, err
		}
		nullDir := filepath.Join(work, "null-plugins")
		b.nullProvider = filepath.Join(nullDir, providerBinary)
		b.nullConfig = filepath.Join(work, "cli-null.tfrc")
		if err := os.MkdirAll(nullDir, 0o750); err != nil {
			return nil, err
		}
		if err := os.Symlink(self, b.nullProvider); err != nil {
			return nil, err
		}
		if err := writeCLIConfig(b.nullConfig, nullDir); err != nil {
			return nil, err
		}
	}
	srv, err := localzdm.New(localzdm.Options{})
	if err != nil {
		return nil, err
	}
	if err := srv.Start("127.0.0.1:0", "127.0.0.1:0"); err != nil {
		return nil, err
	}
	b.srv = srv
	logf("local server at %s (storage %s)", srv.BaseURL(), srv.StorageURL())
	return b, nil
}

// writeCLIConfig writes a CLI configuration whose dev_overrides serve the
// provider from dir.
func writeCLIConfig(path, dir string) error {
	cfg := fmt.Sprintf("provider_installation {\n  dev_overrides {\n    %q = %q\n  }\n  direct {}\n}\n", providerAddress, dir)
	return os.WriteFile(path, []byte(cfg), 0o600)
}

func (b *bench) close() {
	if b.srv != nil {
		if err := b.srv.Close(); err != nil {
			logf("closing the local server: %v", err)
		}
	}
}

// workspace bootstraps a new account, workspace and key, so that every run
// lists only its own devices.
func (b *bench) workspace(label string) (localzdm.Bootstrap, error) {
	b.wsCount++
	return b.srv.Bootstrap(fmt.Sprintf("bench-%d-%s", b.wsCount, label))
}

// env is the environment of the Terraform CLI and of the provider: the
// caller's without Terraform and ZDM settings, plus the CLI configuration
// cliConfig and the provider's settings for workspace ws.
func (b *bench) env(ws localzdm.Bootstrap, cliConfig string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "TF_") || strings.HasPrefix(kv, "ZDM_") {
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"TF_CLI_CONFIG_FILE="+cliConfig,
		"TF_IN_AUTOMATION=1",
		"TF_INPUT=0",
		"CHECKPOINT_DISABLE=1",
		"ZDM_BASE_URL="+b.srv.BaseURL(),
		"ZDM_STORAGE_URL="+b.srv.StorageURL(),
		"ZDM_API_KEY="+ws.APIKey,
		"ZDM_WORKSPACE_ID="+ws.WorkspaceID,
	)
}

// measurement is one step of one configuration.
type measurement struct {
	// Wall is the wall time (the median of Runs).
	Wall time.Duration `json:"wall_ns"`
	// Runs are the wall times of each run.
	Runs []time.Duration `json:"runs_ns,omitempty"`
	// Requests are the API requests by route, of the run that made the most.
	Requests map[string]int64 `json:"requests,omitempty"`
	// RSS is the provider's peak resident set size in bytes (the largest
	// of the runs; 0 without provider).
	RSS int64 `json:"provider_peak_rss,omitempty"`
	// CPU is the provider's CPU time (of the last run).
	CPU time.Duration `json:"provider_cpu_ns,omitempty"`
	// TotalCPU is the CPU time of Terraform and the provider processes it
	// started (the median of the runs); with -reattach, of Terraform and the
	// served provider.
	TotalCPU time.Duration `json:"total_cpu_ns"`
	// CPURuns are the TotalCPU of each run.
	CPURuns []time.Duration `json:"total_cpu_runs_ns,omitempty"`
	// Procs is the number of provider processes of the last run.
	Procs int `json:"provider_processes,omitempty"`
}

// totalRequests is the sum of m.Requests.
func (m measurement) totalRequests() int64 {
	var n int64
	for _, v := range m.Requests {
		n += v
	}
	return n
}

// add records one run.
func (m *measurement) add(r cmdResult) {
	m.Runs = append(m.Runs, r.Wall)
	sorted := slices.Clone(m.Runs)
	slices.Sort(sorted)
	m.Wall = sorted[len(sorted)/2]
	m.CPURuns = append(m.CPURuns, r.CPU)
	m.TotalCPU = median(m.CPURuns)
	if r.totalRequests() >= m.totalRequests() {
		m.Requests = r.Requests
	}
	m.RSS = max(m.RSS, r.Provider.RSS)
	m.CPU = r.Provider.CPU
	m.Procs = r.Provider.Procs
}

// cmdResult is the outcome of one Terraform command.
type cmdResult struct {
	Wall     time.Duration
	CPU      time.Duration // Terraform's and its children's
	Requests map[string]int64
	Provider procPeak
	Output   string
	ExitCode int
}

// terraform runs the CLI with args in the directory of c and measures it.
// The API counters are reset first; wantCodes are the exit codes that count
// as success.
func (b *bench) terraform(ctx context.Context, c *config, wantCodes []int, args ...string) (cmdResult, error) {
	var res cmdResult
	var dbg *debugProvider
	env := c.env
	if b.o.reattach && c.provider != "" {
		var err error
		if dbg, err = startDebugProvider(ctx, c.provider, logging.QuietEnv(env)); err != nil {
			return res, err
		}
		env = append(slices.Clone(env), "TF_REATTACH_PROVIDERS="+dbg.reattach)
	}
	dir := c.dir
	cmd := exec.CommandContext(ctx, b.o.terraform, args...) //nolint:gosec // G204: the CLI and arguments of the benchmark.
	cmd.Dir = dir
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	b.srv.ResetCounters()
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return res, err
	}
	stop := make(chan struct{})
	var peaks <-chan procPeak
	if dbg == nil {
		peaks = watchChildren(cmd.Process.Pid, providerBinary, stop)
	}
	err := cmd.Wait()
	res.Wall = time.Since(start)
	close(stop)
	if st := cmd.ProcessState; st != nil {
		res.CPU = st.UserTime() + st.SystemTime()
	}
	res.Requests = b.srv.Counters()
	res.Output = out.String()
	if dbg != nil {
		p, serr := dbg.stop()
		if serr != nil {
			logf("provider in debug mode: %v", serr)
		}
		res.Provider = p
		res.CPU += p.CPU
	} else {
		res.Provider = <-peaks
	}
	var exitErr *exec.ExitError
	switch {
	case errors.As(err, &exitErr):
		res.ExitCode = exitErr.ExitCode()
	case err != nil:
		return res, err
	}
	if !slices.Contains(wantCodes, res.ExitCode) {
		return res, fmt.Errorf("terraform %s in %s: exit code %d:\n%s", strings.Join(args, " "), dir, res.ExitCode, tail(res.Output, 40))
	}
	return res, nil
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// config is a working directory of one configuration, the environment of
// its commands, and its provider binary ("" for none).
type config struct {
	dir      string
	env      []string
	provider string
}

// newConfig prepares the directory name for the real provider (the null
// provider with null) in workspace ws.
func (b *bench) newConfig(name string, ws localzdm.Bootstrap, null bool) (*config, error) {
	dir := filepath.Join(b.work, name)
	if err := os.MkdirAll(dir, 0o750); err != nil { //nolint:gosec // G703: a directory of the benchmark's own.
		return nil, err
	}
	if null {
		return &config{dir: dir, env: b.env(ws, b.nullConfig), provider: b.nullProvider}, nil
	}
	return &config{dir: dir, env: b.env(ws, b.cliConfig), provider: b.provider}, nil
}

func (c *config) write(file, content string) error {
	return os.WriteFile(filepath.Join(c.dir, file), []byte(content), 0o600) //nolint:gosec // G703: a file of the benchmark's own directory.
}

// requiredProviders names the provider's source for dev_overrides and reattach.
const requiredProviders = `terraform {
  required_providers {
    zdm = {
      source = "zdm/zdm"
    }
  }
}
`

// devicesConfig is N devices named prefix-<index>; the provider's settings
// come from the environment.
func devicesConfig(n int, prefix string) string {
	return requiredProviders + fmt.Sprintf(`
provider "zdm" {}

resource "zdm_device" "d" {
  count = %d
  name  = "%s-${count.index}"
}
`, n, prefix)
}

// baselineConfig is N terraform_data resources holding prefix-<index>.
func baselineConfig(n int, prefix string) string {
	return fmt.Sprintf(`resource "terraform_data" "d" {
  count = %d
  input = "%s-${count.index}"
}
`, n, prefix)
}

func (r cmdResult) totalRequests() int64 {
	return measurement{Requests: r.Requests}.totalRequests()
}

// countDevices counts the devices of workspace ws whose name starts with
// prefix.
func countDevices(ctx context.Context, srv *localzdm.Server, ws localzdm.Bootstrap, prefix string) (int, error) {
	c, err := client.New(client.Config{BaseURL: srv.BaseURL(), APIKey: ws.APIKey})
	if err != nil {
		return 0, err
	}
	all, err := c.ListDevices(ctx, ws.WorkspaceID)
	n := 0
	for _, d := range all {
		if strings.HasPrefix(d.Name, prefix) {
			n++
		}
	}
	return n, err
}
