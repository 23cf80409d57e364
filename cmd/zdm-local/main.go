// Command zdm-local runs the local ZDM server: the device management service
// (with its admin API) and the time-series storage service of the ZDM API,
// each on its own loopback listener, for local development and CI without
// credentials.
//
// Usage:
//
//	make local                  # builds bin/zdm-local, runs it with .zdm-local/
//	go build -o bin/zdm-local ./cmd/zdm-local && bin/zdm-local [flags]
//
// On start it prints the two base URLs and a bootstrap account, workspace and
// API key as `export ZDM_...=` lines, and writes the same lines to -env-file
// when given (written before the lines are printed), so a shell can source
// them:
//
//	bin/zdm-local -port 8080 -storage-port 8081 -env-file .zdm-local/zdm.env &
//	until [ -f .zdm-local/zdm.env ]; do sleep 0.2; done
//	. .zdm-local/zdm.env
//	curl -H "X-API-KEY: $ZDM_API_KEY" "$ZDM_BASE_URL/v3/workspaces"
//
// The lines set ZDM_BASE_URL, ZDM_STORAGE_URL, ZDM_ADMIN_URL, ZDM_API_KEY,
// ZDM_WORKSPACE_ID and ZDM_ACCOUNT_ID. Storage is enabled for the bootstrap
// workspace. With -state-file and no -bootstrap-* flags, a restart prints the
// same key and workspace.
//
// # State file
//
// With -state-file, one server at a time uses the file: it holds a lock on
// FILE.lock (which names its process ID) and a second server on the same file
// exits with an error naming that process. Every change is appended to a
// journal (FILE.journal.N) before its request is answered, and the journal is
// folded into FILE from time to time and on exit. A request answered 2xx is
// never lost when the process is killed (kill -9, a crash). With -sync it is
// also fsynced before the answer, so an operating system crash or power loss
// loses nothing answered either; without -sync such a crash can lose the
// changes of the last second. The cost of a change does not grow with the
// size of the state. Start-up refuses a state file that is not consistent,
// with one line naming the first problem.
//
// Flags:
//
//	-port N                     management service port (0 picks a free one)
//	-storage-port N             storage service port (0 picks a free one)
//	-state-file FILE            keep all state in FILE across restarts
//	-sync                       fsync each change before answering (with -state-file)
//	-env-file FILE              write the export lines to FILE (mode 0600)
//	-bootstrap-name NAME        name of the bootstrap account and workspace
//	-bootstrap-account-id ID    use (or create) this account ID
//	-bootstrap-workspace-id ID  use (or create) this workspace ID
//	-bootstrap-key KEY          use (or create) this API key
//	-bootstrap-storage=false    leave the storage service disabled
//	-devices-answer=false       simulated devices leave jobs and firmware updates pending
//	-devices-delay D            how long a device takes to answer (default 2s)
//	-devices-jitter D           adds up to D to each device's delay
//	-devices-failure-fraction F share of the devices whose firmware updates fail
//	-devices-silent-fraction F  share of the devices that never answer
//	-devices-seed N             picks the failing and silent devices, the health shares and the jitter
//	-devices-health=false       devices publish no health point after completing work
//	-devices-health-tag TAG     tag of a health point (default boot_ok)
//	-devices-health-payload J   payload of a health point, a JSON object (default {"ok":true})
//	-devices-health-error-tag TAG       tag of an error health point (default boot_error)
//	-devices-health-error-payload J     payload of an error health point (default {"ok":false})
//	-devices-health-silent-fraction F   share of the devices that publish no health point
//	-devices-health-error-fraction F    share of the devices that publish the error tag instead
//	-rate-limit N               requests per second allowed per API key (0: none; the admin API's rate_limit)
//	-rate-limit-headers FORM    quota headers on every answer under the limit: ietf, draft or x
//	-v                          log every request
//
// # Simulated devices
//
// The devices of zdm-local behave like a fleet: each completes the jobs
// (status done) and firmware updates (status done) scheduled on it
// -devices-delay after the scheduling, so configurations that wait for their
// commands finish. A share of them can fail their firmware updates or stay
// silent. Work scheduled while devices did not answer (before a restart, or
// before PUT $ZDM_ADMIN_URL/behavior turned them on) is answered under the
// behavior in effect. -devices-answer=false turns them off: jobs and
// updates then stay pending until the admin API sets their status.
//
// A device that completes a job or firmware update also publishes a health
// point into the storage service of its workspace (when it is enabled), as
// a device does once it has restarted: tag boot_ok, payload {"ok":true}
// with the job's name or the firmware ID and version, timestamped just
// after the status change. -devices-health-silent-fraction and
// -devices-health-error-fraction pick, by -devices-seed and the device
// names, the devices that publish nothing or boot_error and {"ok":false};
// -devices-health=false turns health points off.
//
// The admin API (see package internal/localzdm) is served under
// $ZDM_BASE_URL/admin/ to loopback clients; `curl $ZDM_ADMIN_URL/routes`
// lists its routes with their bodies. Through it a test can switch the
// server's answers where the API specification is silent (/admin/choices),
// inject faults into chosen requests (/admin/faults/requests) and change
// objects as if outside Terraform. The server stops cleanly on SIGINT or
// SIGTERM: it finishes the requests in flight, writes the state file and
// exits 0.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"math"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "zdm-local:", err)
		os.Exit(1)
	}
}

