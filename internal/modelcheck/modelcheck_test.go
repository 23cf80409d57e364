package modelcheck_test

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm"
	"github.com/zdm/terraform-provider-zdm/internal/modelcheck"
)

// The short run of make test: a fixed seed over ShortOps, whose gates hold
// on main, then the first 3 steps of a fixed seed over FleetOps (a
// zdm_fleet_job on [f1], then [f2], then replaced), few enough that the
// short run costs about what it did before them.
const (
	shortSeed  = 2
	shortSteps = 12
	fleetSeed  = 136
	fleetSteps = 3
)

// TestAccModelCheckShort runs the short fixed-seed sequences against the
// provider built with the gates' service reads removed (the positive
// controls: the checker must report a device name twice in a fleet, and a
// fleet-wide job sent twice to a device) and against the provider as
// released (no violation).
func TestAccModelCheckShort(t *testing.T) {
	acctest.Prepare(t)
	ctx := t.Context()
	root := repoRoot(t)
	opts := func(dir string) modelcheck.Options {
		o := modelcheck.Options{
			Terraform: os.Getenv("TF_ACC_TERRAFORM_PATH"), ProviderDir: dir, Host: acctest.ProviderHost(),
			Ops: modelcheck.ShortOps, WorkDir: t.TempDir(), Log: t.Logf,
		}
		return o
	}
	steps := modelcheck.Generate(shortSeed, shortSteps, modelcheck.ShortOps)
	fleetSeq := modelcheck.Generate(fleetSeed, fleetSteps, modelcheck.FleetOps)

	t.Run("mutant", func(t *testing.T) {
		dir := t.TempDir()
		if err := modelcheck.BuildProvider(ctx, root, dir, "zdm_mutant_nogate"); err != nil {
			t.Fatal(err)
		}
		o := opts(dir)
		o.StopAtFirst = true
		for _, c := range []struct {
			seed  int64
			steps []modelcheck.Step
			check string
		}{{shortSeed, steps, "device-name-unique"}, {fleetSeed, fleetSeq, "no-resend"}} {
			res, err := modelcheck.Run(ctx, o, c.steps)
			if err != nil {
				t.Fatal(err)
			}
			t.Log(modelcheck.Report(c.seed, res))
			found := false
			for _, v := range res.Violations {
				found = found || v.Check == c.check
			}
			if !found {
				t.Fatalf("the checker saw no %s violation with the gates' reads removed:\n%s", c.check, modelcheck.Report(c.seed, res))
			}
		}
	})

	t.Run("provider", func(t *testing.T) {
		dir := t.TempDir()
		if err := modelcheck.BuildProvider(ctx, root, dir); err != nil {
			t.Fatal(err)
		}
		// One sequence: the fleet steps' fresh names and keys differ from
		// the first's, and they run on its configuration.
		all := append(slices.Clone(steps), fleetSeq...)
		res, err := modelcheck.Run(ctx, opts(dir), all)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Violations) > 0 {
			t.Fatalf("violations:\n%s", modelcheck.Report(shortSeed, res))
		}
		if res.Applies < len(all) {
			t.Fatalf("%d applies for %d steps: the run did not drive Terraform", res.Applies, len(all))
		}
		t.Log(modelcheck.Report(shortSeed, res))
	})
}

// TestGenerateRepeatable: a seed gives one sequence, so a printed seed
// reproduces a run.
func TestGenerateRepeatable(t *testing.T) {
	a := modelcheck.Generate(42, 50, modelcheck.LongOps)
	b := modelcheck.Generate(42, 50, modelcheck.LongOps)
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("seed 42 gave two sequences:\n%v\n%v", a, b)
	}
	if c := modelcheck.Generate(43, 50, modelcheck.LongOps); reflect.DeepEqual(a, c) {
		t.Fatal("seeds 42 and 43 gave the same sequence")
	}
	ops := map[modelcheck.Op]bool{}
	// Some operations need a state to act on (a job removed before it is
	// added back): 1,000 steps leave each many chances.
	for _, s := range modelcheck.Generate(1, 1000, modelcheck.LongOps) {
		ops[s.Op] = true
	}
	distinct := map[modelcheck.Op]bool{}
	for _, op := range modelcheck.LongOps {
		distinct[op] = true
	}
	if len(ops) != len(distinct) {
		t.Fatalf("1,000 steps drew %d of the %d operations: %v", len(ops), len(distinct), ops)
	}
}

