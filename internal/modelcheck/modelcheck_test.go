package modelcheck_test

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
	"github.com/zdm/terraform-provider-zdm/internal/modelcheck"
)

// The short run of make test: a fixed seed over ShortOps, whose gates hold
// on main.
const (
	shortSeed  = 2
	shortSteps = 12
)

// TestAccModelCheckShort runs the short fixed-seed sequence against the
// provider built with the duplicate gate's service read removed (the
// positive control: the checker must report a device name twice in a
// fleet) and against the provider as released (no violation).
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

	t.Run("mutant", func(t *testing.T) {
		dir := t.TempDir()
		if err := modelcheck.BuildProvider(ctx, root, dir, "zdm_mutant_nogate"); err != nil {
			t.Fatal(err)
		}
		o := opts(dir)
		o.StopAtFirst = true
		res, err := modelcheck.Run(ctx, o, steps)
		if err != nil {
			t.Fatal(err)
		}
		t.Log(modelcheck.Report(shortSeed, res))
		found := false
		for _, v := range res.Violations {
			found = found || v.Check == "device-name-unique"
		}
		if !found {
			t.Fatalf("the checker saw no duplicate device with the duplicate gate's read removed:\n%s", modelcheck.Report(shortSeed, res))
		}
	})

	t.Run("provider", func(t *testing.T) {
		dir := t.TempDir()
		if err := modelcheck.BuildProvider(ctx, root, dir); err != nil {
			t.Fatal(err)
		}
		res, err := modelcheck.Run(ctx, opts(dir), steps)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Violations) > 0 {
			t.Fatalf("violations:\n%s", modelcheck.Report(shortSeed, res))
		}
		if res.Applies < shortSteps {
			t.Fatalf("%d applies for %d steps: the run did not drive Terraform", res.Applies, shortSteps)
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
	if len(ops) != len(modelcheck.LongOps) {
		t.Fatalf("1,000 steps drew %d of the %d operations: %v", len(ops), len(modelcheck.LongOps), ops)
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