const usageHeader = `Usage: zdm-local [flags]

Runs the local ZDM management and storage services on 127.0.0.1 (-listen) and prints
export ZDM_...= lines (base URLs, admin URL, API key, workspace and account
IDs). Ctrl-C (SIGINT) or SIGTERM stops it cleanly.

With -state-file FILE, all state survives restarts. One server at a time uses
FILE (a second one exits naming the process that holds FILE.lock). Every
change is written to a journal (FILE.journal.N) before its request is
answered: an answered change survives kill -9 or a crash of the process.
With -sync each change is also fsynced before the answer, so it survives an
operating system crash or power loss too; without -sync such a crash can lose
the changes of the last second. A state file that is not consistent is
refused at start-up with one line naming the problem.

Simulated devices complete the jobs and firmware updates scheduled on them
-devices-delay later (some fail or stay silent with the -devices-*-fraction
flags); -devices-answer=false leaves them pending until the admin API sets
their status. Each completion also publishes a health point (tag boot_ok)
into the storage service of the device's workspace; -devices-health=false
turns that off.

Flags:
`

// version is set by the release build (goreleaser and make: -X main.version=...).
var version = "dev"

type config struct {
	listen            string
	allowRemote       bool
	showVersion       bool
	healthCheck       bool
	port, storagePort int
	stateFile         string
	sync              bool
	envFile           string
	bootstrap         localzdm.Bootstrap
	storage           bool
	verbose           bool
	devices           localzdm.DeviceBehavior
	// healthPayload and healthErrorPayload are the JSON of the flags.
	healthPayload, healthErrorPayload string
	// faults are the rate limit and its quota headers.
	faults localzdm.Faults
}