func repoRoot(t *testing.T) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the working directory")
		}
		dir = parent
	}
}

// TestResends: the sent-twice check reports a firmware version sent twice
// to one device, also when another version went between (the positive
// control of the firmware steps: the mutant build does not skip the
// device-level firmware gate), and nothing for the same version on two
// devices, a new version, or a job whose name and value equal a firmware's.
func TestResends(t *testing.T) {
	send := func(kind, dev, name, value, at string) localzdm.Send {
		return localzdm.Send{Kind: kind, DeviceID: dev, Name: name, Value: value, At: at}
	}
	sends := []localzdm.Send{
		send("fota", "dev-1", "fw-a", "ver-1", "t1"),
		send("fota", "dev-2", "fw-a", "ver-1", "t2"), // another device
		send("fota", "dev-1", "fw-a", "ver-2", "t3"), // a new version
		send("job", "dev-1", "fw-a", "ver-1", "t4"),  // a job, not the firmware
		send("fota", "dev-1", "fw-b", "ver-2", "t5"), // another firmware
		send("fota", "dev-1", "fw-a", "ver-1", "t6"), // ver-1 again, after ver-2
		send("fota", "dev-2", "fw-a", "ver-1", "t7"), // again, with nothing between
	}
	got := modelcheck.Resends(sends)
	want := []string{
		`fota "fw-a" = ver-1 sent twice to device dev-1 (at t1 and t6)`,
		`fota "fw-a" = ver-1 sent twice to device dev-2 (at t2 and t7)`,
	}
	if !slices.Equal(got, want) {
		t.Fatalf("Resends = %q, want %q", got, want)
	}
	if got := modelcheck.Resends(sends[:5]); len(got) != 0 {
		t.Fatalf("Resends of sends without a repeat = %q", got)
	}
}

// TestHCLFOTA: the firmware steps render a zdm_fota per device, and a
// removed update given back while the device holds it is rendered again.
func TestHCLFOTA(t *testing.T) {
	steps := []modelcheck.Step{
		{Op: modelcheck.OpFOTAAdd, A: "u1", B: "k1", C: "fw-a", D: "ver-1"},
		{Op: modelcheck.OpFOTAAdd, A: "u2", B: "k1", C: "fw-b", D: "ver-2"}, // k1 has one: a no-op
		{Op: modelcheck.OpFOTARemove, A: "u1"},
		{Op: modelcheck.OpFOTAAddBack, A: "u3", B: "k1", C: "fw-a", D: "ver-1"},
	}
	hcl := modelcheck.HCL(steps)
	for _, s := range []string{`resource "zdm_fota" "u"`, `"u3" = { device_id = zdm_device.d["k1"].id, firmware_id = "fw-a", firmware_version = "ver-1" }`} {
		if !strings.Contains(hcl, s) {
			t.Fatalf("no %s in:\n%s", s, hcl)
		}
	}
	for _, s := range []string{`"u1" =`, `"u2" =`} {
		if strings.Contains(hcl, s) {
			t.Fatalf("%s in:\n%s", s, hcl)
		}
	}
	// Given back after the device had another version: not the same
	// update any more, so the step is a no-op.
	steps = []modelcheck.Step{
		{Op: modelcheck.OpFOTAAdd, A: "u1", B: "k1", C: "fw-a", D: "ver-1"},
		{Op: modelcheck.OpFOTARemove, A: "u1"},
		{Op: modelcheck.OpFOTAAdd, A: "u2", B: "k1", C: "fw-a", D: "ver-2"},
		{Op: modelcheck.OpFOTARemove, A: "u2"},
		{Op: modelcheck.OpFOTAAddBack, A: "u3", B: "k1", C: "fw-a", D: "ver-1"},
	}
	if hcl := modelcheck.HCL(steps); strings.Contains(hcl, "zdm_fota") {
		t.Fatalf("an update given back after another version was rendered:\n%s", hcl)
	}
}
