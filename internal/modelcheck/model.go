// Package modelcheck searches random sequences of Terraform operations for
// duplicates and resends: a seeded generator picks operations over a small
// configuration space (fleets, devices by for_each key, the devices of one
// zdm_fleet_devices, device jobs, firmware updates of one device (zdm_fota
// with device_id), a zdm_fleet_job, zdm_job_rollouts), runs each through
// the real Terraform CLI with the provider binary built from
// the repository (dev_overrides) against an in-process zdm-local, and
// checks the service after every step: no device name twice in a fleet, no
// fleet name twice in the workspace, no job (name, value) or firmware (id,
// version) sent twice to one device (localzdm's Sends), nothing sent by a
// rollout whose window is closed, and, after an apply that succeeded
// without faults, an empty second plan and every device of the state in
// the service. A sequence that breaks one is shrunk by dropping steps while
// it still breaks one. See DESIGN.md, "Model checking".
package modelcheck

import (
	"fmt"
	"maps"
	"math/rand"
	"slices"
	"sort"
	"strings"
)

// Op is the kind of a step.
type Op string

// The operations. Each step edits the configuration (maybe not at all)
// and runs Terraform commands; see Runner.exec.
const (
	OpDevRename    Op = "device-rename"        // A: key, B: new name
	OpDevKeyMoved  Op = "device-key-moved"     // A: key, B: new key; with a moved block
	OpDevKeyBare   Op = "device-key-bare"      // A: key, B: new key; no moved block (the gate must refuse)
	OpDevFleet     Op = "device-fleet"         // A: key, B: fleet key ("" default)
	OpDevTaint     Op = "device-taint"         // A: key; taint, apply, untaint when refused
	OpDevReplace   Op = "device-replace"       // A: key; apply -replace
	OpDevStateRm   Op = "device-state-rm"      // A: key; state rm, import it back, apply
	OpDevAdd       Op = "device-add"           // A: key, B: name, C: fleet key
	OpDevRemove    Op = "device-remove"        // A: key
	OpAdopt        Op = "import-orphans"       // import each configured device the service has and the state lacks
	OpFaultsCreate Op = "device-add-faults"    // A: key, B: name, C: fault (error_rate, drop_answer, reset)
	OpJobValue     Op = "job-value"            // A: job key, B: new value
	OpJobAdd       Op = "job-add"              // A: job key, B: device key, C: job name, D: value (fresh)
	OpJobAddBack   Op = "job-add-back"         // OpJobAdd of a removed job: same device, name and value
	OpJobRemove    Op = "job-remove"           // A: job key
	OpJobTaint     Op = "job-taint"            // A: job key
	OpJobReplace   Op = "job-replace"          // A: job key
	OpFDRename     Op = "fleet-devices-rename" // A: key, B: new name
	OpFDKey        Op = "fleet-devices-key"    // A: key, B: new key (same name)
	OpFDAdd        Op = "fleet-devices-add"    // A: key, B: name
	OpFDRemove     Op = "fleet-devices-remove" // A: key
	OpFleetRename  Op = "fleet-rename"         // A: fleet key, B: new name (a new fleet)
	OpFleetTaint   Op = "fleet-taint"          // A: fleet key
	OpInterrupt    Op = "interrupt"            // A: key, B: name; add a device, SIGINT the apply after N ms
	OpRestart      Op = "service-restart"      // restart zdm-local on its state file, then apply

	// Fleet-wide and rollout commands (FleetOps).
	OpFleetJobFleets  Op = "fleet-job-fleets"    // A: fleet keys ("f1", "f1,f2"), B: value when it creates zdm_fleet_job.fj
	OpFleetJobValue   Op = "fleet-job-value"     // B: new value
	OpFleetJobReplace Op = "fleet-job-replace"   // apply -replace of zdm_fleet_job.fj
	OpMoveOutside     Op = "device-move-outside" // N: pick; move a device of the model's fleets to another one through the service, then apply
	OpRolloutAdd      Op = "rollout-add"         // A: key, B: salt, C: value, D: "window" (a maintenance window closed now)
	OpRolloutSalt     Op = "rollout-salt"        // A: key, B: new salt (a new rollout of the same value)
	OpRolloutValue    Op = "rollout-value"       // A: key, B: new value
	OpRolloutTaint    Op = "rollout-taint"       // A: key
	OpRolloutReplace  Op = "rollout-replace"     // A: key

	// Firmware updates of one device (zdm_fota.u by for_each key; FOTAOps).
	OpFOTAAdd     Op = "fota-add"      // A: key, B: device key, C: firmware ID, D: version (fresh)
	OpFOTAVersion Op = "fota-version"  // A: key, B: new version (fresh): a new update, sent
	OpFOTARemove  Op = "fota-remove"   // A: key
	OpFOTAAddBack Op = "fota-add-back" // OpFOTAAdd of a removed update the device still holds: nothing to send
	OpFOTATaint   Op = "fota-taint"    // A: key
	OpFOTAReplace Op = "fota-replace"  // A: key
)