func parseFlags(args []string, stderr io.Writer) (*config, error) {
	var c config
	fs := flag.NewFlagSet("zdm-local", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), usageHeader)
		fs.PrintDefaults()
	}
	fs.StringVar(&c.listen, "listen", "127.0.0.1", "`address` (IP or host name) both services listen on; one that is not loopback needs -allow-remote")
	fs.BoolVar(&c.allowRemote, "allow-remote", false, "allow a -listen address that is not loopback (such as 0.0.0.0 in a container): the services answer plain HTTP, with no TLS, to anyone who reaches the address (the admin API, which has no key, still answers loopback clients only)")
	fs.BoolVar(&c.showVersion, "version", false, "print the version and exit")
	fs.BoolVar(&c.healthCheck, "health-check", false, "ask the server listening on -port of this machine whether it is ready (GET /admin/health) and exit 0 when it answers 200, 1 otherwise; for a container's health check, whose image has no other HTTP client")
	fs.IntVar(&c.port, "port", 0, "management service `port` on the -listen address (0 picks a free one)")
	fs.IntVar(&c.storagePort, "storage-port", 0, "storage service `port` on the -listen address (0 picks a free one)")
	fs.StringVar(&c.stateFile, "state-file", "", "keep all state in this `file` across restarts (locked while in use; an answered change survives kill -9)")
	fs.BoolVar(&c.sync, "sync", false, "with -state-file, fsync each change before answering: an answered change survives an OS crash or power loss too (without it, the last second can be lost)")
	fs.StringVar(&c.envFile, "env-file", "", "write the export ZDM_...= lines to this `file` (mode 0600)")
	fs.StringVar(&c.bootstrap.WorkspaceName, "bootstrap-name", "", "`name` of the bootstrap account and workspace (default \"local\")")
	fs.StringVar(&c.bootstrap.AccountID, "bootstrap-account-id", "", "use or create this account `ID` for the bootstrap workspace")
	fs.StringVar(&c.bootstrap.WorkspaceID, "bootstrap-workspace-id", "", "use or create this workspace `ID` for the bootstrap")
	fs.StringVar(&c.bootstrap.APIKey, "bootstrap-key", "", "use or create this API `key` for the bootstrap workspace")
	fs.BoolVar(&c.storage, "bootstrap-storage", true, "enable the storage service for the bootstrap workspace")
	fs.BoolVar(&c.devices.Enabled, "devices-answer", true, "simulated devices complete the jobs and firmware updates scheduled on them after -devices-delay (false: they stay pending until the admin API sets their status)")
	fs.DurationVar(&c.devices.Delay, "devices-delay", 2*time.Second, "how long after its scheduling a device answers a job or firmware update")
	fs.DurationVar(&c.devices.Jitter, "devices-jitter", 0, "adds up to this `duration` to each device's delay")
	fs.Float64Var(&c.devices.FailureFraction, "devices-failure-fraction", 0, "`share` (0 to 1) of the devices of a workspace whose firmware updates fail (status failed)")
	fs.Float64Var(&c.devices.SilentFraction, "devices-silent-fraction", 0, "`share` (0 to 1) of the devices of a workspace that never answer")
	fs.Uint64Var(&c.devices.Seed, "devices-seed", 0, "`seed` that picks the failing and silent devices, the health shares and the jitter")
	fs.BoolVar(&c.devices.PublishHealth, "devices-health", true, "a device that completes a job or firmware update publishes a health point into the storage service of its workspace (when enabled) just after the status change (false: none)")
	fs.StringVar(&c.devices.HealthTag, "devices-health-tag", localzdm.DefaultHealthTag, "`tag` of a health point")
	fs.StringVar(&c.healthPayload, "devices-health-payload", localzdm.DefaultHealthPayload, "payload of a health point, a `JSON object`; the keys job, or firmware_id and firmware_version, are added unless it sets them")
	fs.StringVar(&c.devices.HealthErrorTag, "devices-health-error-tag", localzdm.DefaultHealthErrorTag, "`tag` of an error health point")
	fs.StringVar(&c.healthErrorPayload, "devices-health-error-payload", localzdm.DefaultHealthErrorPayload, "payload of an error health point, a `JSON object`")
	fs.Float64Var(&c.devices.HealthSilentFraction, "devices-health-silent-fraction", 0, "`share` (0 to 1) of the devices of a workspace that publish no health point")
	fs.Float64Var(&c.devices.HealthErrorFraction, "devices-health-error-fraction", 0, "`share` (0 to 1) of the devices of a workspace that publish the error tag and payload instead")
	fs.Float64Var(&c.faults.RateLimit, "rate-limit", 0, "requests per second allowed per API key, a token bucket holding one second of them (0: no limit); as the admin API's rate_limit")
	fs.StringVar(&c.faults.RateLimitHeaders, "rate-limit-headers", "", "`form` of the quota headers sent on every answer under -rate-limit: ietf (RateLimit-Policy and RateLimit), draft (RateLimit-Limit, -Remaining, -Reset) or x (X-RateLimit-*); as the admin API's rate_limit_headers")
	fs.BoolVar(&c.verbose, "v", false, "log every request")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	for name, p := range map[string]int{"-port": c.port, "-storage-port": c.storagePort} {
		if p < 0 || p > 65535 {
			return nil, fmt.Errorf("%s must be between 0 and 65535, got %d", name, p)
		}
	}
	if err := checkListen(c.listen, c.allowRemote); err != nil {
		return nil, err
	}
	if c.sync && c.stateFile == "" {
		return nil, errors.New("-sync needs -state-file")
	}
	if c.port != 0 && c.port == c.storagePort {
		return nil, errors.New("-port and -storage-port must differ")
	}
	for name, d := range map[string]time.Duration{"-devices-delay": c.devices.Delay, "-devices-jitter": c.devices.Jitter} {
		if d < 0 || d > localzdm.MaxFaultDelay {
			return nil, fmt.Errorf("%s must be between 0 and %s, got %s", name, localzdm.MaxFaultDelay, d)
		}
	}
	for name, f := range map[string]float64{"-devices-failure-fraction": c.devices.FailureFraction, "-devices-silent-fraction": c.devices.SilentFraction} {
		if !(f >= 0 && f <= 1) {
			return nil, fmt.Errorf("%s must be between 0 and 1, got %g", name, f)
		}
	}
	if c.devices.FailureFraction+c.devices.SilentFraction > 1 {
		return nil, errors.New("-devices-failure-fraction and -devices-silent-fraction must add up to at most 1")
	}
	if err := c.checkHealth(); err != nil {
		return nil, err
	}
	if r := c.faults.RateLimit; !(r >= 0) || math.IsInf(r, 0) {
		return nil, fmt.Errorf("-rate-limit must be a finite number >= 0, got %g", r)
	}
	if err := localzdm.CheckQuotaForm("-rate-limit-headers", c.faults.RateLimitHeaders); err != nil {
		return nil, message(err)
	}
	return &c, nil
}

