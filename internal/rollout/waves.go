// Package rollout runs a staged rollout: one command (a firmware version,
// or a job with its value; see Command) scheduled on the devices of a
// workspace's fleets in waves, each wave gated on the health of its
// devices. The zdm_fota_rollout resource and action and the zdm_job_rollout
// resource run it; it holds no Terraform types.
//
// Rules it keeps (see DESIGN.md, "Staged firmware rollouts"):
//   - the order of the devices is a hash of their ID salted with the
//     rollout's identity, so every run picks the same devices per wave;
//   - a device whose current update (or job of that name) is already the
//     rollout's command is never scheduled again, nor is a device a prior
//     run recorded;
//   - a run stops at the first wave whose failure ratio passes the bound,
//     whose devices are not done in time, or whose scheduling failed, and
//     returns what it did so far with the error;
//   - the optional gates (health.go, gates.go): a telemetry health check
//     read from the storage service per wave, a minimum of devices
//     reported before failures stop a wave, paced schedules, and
//     maintenance windows outside which no wave starts.
package rollout

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// MaxWaves bounds the number of waves.
const MaxWaves = 100

// Wave is one step of a rollout: a percentage of the devices, or a number
// of devices, reached once the wave is scheduled (cumulative).
type Wave struct {
	// Text is the wave as written ("10%", "50").
	Text string
	// Percent is the share of the devices (0 < Percent <= 100), or 0 when
	// the wave is a count.
	Percent float64
	// Count is the number of devices, or 0 when the wave is a percentage.
	Count int
}

// ParseWave parses "12.5%" or "40".
func ParseWave(s string) (Wave, error) {
	t := strings.TrimSpace(s)
	if p, ok := strings.CutSuffix(t, "%"); ok {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 || v > 100 {
			return Wave{}, fmt.Errorf("%q is not a percentage above 0%% and at most 100%%", s)
		}
		return Wave{Text: s, Percent: v}, nil
	}
	n, err := strconv.Atoi(t)
	if err != nil || n < 1 {
		return Wave{}, fmt.Errorf("%q is neither a percentage such as \"10%%\" nor a number of devices of at least 1", s)
	}
	return Wave{Text: s, Count: n}, nil
}

// ParseWaves parses and checks a list of waves: at least one, at most
// MaxWaves, percentages increasing, counts increasing, and the last wave
// "100%" so that the rollout covers every device.
func ParseWaves(texts []string) ([]Wave, error) {
	if len(texts) == 0 {
		return nil, errors.New(`needs at least one wave, the last being "100%"`)
	}
	if len(texts) > MaxWaves {
		return nil, fmt.Errorf("has %d waves, at most %d are allowed", len(texts), MaxWaves)
	}
	out := make([]Wave, len(texts))
	var lastPct float64
	var lastCount int
	for i, s := range texts {
		w, err := ParseWave(s)
		if err != nil {
			return nil, fmt.Errorf("wave %d: %w", i+1, err)
		}
		switch {
		case w.Percent > 0 && w.Percent <= lastPct:
			return nil, fmt.Errorf("wave %d (%s) must be larger than the percentage before it (%g%%): waves grow", i+1, s, lastPct)
		case w.Count > 0 && w.Count <= lastCount:
			return nil, fmt.Errorf("wave %d (%s) must be larger than the count before it (%d): waves grow", i+1, s, lastCount)
		}
		lastPct = max(lastPct, w.Percent)
		lastCount = max(lastCount, w.Count)
		out[i] = w
	}
	if last := out[len(out)-1]; last.Percent != 100 {
		return nil, fmt.Errorf(`the last wave is %q: it must be "100%%", so that the rollout reaches every device`, last.Text)
	}
	return out, nil
}

// Reach is how many of n devices are scheduled once w is (cumulative),
// rounded up so that a small percentage of a small fleet is one device.
func (w Wave) Reach(n int) int {
	if w.Count > 0 {
		return min(w.Count, n)
	}
	// Round away floating point noise before rounding up: 10% of 30 is 3.
	r := math.Ceil(math.Round(w.Percent*float64(n)*1e6)/1e8 - 1e-9)
	return min(int(r), n)
}

// Identity is what salts the order of the devices: the workspace, the
// command (the firmware ID and version; or "job", the job's name and its
// compact value) and the user's salt.
func Identity(workspaceID string, cmd Command, salt string) string {
	parts := append([]string{workspaceID}, cmd.identity()...)
	return strings.Join(append(parts, salt), "\x00")
}

// Order returns ids sorted by the SHA-256 of identity and the ID: a stable
// pseudo-random order that only the identity and the IDs decide.
func Order(identity string, ids []string) []string {
	type keyed struct {
		id  string
		sum [sha256.Size]byte
	}
	k := make([]keyed, len(ids))
	for i, id := range ids {
		k[i] = keyed{id, sha256.Sum256([]byte(identity + "\x00" + id))}
	}
	slices.SortFunc(k, func(a, b keyed) int {
		if c := strings.Compare(string(a.sum[:]), string(b.sum[:])); c != 0 {
			return c
		}
		return strings.Compare(a.id, b.id)
	})
	out := make([]string, len(k))
	for i := range k {
		out[i] = k[i].id
	}
	return out
}

// MaxFailures is how many failed devices of a wave of n the ratio allows:
// the gate stops when failed/n > ratio.
func MaxFailures(ratio float64, n int) int {
	return int(math.Floor(ratio*float64(n) + 1e-9))
}
