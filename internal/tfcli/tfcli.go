// Package tfcli runs the Terraform CLI against a provider served by the
// calling process, the way Terraform runs a provider under a debugger: the
// provider is served in-process and Terraform attaches to it through
// TF_REATTACH_PROVIDERS. No provider binary is built or installed.
//
// Tests use it for the commands the testing framework does not drive (such
// as terraform query -generate-config-out); benchmarks use it to time whole
// Terraform commands:
//
//	s, err := tfcli.Start(tfcli.Options{
//		Address:   "registry.terraform.io/zdm/zdm",
//		Server:    providerserver.NewProtocol6(provider.New("bench")()),
//		Terraform: terraformPath,
//		Dir:       dir,
//	})
//	if err != nil { ... }
//	defer s.Close()
//	res, err := s.Run(ctx, "query", "-generate-config-out=generated.tf")
package tfcli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"
)

// Options configure Start.
type Options struct {
	// Address is the provider's registry address, such as
	// "registry.terraform.io/zdm/zdm"; configurations must name the provider
	// with the matching source ("zdm/zdm") in required_providers.
	Address string
	// Server creates the protocol 6 server of the provider, such as
	// providerserver.NewProtocol6(provider.New("test")()).
	Server func() tfprotov6.ProviderServer
	// Terraform is the path of the Terraform CLI.
	Terraform string
	// Dir is the working directory of the commands; it must exist.
	Dir string
	// Env is added to the environment of the commands (KEY=value).
	Env []string
	// ServeOpts are added to the options of the provider server. By default
	// the provider's logs go to standard error filtered by TF_LOG (off when
	// unset), the way Terraform filters them; pass
	// tf6server.WithLoggingSink(t) to route them through a test instead.
	ServeOpts []tf6server.ServeOpt
}

// Session is a provider served in-process and a working directory in which
// Terraform commands attach to it.
type Session struct {
	// Dir is the working directory.
	Dir       string
	terraform string
	env       []string
	cancel    context.CancelFunc
	closed    chan struct{}
}

// Start serves the provider and returns a session whose commands attach to
// it. Close the session to stop the server.
func Start(opts Options) (*Session, error) {
	switch {
	case opts.Address == "" || opts.Server == nil:
		return nil, errors.New("tfcli: Address and Server are required")
	case opts.Terraform == "":
		return nil, errors.New("tfcli: no Terraform CLI path")
	}
	if info, err := os.Stat(opts.Dir); err != nil || !info.IsDir() {
		return nil, fmt.Errorf("tfcli: working directory %q does not exist", opts.Dir)
	}

	ctx, cancel := context.WithCancel(context.Background())
	reattach := make(chan *plugin.ReattachConfig, 1)
	closed := make(chan struct{})
	serveErr := make(chan error, 1)
	serveOpts := []tf6server.ServeOpt{
		tf6server.WithDebug(ctx, reattach, closed),
		tf6server.WithGoPluginLogger(hclog.NewNullLogger()),
	}
	if len(opts.ServeOpts) == 0 {
		serveOpts = append(serveOpts, tf6server.WithLoggingSink(logSink{}))
	}
	serveOpts = append(serveOpts, opts.ServeOpts...)
	go func() {
		serveErr <- tf6server.Serve(opts.Address, opts.Server, serveOpts...)
	}()
	var rc *plugin.ReattachConfig
	select {
	case rc = <-reattach:
	case err := <-serveErr:
		cancel()
		return nil, fmt.Errorf("tfcli: serve the provider: %w", err)
	case <-time.After(30 * time.Second):
		cancel()
		return nil, errors.New("tfcli: serve the provider: no reattach configuration after 30s")
	}
	if rc == nil {
		cancel()
		return nil, errors.New("tfcli: serve the provider: no reattach configuration")
	}

	js, err := reattachJSON(opts.Address, rc)
	if err != nil {
		cancel()
		return nil, err
	}
	// An empty CLI configuration: no credentials, mirrors or overrides of the
	// user's apply to the commands.
	cliConfig := filepath.Join(opts.Dir, ".terraformrc")
	if err := os.WriteFile(cliConfig, nil, 0o600); err != nil {
		cancel()
		return nil, fmt.Errorf("tfcli: %w", err)
	}
	env := append(os.Environ(),
		"TF_REATTACH_PROVIDERS="+js,
		"TF_CLI_CONFIG_FILE="+cliConfig,
		"TF_IN_AUTOMATION=1",
		"TF_INPUT=0",
		"CHECKPOINT_DISABLE=1",
	)
	env = append(env, opts.Env...)
	return &Session{Dir: opts.Dir, terraform: opts.Terraform, env: env, cancel: cancel, closed: closed}, nil
}