// checkHealth checks the -devices-health-* flags and sets the payloads.
func (c *config) checkHealth() error {
	d := &c.devices
	for name, f := range map[string]float64{"-devices-health-silent-fraction": d.HealthSilentFraction, "-devices-health-error-fraction": d.HealthErrorFraction} {
		if !(f >= 0 && f <= 1) {
			return fmt.Errorf("%s must be between 0 and 1, got %g", name, f)
		}
	}
	if d.HealthSilentFraction+d.HealthErrorFraction > 1 {
		return errors.New("-devices-health-silent-fraction and -devices-health-error-fraction must add up to at most 1")
	}
	for name, tag := range map[string]string{"-devices-health-tag": d.HealthTag, "-devices-health-error-tag": d.HealthErrorTag} {
		if err := localzdm.CheckHealthTag(name, tag); err != nil {
			return message(err)
		}
	}
	var err error
	if d.HealthPayload, err = localzdm.ParseHealthPayload("-devices-health-payload", []byte(c.healthPayload)); err != nil {
		return message(err)
	}
	if d.HealthErrorPayload, err = localzdm.ParseHealthPayload("-devices-health-error-payload", []byte(c.healthErrorPayload)); err != nil {
		return message(err)
	}
	return nil
}

// message is the message of a server error, without its status and code.
func message(err error) error {
	var le *localzdm.Error
	if errors.As(err, &le) {
		return errors.New(le.Message)
	}
	return err
}

// run serves until ctx ends, then shuts down.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c, err := parseFlags(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if c.showVersion {
		bi, _ := debug.ReadBuildInfo()
		_, err := fmt.Fprintf(stdout, "zdm-local %s\n", buildVersion(version, bi))
		return err
	}
	if c.healthCheck {
		return healthCheck(ctx, c.listen, c.port, stdout)
	}
	logger := log.New(stderr, "", log.LstdFlags)
	if !isLoopback(c.listen) {
		logger.Printf("zdm-local: WARNING: listening on %s, which is not loopback: anyone who reaches this address "+
			"can use the services, over plain HTTP (the API key travels unencrypted); the admin API, which has no key, "+
			"still answers loopback clients only", c.listen)
	}
	srv, err := localzdm.New(localzdm.Options{StateFile: c.stateFile, Sync: c.sync, Logger: logger, LogRequests: c.verbose,
		DeviceBehavior: c.devices})
	if err != nil {
		return err
	}
	if c.faults != (localzdm.Faults{}) {
		srv.SetFaults(c.faults)
	}
	if err := srv.Start(net.JoinHostPort(c.listen, strconv.Itoa(c.port)), net.JoinHostPort(c.listen, strconv.Itoa(c.storagePort))); err != nil {
		return errors.Join(err, srv.Close())
	}
	b, err := srv.EnsureBootstrap(c.bootstrap)
	if err == nil && c.storage {
		err = srv.SetStorage(b.WorkspaceID, true)
	}
	if err == nil {
		err = srv.Sync() // the key printed is saved
	}
	if err != nil {
		return errors.Join(fmt.Errorf("bootstrap: %w", err), srv.Close())
	}
	env := envLines(srv, b)
	if c.envFile != "" {
		if err := writeEnvFile(c.envFile, env); err != nil {
			return errors.Join(err, srv.Close())
		}
	}
	if _, err := fmt.Fprintf(stdout, "zdm-local: management service %s, storage service %s (Ctrl-C to stop)\n%s",
		srv.BaseURL(), srv.StorageURL(), env); err != nil {
		return errors.Join(err, srv.Close())
	}
	<-ctx.Done()
	logger.Print("zdm-local: shutting down")
	return srv.Close()
}

