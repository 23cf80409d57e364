package devices

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/querycheck"
	"github.com/hashicorp/terraform-plugin-testing/querycheck/queryfilter"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/zdm/terraform-provider-zdm/internal/acctest"
	"github.com/zdm/terraform-provider-zdm/internal/client"
)

// deviceQueryFixture creates, outside Terraform, a fleet "east" with three
// devices east-00001..3 and two devices spare-00001..2 in the default fleet.
func deviceQueryFixture(t *testing.T, e *acctest.Env) (east *client.Fleet, eastIDs, spareIDs []string) {
	t.Helper()
	east, err := acctest.APIClient(t, e).CreateFleet(t.Context(), e.Bootstrap.WorkspaceID, "east", "")
	if err != nil {
		t.Fatal(err)
	}
	return east, acctest.CreateDevices(t, e, east.ID, "east", 3), acctest.CreateDevices(t, e, "", "spare", 2)
}

func TestAccDeviceListResource(t *testing.T) {
	e := acctest.NewEnv(t)
	ws := e.Bootstrap.WorkspaceID
	east, eastIDs, spareIDs := deviceQueryFixture(t, e)
	first := map[string]knownvalue.Check{
		"workspace_id": knownvalue.StringExact(ws),
		"id":           knownvalue.StringExact(eastIDs[0]),
	}
	resource.ParallelTest(t, resource.TestCase{
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_14_0)},
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{Config: e.Config("")},
			{
				Query: true,
				Config: `
list "zdm_device" "all" {
  provider         = zdm
  include_resource = true
  config {}
}

list "zdm_device" "east" {
  provider = zdm
  config {
    workspace_id = "` + ws + `"
    fleet_id     = "` + east.ID + `"
  }
}

list "zdm_device" "prefix" {
  provider = zdm
  config {
    name_prefix = "spare-"
  }
}

list "zdm_device" "regex" {
  provider = zdm
  config {
    name_regex = "^east-0000[12]$"
  }
}

list "zdm_device" "exact" {
  provider = zdm
  config {
    name = "spare-00002"
  }
}

list "zdm_device" "limited" {
  provider = zdm
  limit    = 2
  config {}
}

list "zdm_device" "none" {
  provider = zdm
  config {
    name_prefix = "nothing-"
  }
}
`,
				QueryResultChecks: []querycheck.QueryResultCheck{
					querycheck.ExpectLength("zdm_device.all", 5),
					querycheck.ExpectIdentity("zdm_device.all", first),
					querycheck.ExpectIdentity("zdm_device.all", map[string]knownvalue.Check{
						"workspace_id": knownvalue.StringExact(ws),
						"id":           knownvalue.StringExact(spareIDs[1]),
					}),
					querycheck.ExpectResourceDisplayName("zdm_device.all", queryfilter.ByResourceIdentity(first),
						knownvalue.StringExact("east-00001 ("+eastIDs[0]+")")),
					querycheck.ExpectResourceKnownValues("zdm_device.all", queryfilter.ByResourceIdentity(first),
						[]querycheck.KnownValueCheck{
							{Path: tfjsonpath.New("id"), KnownValue: knownvalue.StringExact(eastIDs[0])},
							{Path: tfjsonpath.New("workspace_id"), KnownValue: knownvalue.StringExact(ws)},
							{Path: tfjsonpath.New("name"), KnownValue: knownvalue.StringExact("east-00001")},
							{Path: tfjsonpath.New("fleet_id"), KnownValue: knownvalue.StringExact(east.ID)},
							{Path: tfjsonpath.New("fleet_name"), KnownValue: knownvalue.StringExact("east")},
							{Path: tfjsonpath.New("workspace_name"), KnownValue: knownvalue.StringExact(e.Bootstrap.WorkspaceName)},
							{Path: tfjsonpath.New("account_id"), KnownValue: knownvalue.StringExact(e.Bootstrap.AccountID)},
							{Path: tfjsonpath.New("created_at"), KnownValue: knownvalue.NotNull()},
							{Path: tfjsonpath.New("phys_id"), KnownValue: knownvalue.NotNull()},
							{Path: tfjsonpath.New("identities"), KnownValue: knownvalue.Null()},
						}),
					querycheck.ExpectLength("zdm_device.east", 3),
					querycheck.ExpectIdentity("zdm_device.east", first),
					querycheck.ExpectLength("zdm_device.prefix", 2),
					querycheck.ExpectLength("zdm_device.regex", 2),
					querycheck.ExpectLength("zdm_device.exact", 1),
					querycheck.ExpectResourceDisplayName("zdm_device.exact", queryfilter.ByResourceIdentity(map[string]knownvalue.Check{
						"workspace_id": knownvalue.StringExact(ws),
						"id":           knownvalue.StringExact(spareIDs[1]),
					}), knownvalue.StringExact("spare-00002 ("+spareIDs[1]+")")),
					querycheck.ExpectLength("zdm_device.limited", 2),
					querycheck.ExpectLength("zdm_device.none", 0),
				},
			},
		},
	})
}

