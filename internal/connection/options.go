package connection

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/client"
)

// Environment variables read when the matching provider attribute is null.
const (
	EnvBaseURL        = "ZDM_BASE_URL"
	EnvStorageURL     = "ZDM_STORAGE_URL"
	EnvAPIKey         = "ZDM_API_KEY" //nolint:gosec // G101: the name of a variable, not a credential.
	EnvWorkspaceID    = "ZDM_WORKSPACE_ID"
	EnvRequestTimeout = "ZDM_REQUEST_TIMEOUT"
	EnvMaxRetries     = "ZDM_MAX_RETRIES"
	EnvInsecureHTTP   = "ZDM_INSECURE_HTTP"
	EnvMaxRequests    = "ZDM_MAX_REQUESTS_PER_SECOND"
)

// Bounds of max_retries.
const (
	MinRetries = 0
	MaxRetries = 20
)

// CheckServiceURL checks base_url and storage_url: client.CheckServiceURL,
// whose error about plain http names the setting that allows it.
func CheckServiceURL(raw string, insecure bool) error {
	err := client.CheckServiceURL(raw, insecure)
	if errors.Is(err, client.ErrPlainHTTP) {
		return fmt.Errorf("%w; use https, or set insecure_http = true (%s=true) to allow it", err, EnvInsecureHTTP)
	}
	return err
}

// MinPollInterval is the shortest poll_interval: each poll reads every
// device still awaited, so a shorter one only spends the API's quota (a
// poll_interval of "1ms" made 1,009 requests in 2 seconds). The tests poll
// zdm-local at this minimum.
const MinPollInterval = 100 * time.Millisecond

// maxDurationText is the longest duration Go holds, rounded down to hours.
const maxDurationText = "2562047h"

// durationSyntax matches what time.ParseDuration accepts, whatever the
// magnitude: a value it refuses that matches is too long, not misspelled.
var durationSyntax = regexp.MustCompile(`^[-+]?((\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h))+$`)

// ParseDuration is the one rule of the duration options (request_timeout,
// timeout, poll_interval, a rollout's waits): a positive Go duration such
// as "60s" or "2m", at most about 292 years (2562047h).
func ParseDuration(s string) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil {
		if durationSyntax.MatchString(strings.TrimSpace(s)) {
			return 0, fmt.Errorf("%q is too long: the longest duration is %q (about 292 years)", s, maxDurationText)
		}
		return 0, fmt.Errorf("%q is not a duration such as \"30s\" or \"2m\"", s)
	}
	if d <= 0 {
		return 0, fmt.Errorf("%q must be greater than zero", s)
	}
	return d, nil
}

// ParseMaxRetries parses a ZDM_MAX_RETRIES value.
func ParseMaxRetries(s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return 0, fmt.Errorf("%q is not a whole number", s)
	}
	if n < MinRetries || n > MaxRetries {
		return 0, fmt.Errorf("%d is outside %d..%d", n, MinRetries, MaxRetries)
	}
	return n, nil
}

// MaxRequestsPerSecondTop bounds max_requests_per_second (a larger value is
// no bound a service would hold).
const MaxRequestsPerSecondTop = 100000

// CheckMaxRequestsPerSecond is the one rule of max_requests_per_second: a
// number greater than 0, at most MaxRequestsPerSecondTop.
func CheckMaxRequestsPerSecond(f float64) error {
	if !(f > 0) || f > MaxRequestsPerSecondTop {
		return fmt.Errorf("%s must be a number greater than 0 and at most %d: the most requests a second "+
			"this configuration sends, such as the key's limit divided by the jobs that share the key", strconv.FormatFloat(f, 'g', -1, 64), MaxRequestsPerSecondTop)
	}
	return nil
}

// ParseMaxRequestsPerSecond parses a ZDM_MAX_REQUESTS_PER_SECOND value.
func ParseMaxRequestsPerSecond(s string) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	return f, CheckMaxRequestsPerSecond(f)
}

// ParseBool parses a ZDM_INSECURE_HTTP value.
func ParseBool(s string) (bool, error) {
	b, err := strconv.ParseBool(strings.TrimSpace(s))
	if err != nil {
		return false, fmt.Errorf("%q is not a boolean (true or false)", s)
	}
	return b, nil
}