// ShortOps are the operations whose gates hold on main: the fixed-seed run
// of make test uses them. LongOps add those that exercise the other
// gates (fleet names, zdm_fleet_devices keys, interrupts, restarts).
var (
	ShortOps = []Op{OpDevRename, OpDevKeyMoved, OpDevKeyBare, OpDevFleet, OpDevTaint, OpDevReplace, OpDevStateRm,
		OpDevAdd, OpDevRemove, OpAdopt, OpFaultsCreate, OpJobValue, OpJobAdd, OpJobRemove, OpJobAddBack, OpJobTaint, OpJobReplace,
		OpFDRename, OpFDAdd}
	LongOps = append(slices.Clone(ShortOps), OpFDKey, OpFDRemove, OpFleetRename, OpFleetTaint, OpInterrupt,
		OpRestart, OpFleetJobFleets, OpFleetJobFleets, OpFleetJobValue, OpFleetJobReplace, OpMoveOutside, OpMoveOutside,
		OpRolloutAdd, OpRolloutAdd, OpRolloutSalt, OpRolloutValue, OpRolloutTaint, OpRolloutReplace,
		OpFOTAAdd, OpFOTAVersion, OpFOTARemove, OpFOTAAddBack, OpFOTATaint, OpFOTAReplace)
	// FOTAOps are the firmware updates of one device alone, with the device
	// edits that change their target's key, name or presence (-fota in
	// cmd/zdm-modelcheck).
	FOTAOps = []Op{OpDevAdd, OpDevRename, OpDevKeyMoved, OpDevKeyBare, OpDevRemove, OpDevTaint, OpDevReplace,
		OpFOTAAdd, OpFOTAAdd, OpFOTAVersion, OpFOTARemove, OpFOTAAddBack, OpFOTAAddBack, OpFOTATaint, OpFOTAReplace}
	// FleetOps are the fleet-wide and rollout operations alone, with the
	// device edits that change who is in the fleets (-skip of the others in
	// cmd/zdm-modelcheck, or -fleet).
	FleetOps = []Op{OpDevAdd, OpDevFleet, OpFleetRename, OpFleetJobFleets, OpFleetJobFleets, OpFleetJobValue,
		OpFleetJobReplace, OpMoveOutside, OpMoveOutside, OpRolloutAdd, OpRolloutAdd, OpRolloutSalt, OpRolloutValue,
		OpRolloutTaint, OpRolloutReplace}
	// noEdit are the operations that only run commands.
	noEdit = []Op{OpAdopt, OpRestart, OpDevTaint, OpDevReplace, OpDevStateRm, OpJobTaint, OpJobReplace, OpFleetTaint,
		OpFleetJobReplace, OpMoveOutside, OpRolloutTaint, OpRolloutReplace, OpFOTATaint, OpFOTAReplace}
)

// Step is one operation with its arguments, fixed when generated so that a
// sequence replays (and shrinks) without the generator. An argument naming
// a key that no longer exists makes the edit a no-op.
type Step struct {
	Op         Op
	A, B, C, D string
	N          int
}

func (s Step) String() string {
	args := []string{}
	for _, a := range []string{s.A, s.B, s.C, s.D} {
		if a != "" {
			args = append(args, a)
		}
	}
	if s.N != 0 {
		args = append(args, fmt.Sprint(s.N))
	}
	return string(s.Op) + "(" + strings.Join(args, ", ") + ")"
}