// TestAccDeviceListResourceOneCall checks that a list block costs one API
// call, whatever the number of devices and include_resource.
func TestAccDeviceListResourceOneCall(t *testing.T) {
	e := acctest.NewEnv(t)
	acctest.CreateDevices(t, e, "", "bulk", 250)
	resource.ParallelTest(t, resource.TestCase{
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_14_0)},
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{Config: e.Config("")},
			{
				PreConfig: e.Server.ResetCounters,
				Query:     true,
				Config: `
list "zdm_device" "all" {
  provider         = zdm
  include_resource = true
  limit            = 1000
  config {}
}
`,
				QueryResultChecks: []querycheck.QueryResultCheck{
					querycheck.ExpectLength("zdm_device.all", 250),
				},
			},
			{
				// Runs after the query: it made one API call, the list.
				PreConfig: func() {
					if got := e.Server.Counters()[acctest.RouteListDevices]; got != 1 {
						t.Errorf("%s: %d calls, want 1", acctest.RouteListDevices, got)
					}
					if got := e.Server.TotalRequests(); got != 1 {
						t.Errorf("the query made %d API calls, want 1: %v", got, e.Server.Counters())
					}
				},
				Config: e.Config(""),
			},
		},
	})
}

// TestAccDeviceListResourceValidation checks that bad filters are refused
// before any API call.
func TestAccDeviceListResourceValidation(t *testing.T) {
	e := acctest.NewEnv(t)
	query := func(config, want string) resource.TestStep {
		return resource.TestStep{
			Query: true,
			Config: `
list "zdm_device" "bad" {
  provider = zdm
  config {
    ` + config + `
  }
}
`,
			ExpectError: acctest.Wrapped(want),
		}
	}
	resource.ParallelTest(t, resource.TestCase{
		TerraformVersionChecks:   []tfversion.TerraformVersionCheck{tfversion.SkipBelow(tfversion.Version1_14_0)},
		ProtoV6ProviderFactories: e.Factories,
		Steps: []resource.TestStep{
			{Config: e.Config(""), PostApplyFunc: e.Server.ResetCounters},
			query(`name_regex = "sensor-("`, `Invalid name_regex`),
			query(`name_regex = "[z-a]"`, `must be a valid regular expression`),
			query(`name = "a"
    name_prefix = "b"`, `Invalid Attribute Combination`),
			query(`name_prefix = "a"
    name_regex = "b"`, `Invalid Attribute Combination`),
			query(`name = "   "`, `Blank value`),
			query(`fleet_id = ""`, `Invalid Attribute Value Length`),
			query(`unknown = "x"`, `Unsupported argument`),
			{
				PreConfig: func() {
					if got := e.Server.TotalRequests(); got != 0 {
						t.Errorf("invalid list blocks made %d API calls, want 0: %v", got, e.Server.Counters())
					}
				},
				Config: e.Config(""),
			},
		},
	})
}