// buildVersion is the version -version prints: the one stamped by the
// release build or make (-X main.version), else the module version that
// `go install ...@vX.Y.Z` records in the build info (without its "v", as
// the releases print it), else "dev".
func buildVersion(stamped string, bi *debug.BuildInfo) string {
	if stamped != "dev" || bi == nil {
		return stamped
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return strings.TrimPrefix(v, "v")
	}
	return stamped
}

// checkListen checks -listen: an IP or a host name, loopback unless
// allowRemote.
func checkListen(host string, allowRemote bool) error {
	if strings.TrimSpace(host) == "" || strings.ContainsAny(host, "/ []") {
		return fmt.Errorf("-listen must be an IP address or a host name without a port, got %q", host)
	}
	if !isLoopback(host) && !allowRemote {
		return fmt.Errorf("-listen %s is not a loopback address: anyone who reaches it could use the services, over "+
			"plain HTTP; add -allow-remote to listen there anyway (in a container or a CI service)", host)
	}
	return nil
}

// isLoopback reports whether host is a loopback IP or "localhost".
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func envLines(srv *localzdm.Server, b localzdm.Bootstrap) string {
	var sb strings.Builder
	for _, kv := range [][2]string{
		{"ZDM_BASE_URL", srv.BaseURL()},
		{"ZDM_STORAGE_URL", srv.StorageURL()},
		{"ZDM_ADMIN_URL", srv.AdminURL()},
		{"ZDM_API_KEY", b.APIKey},
		{"ZDM_WORKSPACE_ID", b.WorkspaceID},
		{"ZDM_ACCOUNT_ID", b.AccountID},
	} {
		fmt.Fprintf(&sb, "export %s=%s\n", kv[0], shellQuote(kv[1]))
	}
	return sb.String()
}

// shellQuote quotes a value for a POSIX shell when it needs it.
func shellQuote(v string) string {
	unsafe := func(r rune) bool {
		safe := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:@%+=,", r)
		return !safe
	}
	if v != "" && strings.IndexFunc(v, unsafe) < 0 {
		return v
	}
	return "'" + strings.ReplaceAll(v, "'", `'\''`) + "'"
}

// writeEnvFile writes the file atomically (temp file + rename), mode 0600
// since it holds an API key.
func writeEnvFile(path string, content string) error {
	dir, base := filepath.Split(filepath.Clean(path))
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("env file: %w", err)
	}
	if _, err := f.WriteString(content); err != nil {
		_ = f.Close()
		_ = os.Remove(f.Name())
		return fmt.Errorf("env file: %w", err)
	}
	if err := f.Close(); err != nil {
		_ = os.Remove(f.Name())
		return fmt.Errorf("env file: %w", err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		_ = os.Remove(f.Name())
		return fmt.Errorf("env file: %w", err)
	}
	return nil
}

// healthCheck asks the server on listen:port of this machine whether it is
// ready: GET /admin/health must answer 200 within five seconds. A wildcard
// listen address (0.0.0.0, ::) is asked on the loopback address of its
// family, where the admin API answers.
func healthCheck(ctx context.Context, listen string, port int, stdout io.Writer) error {
	if port <= 0 {
		return errors.New("-health-check needs the -port of the server to ask")
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	url := "http://" + net.JoinHostPort(localzdm.ClientHost(listen), strconv.Itoa(port)) + "/admin/health"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("zdm-local is not ready at %s: %w", url, err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("zdm-local on port %d is not ready: GET /admin/health answered %s", port, resp.Status)
	}
	_, err = fmt.Fprintf(stdout, "zdm-local on port %d is ready\n", port)
	return err
}
