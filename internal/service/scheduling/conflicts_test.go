package scheduling

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/zdm/terraform-provider-zdm/internal/connection"
)

// TestClaimCommand: within one walk, a second value of one job for a
// shared fleet is refused, whichever fleets or every fleet it names; the
// same value (as JSON, whatever its key order), another job, another
// workspace or other fleets are not; and a new walk starts empty.
func TestClaimCommand(t *testing.T) {
	claim := func(d *connection.ProviderData, ws, cmd, value string, all bool, fleets ...string) diag.Diagnostics {
		var diags diag.Diagnostics
		ClaimCommand(d, CommandClaim{Workspace: ws, Command: cmd, Value: value, Fleets: fleets, All: all, Owner: "test"}, &diags)
		return diags
	}
	d := &connection.ProviderData{}
	for _, c := range []struct {
		name, ws, cmd, value string
		all                  bool
		fleets               []string
		refused              bool
	}{
		{"first", "wks-1", `job "reboot"`, `{"a":1,"b":2}`, false, []string{"flt-1", "flt-2"}, false},
		{"same value, keys in another order", "wks-1", `job "reboot"`, `{"b":2,"a":1}`, false, []string{"flt-2"}, false},
		{"another value, other fleets", "wks-1", `job "reboot"`, `{"a":3}`, false, []string{"flt-3"}, false},
		{"another job", "wks-1", `job "mode"`, `{"a":3}`, false, []string{"flt-1"}, false},
		{"another workspace", "wks-2", `job "reboot"`, `{"a":3}`, false, []string{"flt-1"}, false},
		{"another value, a shared fleet", "wks-1", `job "reboot"`, `{"a":4}`, false, []string{"flt-9", "flt-2"}, true},
		{"another value, every fleet", "wks-1", `job "reboot"`, `{"a":5}`, true, nil, true},
		{"firmware", "wks-1", "firmware", "fw-1 1.0", true, nil, false},
		{"another firmware version", "wks-1", "firmware", "fw-1 2.0", false, []string{"flt-7"}, true},
	} {
		diags := claim(d, c.ws, c.cmd, c.value, c.all, c.fleets...)
		if diags.HasError() != c.refused {
			t.Fatalf("%s: refused %v, want %v (%v)", c.name, diags.HasError(), c.refused, diags)
		}
		if c.refused && !strings.Contains(diags.Errors()[0].Summary(), "Two values of "+c.cmd) {
			t.Errorf("%s: the error does not name the command: %v", c.name, diags)
		}
	}
	if diags := claim(&connection.ProviderData{}, "wks-1", `job "reboot"`, `{"a":4}`, false, "flt-2"); diags.HasError() {
		t.Errorf("a new walk (provider configuration) kept the claims of another: %v", diags)
	}
}

// TestClaimCommandDevice: a claim for one device is refused against another
// value for its fleet, for every fleet, or for the same device; not against
// another fleet, another device, the same value, or when its fleet is not
// known.
func TestClaimCommandDevice(t *testing.T) {
	d := &connection.ProviderData{}
	claim := func(c CommandClaim) diag.Diagnostics {
		var diags diag.Diagnostics
		c.Workspace, c.Command, c.Owner = "wks-1", `job "reboot"`, "test"
		ClaimCommand(d, c, &diags)
		return diags
	}
	for _, c := range []struct {
		name    string
		claim   CommandClaim
		refused string // the shared target the error names; "" when not refused
	}{
		{"fleet-wide", CommandClaim{Value: "1", Fleets: []string{"flt-1"}}, ""},
		{"same value, a device of the fleet", CommandClaim{Value: "1", Device: "dev-1", Fleets: []string{"flt-1"}}, ""},
		{"another value, a device of another fleet", CommandClaim{Value: "2", Device: "dev-2", Fleets: []string{"flt-2"}}, ""},
		{"another value, a device of no known fleet", CommandClaim{Value: "3", Device: "dev-3"}, ""},
		{"another value, a device of the fleet", CommandClaim{Value: "2", Device: "dev-4", Fleets: []string{"flt-1"}}, "to device dev-4 of fleet flt-1 "},
		{"another value, the same device", CommandClaim{Value: "4", Device: "dev-2"}, "to device dev-2 "},
		{"every fleet, against the device of flt-2", CommandClaim{Value: "2", All: true, Fleets: nil}, "to the devices of flt-1 "},
		{"a fleet-wide claim after the device's", CommandClaim{Value: "5", Fleets: []string{"flt-2"}}, "to device dev-2 of fleet flt-2 "},
	} {
		diags := claim(c.claim)
		if diags.HasError() != (c.refused != "") {
			t.Fatalf("%s: refused %v, want %v (%v)", c.name, diags.HasError(), c.refused != "", diags)
		}
		if c.refused != "" && !strings.Contains(diags.Errors()[0].Detail(), c.refused) {
			t.Errorf("%s: the error does not name %q: %v", c.name, c.refused, diags)
		}
	}
}

// TestClaimDeviceReadsOnlyOnConflict: the fleet of a device claim is read
// only when a fleet-wide claim of another value of the command meets it,
// whichever comes first, and once per device; a claim of the same value,
// of another command, or with no claim to meet reads nothing.
func TestClaimDeviceReadsOnlyOnConflict(t *testing.T) {
	d := &connection.ProviderData{}
	var reads []string
	fleetOf := func(dev string) string {
		reads = append(reads, dev)
		return map[string]string{"dev-1": "flt-1", "dev-2": "flt-2"}[dev]
	}
	claimWith := func(c CommandClaim) diag.Diagnostics {
		var diags diag.Diagnostics
		c.Workspace, c.Owner = "wks-1", "test"
		claim(d, c, fleetOf, &diags)
		return diags
	}
	steps := []struct {
		name    string
		claim   CommandClaim
		refused bool
		reads   int // reads so far
	}{
		{"a device, alone", CommandClaim{Command: "j", Value: "2", Device: "dev-1"}, false, 0},
		{"fleet-wide, same value", CommandClaim{Command: "j", Value: "2", Fleets: []string{"flt-1"}}, false, 0},
		{"fleet-wide, another command", CommandClaim{Command: "k", Value: "1", Fleets: []string{"flt-1"}}, false, 0},
		{"fleet-wide, another value, another fleet", CommandClaim{Command: "j", Value: "1", Fleets: []string{"flt-9"}}, false, 1},
		{"a device of flt-2, against the claims so far", CommandClaim{Command: "j", Value: "3", Device: "dev-2"}, false, 2},
		{"fleet-wide flt-2, another value: each device read once", CommandClaim{Command: "j", Value: "5", Fleets: []string{"flt-2"}}, true, 4},
	}
	for _, s := range steps {
		diags := claimWith(s.claim)
		if diags.HasError() != s.refused || len(reads) != s.reads {
			t.Fatalf("%s: refused %v after %d reads %v; want refused %v after %d (%v)", s.name, diags.HasError(), len(reads), reads,
				s.refused, s.reads, diags)
		}
	}
}