type device struct{ name, fleet string }

type job struct{ device, name, value string }

// fota is one zdm_fota.u: a firmware version on one device by key.
type fota struct{ device, firmware, version string }

type moved struct{ from, to string }

// fleetJob is zdm_fleet_job.fj: the job "fleetwide" on fleets by key.
type fleetJob struct {
	fleets []string
	value  string
}

// rollout is one zdm_job_rollout.r of the job "rollout" over every fleet
// of the model; window gives it a maintenance window closed while the
// sequence runs.
type rollout struct {
	salt, value string
	window      bool
}

// model is the configuration Terraform is given, and what was dropped from
// it (for edits that bring a name or a job back).
type model struct {
	fleets  map[string]string // zdm_fleet.f key -> name
	devices map[string]device // zdm_device.d key -> name, fleet key
	fd      map[string]string // zdm_fleet_devices.fd devices: key -> name
	fdFleet string            // fleet key of zdm_fleet_devices.fd
	jobs    map[string]job    // zdm_device_job.j key
	fotas   map[string]fota   // zdm_fota.u key, at most one a device
	moved   []moved           // moved blocks of zdm_device.d
	fj      *fleetJob         // zdm_fleet_job.fj, nil until a step adds it
	ro      map[string]rollout
	// closed are the rollout values ever given a closed window: the
	// service must never have been sent them.
	closed map[string]bool
	// window is the rendered maintenance_window (days, start, end), set by
	// the runner once per sequence.
	window    [2]string
	workspace string
	// retired are devices dropped from the configuration (still in the
	// service), retiredJobs jobs dropped from it.
	retired     []device
	retiredFD   []string
	retiredJobs []job
	retiredFOTA []fota
	// held is the last firmware configured on each device (by device key):
	// what the device holds once applied, the only update given back.
	held map[string]fota
}

func newModel() *model {
	return &model{
		fleets:  map[string]string{"f1": "fleet-1", "f2": "fleet-2"},
		devices: map[string]device{"k1": {"dev-1", "f1"}, "k2": {"dev-2", ""}, "k3": {"dev-3", "f2"}},
		fd:      map[string]string{"s1": "fd-1", "s2": "fd-2"},
		fdFleet: "f1",
		jobs:    map[string]job{"j1": {"k1", "configure", "v-1"}, "j2": {"k2", "mode", "v-2"}},
		fotas:   map[string]fota{},
		held:    map[string]fota{},
		ro:      map[string]rollout{},
		closed:  map[string]bool{},
	}
}