// reattachJSON is the TF_REATTACH_PROVIDERS value naming rc as address.
func reattachJSON(address string, rc *plugin.ReattachConfig) (string, error) {
	type addr struct{ Network, String string }
	type config struct {
		Protocol        string
		ProtocolVersion int
		Pid             int
		Test            bool
		Addr            addr
	}
	js, err := json.Marshal(map[string]config{address: {
		Protocol:        string(rc.Protocol),
		ProtocolVersion: rc.ProtocolVersion,
		Pid:             rc.Pid,
		Test:            rc.Test,
		Addr:            addr{Network: rc.Addr.Network(), String: rc.Addr.String()},
	}})
	if err != nil {
		return "", fmt.Errorf("tfcli: reattach configuration: %w", err)
	}
	return string(js), nil
}

// Close stops the provider server and waits up to 10 seconds for it.
func (s *Session) Close() error {
	s.cancel()
	select {
	case <-s.closed:
		return nil
	case <-time.After(10 * time.Second):
		return errors.New("tfcli: the provider server did not stop within 10s")
	}
}

// WriteFile writes a file of the working directory; name may not leave it.
func (s *Session) WriteFile(name, content string) error {
	root, err := os.OpenRoot(s.Dir)
	if err != nil {
		return err
	}
	defer root.Close()
	return root.WriteFile(name, []byte(content), 0o600)
}

// ReadFile returns the content of a file of the working directory; name may
// not leave it.
func (s *Session) ReadFile(name string) (string, error) {
	root, err := os.OpenRoot(s.Dir)
	if err != nil {
		return "", err
	}
	defer root.Close()
	b, err := root.ReadFile(name)
	return string(b), err
}

// Result is the outcome of a command.
type Result struct {
	// Output is the combined standard output and error.
	Output string
	// ExitCode is the exit code of the CLI.
	ExitCode int
	// Duration is the wall time of the command.
	Duration time.Duration
}

// Run runs terraform with args in the working directory. The error is only
// set when the CLI could not run; a failing command has a non-zero ExitCode.
func (s *Session) Run(ctx context.Context, args ...string) (Result, error) {
	cmd := exec.CommandContext(ctx, s.terraform, args...) //nolint:gosec // G204: the CLI and arguments the caller chose.
	cmd.Dir = s.Dir
	cmd.Env = s.env
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	start := time.Now()
	err := cmd.Run()
	res := Result{Output: out.String(), Duration: time.Since(start)}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		res.ExitCode = exit.ExitCode()
	case err != nil:
		return res, fmt.Errorf("tfcli: terraform %s: %w", strings.Join(args, " "), err)
	}
	return res, nil
}

// Command is a command started with Session.Start, running until Wait.
type Command struct {
	cmd   *exec.Cmd
	out   *lockedBuffer
	start time.Time
}

// Start starts terraform with args in the working directory and returns
// without waiting for it, so that the caller can signal it (see
// Command.Signal). Wait for it with Command.Wait.
func (s *Session) Start(ctx context.Context, args ...string) (*Command, error) {
	cmd := exec.CommandContext(ctx, s.terraform, args...) //nolint:gosec // G204: the CLI and arguments the caller chose.
	cmd.Dir = s.Dir
	cmd.Env = s.env
	out := &lockedBuffer{}
	cmd.Stdout = out
	cmd.Stderr = out
	c := &Command{cmd: cmd, out: out, start: time.Now()}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("tfcli: terraform %s: %w", strings.Join(args, " "), err)
	}
	return c, nil
}

// Signal sends sig to the running CLI, such as os.Interrupt for a Ctrl-C.
func (c *Command) Signal(sig os.Signal) error {
	return c.cmd.Process.Signal(sig)
}

// Output returns what the CLI printed so far.
func (c *Command) Output() string {
	return c.out.String()
}

// Wait waits for the CLI to exit. The error is only set when the CLI could
// not run to its end; a failing command has a non-zero ExitCode.
func (c *Command) Wait() (Result, error) {
	err := c.cmd.Wait()
	res := Result{Output: c.out.String(), Duration: time.Since(c.start)}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		res.ExitCode = exit.ExitCode()
	case err != nil:
		return res, fmt.Errorf("tfcli: %w", err)
	}
	return res, nil
}

// lockedBuffer is a bytes.Buffer safe for a writer and concurrent readers.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
