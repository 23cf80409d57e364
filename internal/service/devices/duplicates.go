package devices

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/zdm/terraform-provider-zdm/internal/client"

	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/kit"
)

// Refusing a second copy.
//
// The API cannot delete a device, so a create that repeats a device that
// already exists makes a copy nobody can remove. Whenever Terraform plans
// a create that could be a replacement (terraform taint, -replace, a
// renamed for_each key, a changed resource address, a key removed and
// added again), the plan of zdm_device and zdm_fleet_devices compares the
// names it would create with the devices of the target fleet: a device of
// the same name that this resource does not hold fails the plan, with the
// ways out, unless allow_duplicate_names is true. The check runs in every
// plan that creates devices, so also in Terraform's final plan at apply,
// once values unknown at plan time are known; a plan that creates nothing
// sends no request for it.

// allowDuplicateNamesAttr is the opt-in attribute of both resources.
const allowDuplicateNamesAttr = "allow_duplicate_names"

const allowDuplicateNamesDescription = "Set to `true` to create devices even when the target fleet already has " +
	"devices of the same names that this resource does not hold. By default such a plan fails, because the API cannot " +
	"delete a device: a create that repeats an existing device (after `terraform taint`, `-replace`, a renamed " +
	"`for_each` key or a changed resource address) would leave a second copy forever. Set it only when you want " +
	"several devices with one name."

// nameClash is a device of the target fleet that has a name a create would use.
type nameClash struct{ name, id string }

// existingNames returns the devices of fleet (the default fleet of ws when
// fleet is "") whose name is in names and whose ID is not in held, sorted
// by name and ID, and the fleet it looked in.
func existingNames(ctx context.Context, d *connection.ProviderData, ws, fleet string, names map[string]bool,
	held map[string]bool) ([]nameClash, string, error) {
	if len(names) == 0 || mutantNoGate {
		return nil, fleet, nil
	}
	if fleet == "" {
		fleets, err := d.ListFleets(ctx, ws)
		if err != nil {
			return nil, "", err
		}
		if fleet = kit.DefaultFleetOf(fleets); fleet == "" {
			return nil, "", nil // no default fleet: the create fails anyway
		}
	}
	all, err := d.ListDevices(ctx, ws)
	if err != nil {
		return nil, fleet, err
	}
	d.SawWorkspace(ws)
	var out []nameClash
	for i := range all {
		dev := &all[i]
		if dev.FleetID() == fleet && names[dev.Name] && !held[dev.ID] {
			out = append(out, nameClash{name: dev.Name, id: dev.ID})
		}
	}
	slices.SortFunc(out, func(a, b nameClash) int {
		if c := strings.Compare(a.name, b.name); c != 0 {
			return c
		}
		return strings.Compare(a.id, b.id)
	})
	return out, fleet, nil
}

// refuseDuplicates fails the plan at attr when a create of names in fleet
// (the default fleet when "") of ws would repeat devices that exist and that
// the resource does not hold (held). importHint says how the devices come
// under the resource by import, given the fleet.
func refuseDuplicates(ctx context.Context, d *connection.ProviderData, attr path.Path, ws, fleet string,
	names, held map[string]bool, importHint func(fleet string) string, diags *diag.Diagnostics) {
	clashes, fleet, err := existingNames(ctx, d, ws, fleet, names, held)
	if connection.WorkspaceNotFound(err, ws) {
		diags.AddAttributeError(attr, "Workspace not found", connection.DescribeError(err, ws))
		return
	}
	var apiErr *client.APIError
	if errors.As(err, &apiErr) && apiErr.StatusCode >= 400 && apiErr.StatusCode < 500 && apiErr.StatusCode != http.StatusTooManyRequests {
		// The service refuses this key the workspace (or the fleet): it
		// refuses the create too, which then says why.
		tflog.Debug(ctx, "the check for devices with the same names was refused; the create will be too",
			map[string]any{"workspace_id": ws, "error": err.Error()})
		return
	}
	if err != nil {
		diags.AddAttributeError(attr, "Cannot check for devices with the same names",
			"This plan creates devices, and before any create the provider makes sure that none of them exists "+
				"already, because the API cannot delete a copy. Listing the devices of workspace "+connection.Quote(ws)+
				" failed: "+connection.DescribeError(err, ws)+" Plan again.")
		return
	}
	if len(clashes) == 0 {
		return
	}
	items := make([]string, 0, len(clashes))
	for _, c := range clashes {
		items = append(items, connection.Quote(c.name)+" ("+c.id+")")
	}
	diags.AddAttributeError(attr, "Devices with these names already exist",
		fmt.Sprintf("Fleet %s of workspace %s already has %d devices with names that this plan would create again, "+
			"and this resource does not hold them: %s. The API cannot delete a device, so creating them would leave "+
			"second copies forever. Nothing was sent.\n\n"+
			"If they are this resource's devices (after terraform taint, -replace, a renamed for_each key or a changed "+
			"resource address), keep them: run terraform untaint on the address, drop -replace, or add a moved block "+
			"from the old address to the new one. If they were made outside this resource, import them %s "+
			"To create second devices with the same names anyway, set %s = true.",
			connection.Quote(fleet), connection.Quote(ws), len(clashes), listSome(items), importHint(fleet), allowDuplicateNamesAttr))
}