// edit applies the configuration change of s, reporting whether it applied
// (false: its keys are gone, the step only runs its commands).
func (m *model) edit(s Step) bool {
	switch s.Op {
	case OpDevRename:
		d, ok := m.devices[s.A]
		if !ok {
			return false
		}
		d.name = s.B
		m.devices[s.A] = d
	case OpDevKeyMoved, OpDevKeyBare:
		d, ok := m.devices[s.A]
		if _, taken := m.devices[s.B]; !ok || taken {
			return false
		}
		delete(m.devices, s.A)
		m.devices[s.B] = d
		for k, j := range m.jobs {
			if j.device == s.A {
				j.device = s.B
				m.jobs[k] = j
			}
		}
		for k, u := range m.fotas {
			if u.device == s.A {
				u.device = s.B
				m.fotas[k] = u
			}
		}
		if u, ok := m.held[s.A]; ok {
			delete(m.held, s.A)
			u.device = s.B
			m.held[s.B] = u
		}
		if s.Op == OpDevKeyMoved {
			m.moved = append(m.moved, moved{s.A, s.B})
		}
	case OpDevFleet:
		d, ok := m.devices[s.A]
		if _, fleet := m.fleets[s.B]; !ok || (s.B != "" && !fleet) {
			return false
		}
		d.fleet = s.B
		m.devices[s.A] = d
	case OpDevAdd, OpFaultsCreate, OpInterrupt:
		if _, taken := m.devices[s.A]; taken {
			return false
		}
		fleet := s.C
		if s.Op != OpDevAdd {
			fleet = ""
		}
		if _, ok := m.fleets[fleet]; fleet != "" && !ok {
			return false
		}
		m.devices[s.A] = device{s.B, fleet}
	case OpDevRemove:
		d, ok := m.devices[s.A]
		if !ok {
			return false
		}
		delete(m.devices, s.A)
		m.retired = append(m.retired, d)
		for k, j := range m.jobs {
			if j.device == s.A {
				delete(m.jobs, k)
				m.retiredJobs = append(m.retiredJobs, j)
			}
		}
		for k, u := range m.fotas {
			if u.device == s.A {
				delete(m.fotas, k)
				m.retiredFOTA = append(m.retiredFOTA, u)
			}
		}
		delete(m.held, s.A)
	case OpJobValue:
		j, ok := m.jobs[s.A]
		if !ok {
			return false
		}
		j.value = s.B
		m.jobs[s.A] = j
	case OpJobAdd, OpJobAddBack:
		if _, taken := m.jobs[s.A]; taken {
			return false
		}
		if _, ok := m.devices[s.B]; !ok {
			return false
		}
		for _, j := range m.jobs {
			if j.device == s.B && j.name == s.C {
				return false
			}
		}
		m.jobs[s.A] = job{s.B, s.C, s.D}
	case OpJobRemove:
		j, ok := m.jobs[s.A]
		if !ok {
			return false
		}
		delete(m.jobs, s.A)
		m.retiredJobs = append(m.retiredJobs, j)
	case OpFOTAAdd, OpFOTAAddBack:
		if _, taken := m.fotas[s.A]; taken || !m.fotaFree(s.B) {
			return false
		}
		u := fota{s.B, s.C, s.D}
		if s.Op == OpFOTAAddBack && m.held[s.B] != u {
			return false // the device has had another update since: a new send
		}
		m.fotas[s.A] = u
		m.held[s.B] = u
	case OpFOTAVersion:
		u, ok := m.fotas[s.A]
		if !ok {
			return false
		}
		u.version = s.B
		m.fotas[s.A] = u
		m.held[u.device] = u
	case OpFOTARemove:
		u, ok := m.fotas[s.A]
		if !ok {
			return false
		}
		delete(m.fotas, s.A)
		m.retiredFOTA = append(m.retiredFOTA, u)
	case OpFDRename:
		if _, ok := m.fd[s.A]; !ok {
			return false
		}
		m.fd[s.A] = s.B
	case OpFDKey:
		n, ok := m.fd[s.A]
		if _, taken := m.fd[s.B]; !ok || taken {
			return false
		}
		delete(m.fd, s.A)
		m.fd[s.B] = n
	case OpFDAdd:
		if _, taken := m.fd[s.A]; taken {
			return false
		}
		m.fd[s.A] = s.B
	case OpFDRemove:
		n, ok := m.fd[s.A]
		if !ok || len(m.fd) == 1 {
			return false
		}
		delete(m.fd, s.A)
		m.retiredFD = append(m.retiredFD, n)
	case OpFleetRename:
		if _, ok := m.fleets[s.A]; !ok {
			return false
		}
		m.fleets[s.A] = s.B
	case OpFleetJobFleets:
		keys := strings.Split(s.A, ",")
		for _, k := range keys {
			if _, ok := m.fleets[k]; !ok {
				return false
			}
		}
		if m.fj == nil {
			m.fj = &fleetJob{value: s.B}
		} else if slices.Equal(m.fj.fleets, keys) {
			return false
		}
		m.fj.fleets = keys
	case OpFleetJobValue:
		if m.fj == nil {
			return false
		}
		m.fj.value = s.B
	case OpRolloutAdd:
		if _, taken := m.ro[s.A]; taken {
			return false
		}
		m.ro[s.A] = rollout{salt: s.B, value: s.C, window: s.D == "window"}
		if s.D == "window" {
			m.closed[s.C] = true
		}
	case OpRolloutSalt, OpRolloutValue:
		ro, ok := m.ro[s.A]
		if !ok {
			return false
		}
		if s.Op == OpRolloutSalt {
			ro.salt = s.B
		} else {
			ro.value = s.B
			if ro.window {
				m.closed[s.B] = true
			}
		}
		m.ro[s.A] = ro
	default:
		return false
	}
	return true
}

// fotaFree tells whether device key dev is in the model and no zdm_fota of
// it targets it: two updates of one device would replace each other's.
func (m *model) fotaFree(dev string) bool {
	if _, ok := m.devices[dev]; !ok {
		return false
	}
	for _, u := range m.fotas {
		if u.device == dev {
			return false
		}
	}
	return true
}

// gen generates steps from a seed, keeping its own model to pick
// arguments that apply.
type gen struct {
	r     *rand.Rand
	m     *model
	ops   []Op
	fresh int
}

func (g *gen) name(prefix string) string {
	g.fresh++
	return fmt.Sprintf("%s-%d", prefix, 100+g.fresh)
}

func pick[V any](r *rand.Rand, m map[string]V) (string, bool) {
	if len(m) == 0 {
		return "", false
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys[r.Intn(len(keys))], true
}

func (g *gen) fleetKey() string {
	k, _ := pick(g.r, g.m.fleets)
	if g.r.Intn(3) == 0 {
		return ""
	}
	return k
}

// next returns a step that applies to the generator's model.
func (g *gen) next() Step {
	for {
		s, ok := g.try(g.ops[g.r.Intn(len(g.ops))])
		if ok && (slices.Contains(noEdit, s.Op) || g.m.edit(s)) {
			return s
		}
	}
}

func (g *gen) try(op Op) (Step, bool) {
	r, m := g.r, g.m
	dev, hasDev := pick(r, m.devices)
	jk, hasJob := pick(r, m.jobs)
	fk, hasFD := pick(r, m.fd)
	s := Step{Op: op}
	switch op {
	case OpDevRename:
		s.A, s.B = dev, g.name("dev")
		return s, hasDev
	case OpDevKeyMoved, OpDevKeyBare:
		s.A, s.B = dev, g.name("k")
		return s, hasDev
	case OpDevFleet:
		s.A, s.B = dev, g.fleetKey()
		return s, hasDev && m.devices[dev].fleet != s.B
	case OpDevTaint, OpDevReplace, OpDevStateRm:
		s.A = dev
		return s, hasDev
	case OpDevAdd:
		s.A = g.name("k")
		if len(m.retired) > 0 && r.Intn(2) == 0 {
			d := m.retired[r.Intn(len(m.retired))]
			s.B, s.C = d.name, d.fleet // the same name in the same fleet: the gate must refuse
		} else {
			s.B, s.C = g.name("dev"), g.fleetKey()
		}
		return s, true
	case OpFaultsCreate, OpInterrupt:
		s.A, s.B = g.name("k"), g.name("dev")
		if op == OpFaultsCreate {
			s.C = []string{"error_rate", "drop_answer", "reset"}[r.Intn(3)]
		} else {
			s.N = 50 + r.Intn(1500)
		}
		return s, true
	case OpDevRemove:
		s.A = dev
		return s, hasDev && len(m.devices) > 1
	case OpAdopt, OpRestart:
		return s, true
	case OpJobValue:
		s.A, s.B = jk, g.name("v")
		return s, hasJob
	case OpJobAdd:
		s.A = g.name("j")
		s.B, s.C, s.D = dev, []string{"configure", "mode", "reboot"}[r.Intn(3)], g.name("v")
		return s, hasDev
	case OpJobAddBack:
		if len(m.retiredJobs) == 0 {
			return s, false
		}
		j := m.retiredJobs[r.Intn(len(m.retiredJobs))]
		s.A = g.name("j")
		s.B, s.C, s.D = j.device, j.name, j.value // the same job again: the device has it
		return s, true
	case OpJobRemove, OpJobTaint, OpJobReplace:
		s.A = jk
		return s, hasJob
	case OpFOTAAdd:
		s.A = g.name("u")
		s.B, s.C, s.D = dev, []string{"fw-a", "fw-b"}[r.Intn(2)], g.name("ver")
		return s, hasDev && m.fotaFree(dev)
	case OpFOTAAddBack:
		if len(m.retiredFOTA) == 0 {
			return s, false
		}
		u := m.retiredFOTA[r.Intn(len(m.retiredFOTA))]
		s.A = g.name("u")
		s.B, s.C, s.D = u.device, u.firmware, u.version // the device still holds it (edit checks)
		return s, true
	case OpFOTAVersion:
		uk, ok := pick(r, m.fotas)
		s.A, s.B = uk, g.name("ver")
		return s, ok
	case OpFOTARemove, OpFOTATaint, OpFOTAReplace:
		uk, ok := pick(r, m.fotas)
		s.A = uk
		return s, ok
	case OpFDRename:
		s.A, s.B = fk, g.name("fd")
		return s, hasFD
	case OpFDKey:
		s.A, s.B = fk, g.name("s")
		return s, hasFD
	case OpFDAdd:
		s.A = g.name("s")
		if len(m.retiredFD) > 0 && r.Intn(2) == 0 {
			s.B = m.retiredFD[r.Intn(len(m.retiredFD))]
		} else {
			s.B = g.name("fd")
		}
		return s, true
	case OpFDRemove:
		s.A = fk
		return s, hasFD && len(m.fd) > 1
	case OpFleetRename, OpFleetTaint:
		s.A, _ = pick(r, m.fleets)
		s.B = g.name("fleet")
		if op == OpFleetTaint {
			s.B = ""
		}
		return s, true
	case OpFleetJobFleets:
		// [A] -> [A,B] -> [B] -> [A,B]: fleets added, removed and added back.
		s.A = []string{"f1", "f1,f2", "f2"}[r.Intn(3)]
		s.B = g.name("v")
		return s, true
	case OpFleetJobValue:
		s.B = g.name("v")
		return s, m.fj != nil
	case OpFleetJobReplace:
		return s, m.fj != nil
	case OpMoveOutside:
		s.N = 1 + r.Intn(1000)
		return s, true
	case OpRolloutAdd:
		s.A, s.B = g.name("r"), g.name("salt")
		if rk, ok := pick(r, m.ro); ok && r.Intn(2) == 0 {
			// A second rollout of the same job and value: no device may
			// be sent it twice.
			s.C = m.ro[rk].value
			if m.ro[rk].window {
				s.D = "window"
			}
		} else {
			s.C = g.name("rv")
			if r.Intn(4) == 0 {
				s.C, s.D = g.name("wv"), "window"
			}
		}
		return s, len(m.ro) < 3
	case OpRolloutSalt:
		rk, ok := pick(r, m.ro)
		s.A, s.B = rk, g.name("salt")
		return s, ok
	case OpRolloutValue:
		rk, ok := pick(r, m.ro)
		s.A, s.B = rk, g.name("rv")
		return s, ok
	case OpRolloutTaint, OpRolloutReplace:
		rk, ok := pick(r, m.ro)
		s.A = rk
		return s, ok
	}
	return s, false
}

// Generate returns n steps drawn from ops with the seed.
func Generate(seed int64, n int, ops []Op) []Step {
	g := &gen{r: rand.New(rand.NewSource(seed)), m: newModel(), ops: ops} //nolint:gosec // G404: a seeded generator, so that a seed replays its sequence.
	out := make([]Step, 0, n)
	for range n {
		out = append(out, g.next())
	}
	return out
}

// hcl renders the configuration of m after the provider block.
func (m *model) hcl() string {
	var b strings.Builder
	fleetRef := func(k string) string {
		if _, ok := m.fleets[k]; k == "" || !ok {
			return "null"
		}
		return fmt.Sprintf("zdm_fleet.f[%q].id", k)
	}
	b.WriteString("resource \"zdm_fleet\" \"f\" {\n  for_each = {\n")
	for _, k := range slices.Sorted(maps.Keys(m.fleets)) {
		fmt.Fprintf(&b, "    %q = %q\n", k, m.fleets[k])
	}
	b.WriteString("  }\n  name = each.value\n}\n\n")
	b.WriteString("resource \"zdm_device\" \"d\" {\n  for_each = {\n")
	for _, k := range slices.Sorted(maps.Keys(m.devices)) {
		d := m.devices[k]
		fmt.Fprintf(&b, "    %q = { name = %q, fleet_id = %s }\n", k, d.name, fleetRef(d.fleet))
	}
	b.WriteString("  }\n  name     = each.value.name\n  fleet_id = each.value.fleet_id\n}\n\n")
	for _, mv := range m.moved {
		fmt.Fprintf(&b, "moved {\n  from = zdm_device.d[%q]\n  to   = zdm_device.d[%q]\n}\n\n", mv.from, mv.to)
	}
	b.WriteString("resource \"zdm_fleet_devices\" \"fd\" {\n")
	if ref := fleetRef(m.fdFleet); ref != "null" {
		fmt.Fprintf(&b, "  fleet_id = %s\n", ref)
	}
	b.WriteString("  devices = {\n")
	for _, k := range slices.Sorted(maps.Keys(m.fd)) {
		fmt.Fprintf(&b, "    %q = %q\n", k, m.fd[k])
	}
	b.WriteString("  }\n}\n\n")
	b.WriteString("resource \"zdm_device_job\" \"j\" {\n  for_each = {\n")
	for _, k := range slices.Sorted(maps.Keys(m.jobs)) {
		j := m.jobs[k]
		if _, ok := m.devices[j.device]; !ok {
			continue
		}
		fmt.Fprintf(&b, "    %q = { device_id = zdm_device.d[%q].id, name = %q, v = %q }\n", k, j.device, j.name, j.value)
	}
	b.WriteString("  }\n  device_id = each.value.device_id\n  name      = each.value.name\n  value     = jsonencode({ v = each.value.v })\n}\n")
	if len(m.fotas) > 0 {
		b.WriteString("\nresource \"zdm_fota\" \"u\" {\n  for_each = {\n")
		for _, k := range slices.Sorted(maps.Keys(m.fotas)) {
			u := m.fotas[k]
			if _, ok := m.devices[u.device]; !ok {
				continue
			}
			fmt.Fprintf(&b, "    %q = { device_id = zdm_device.d[%q].id, firmware_id = %q, firmware_version = %q }\n", k, u.device, u.firmware, u.version)
		}
		b.WriteString("  }\n  device_id        = each.value.device_id\n  firmware_id      = each.value.firmware_id\n  firmware_version = each.value.firmware_version\n}\n")
	}
	fleetList := func(keys []string) string {
		var refs []string
		for _, k := range keys {
			if ref := fleetRef(k); ref != "null" {
				refs = append(refs, ref)
			}
		}
		return "[" + strings.Join(refs, ", ") + "]"
	}
	if m.fj != nil {
		fmt.Fprintf(&b, "\nresource \"zdm_fleet_job\" \"fj\" {\n  workspace_id = %q\n  fleet_ids    = %s\n  name         = \"fleetwide\"\n  value        = jsonencode({ v = %q })\n}\n",
			m.workspace, fleetList(m.fj.fleets), m.fj.value)
	}
	for _, k := range slices.Sorted(maps.Keys(m.ro)) {
		ro := m.ro[k]
		fmt.Fprintf(&b, "\nresource \"zdm_job_rollout\" %q {\n  workspace_id      = %q\n  fleet_ids         = %s\n  name              = \"rollout\"\n"+
			"  value             = jsonencode({ v = %q })\n  salt              = %q\n  waves             = [\"1\", \"100%%\"]\n"+
			"  wave_timeout      = \"1s\"\n  poll_interval     = \"100ms\"\n  max_failure_ratio = 1\n",
			k, m.workspace, fleetList(slices.Sorted(maps.Keys(m.fleets))), ro.value, ro.salt)
		if ro.window {
			fmt.Fprintf(&b, "  max_devices_per_minute = 600\n  maintenance_window {\n    days      = [\"mon\", \"tue\", \"wed\", \"thu\", \"fri\", \"sat\", \"sun\"]\n"+
				"    start     = %q\n    end       = %q\n    time_zone = \"UTC\"\n  }\n", m.window[0], m.window[1])
		}
		b.WriteString("}\n")
	}
	return b.String()
}

// HCL renders the configuration the steps edit the initial one into (no
// provider block; the workspace and window empty).
func HCL(steps []Step) string {
	m := newModel()
	for _, s := range steps {
		m.edit(s)
	}
	return m.hcl()
}
