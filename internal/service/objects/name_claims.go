package objects

import (
	"sort"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/zdm/terraform-provider-zdm/internal/connection"
)

// Names claimed by the plans of one walk.
//
// The check of a create against the service (duplicates.go) sees what the
// service holds, not what the other resources of the same configuration
// are about to create: two zdm_device of one name in one fleet, or two
// zdm_fleet of one name in one workspace, each pass it, and the apply makes
// both. So every plan that creates an object, or renames or moves one,
// claims the name in its place (a fleet for devices, a workspace for
// fleets, the account for workspaces) in the walk's registry
// (connection.Registry[NameClaims]), and a name claimed twice in one place
// fails the plan of the resource planned second, naming both. Terraform
// plans every resource of a configuration in one walk of one provider
// process, and the apply's final plans in another walk, where the check
// repeats with the values known by then (`terraform test` plans and
// applies a run in one: a claim repeated by the same resource and key is
// not a second one, so two resources that describe themselves the same,
// such as two zdm_device of one name in one fleet, are not told apart
// here). A resource planned for destroy,
// or with allow_duplicate_names, claims nothing. Provider configurations
// (aliases) and other states are other processes: they are not compared
// here, and twins they make are found after the create (twins.go).

// NameClaims holds the names claimed by the plans of one walk, by place.
// Its zero value is ready.
type NameClaims struct {
	mu     sync.Mutex
	places map[string]map[string]nameClaim
	// owners holds the resource of each claim (one per Claim call), such
	// as `zdm_fleet_devices of fleet "flt-1"`: claim n is owners[n-1].
	owners []string
}

// nameClaim is one plan's hold on a name in a place: 24 bytes (the name is
// the map's key, sharing the plan's string), for each device a plan
// creates, renames or moves.
type nameClaim struct {
	key   string // the key in the owner's map, "" for a resource of one object
	owner uint32 // which claim, from 1
}

// ClaimedName is one name that is also planned by another resource:
// Name, and both resources (Earlier planned first), each with its key.
type ClaimedName struct {
	Name    string
	Earlier string
	Later   string
}

// PlannedName is a name that a plan creates, renames or moves into a place,
// with its key in the resource's map ("" for a resource of one object).
type PlannedName struct{ Name, Key string }

// Claim records that the plan of owner puts names into place (any string
// that tells places apart: a workspace and fleet, a workspace, the
// account), and returns the names another plan of the walk put there
// already, sorted. Names repeated within names are one plan's own.
func (c *NameClaims) Claim(place, owner string, names []PlannedName) []ClaimedName {
	if len(names) == 0 {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.places == nil {
		c.places = map[string]map[string]nameClaim{}
	}
	m := c.places[place]
	if m == nil {
		m = make(map[string]nameClaim, len(names))
		c.places[place] = m
	}
	c.owners = append(c.owners, owner)
	n := uint32(len(c.owners)) //nolint:gosec // G115: one claim per planned resource of a walk, far below 2^32.
	var out []ClaimedName
	for _, p := range names {
		// The same resource and key claiming again is that resource planned
		// again in one process: `terraform test` plans and applies a run
		// with one configured provider, so the apply's final plan repeats
		// the plan's claim. Two resources that describe themselves the
		// same (two zdm_device of one name in one fleet) cannot be told
		// from it, and are left to the check after the create.
		if prev, ok := m[p.Name]; ok && prev.owner != n && (c.owners[prev.owner-1] != owner || prev.key != p.Key) {
			out = append(out, ClaimedName{Name: p.Name, Earlier: DescribeClaim(c.owners[prev.owner-1], prev.key),
				Later: DescribeClaim(owner, p.Key)})
			continue
		}
		m[p.Name] = nameClaim{key: p.Key, owner: n}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// DescribeClaim names a resource and, when set, a key of its map.
func DescribeClaim(owner, key string) string {
	if key == "" {
		return owner
	}
	return owner + ", key " + connection.Quote(key)
}

// ClaimedItems formats claimed names for a message, as
// `"name": <earlier> and <later>`.
func ClaimedItems(claimed []ClaimedName) []string {
	items := make([]string, len(claimed))
	for i, c := range claimed {
		items[i] = connection.Quote(c.Name) + ": " + c.Earlier + " and " + c.Later
	}
	return items
}

// ClaimOwner describes a resource of one named object for its claim:
// `zdm_fleet "x"`, with its description when it has one, so that two
// resources of one name that differ in it are told apart from one
// resource planned twice.
func ClaimOwner(typ, name, description string) string {
	if description == "" {
		return typ + " " + connection.Quote(name)
	}
	return typ + " " + connection.Quote(name) + " (description " + connection.Quote(description) + ")"
}

// ClaimOne is Claim of one object of kind named name in place, reported
// on diags at attr: where names the place in the error ("workspace
// \"wks-1\"", "the account").
func ClaimOne(d *connection.ProviderData, kind, where, place, owner, name string, attr path.Path, diags *diag.Diagnostics) {
	if d == nil {
		return
	}
	claimed := connection.Registry[NameClaims](d).Claim(place, owner, []PlannedName{{Name: name}})
	if len(claimed) == 0 {
		return
	}
	summary, detail := NamedTwiceError(kind, where, ClaimedItems(claimed))
	diags.AddAttributeError(attr, summary, detail)
}

// NamedTwiceError is the summary and detail of the error of a plan that
// would make two objects of kind with one name in where (items from
// ClaimedItems).
func NamedTwiceError(kind, where string, items []string) (string, string) {
	return "Two resources of this configuration create a " + kind + " of one name",
		"This plan would make two " + kind + "s of one name in " + where + ", one for each of two resources of this " +
			"configuration: " + connection.AbbreviateTo(items, connection.MaxListed) + ". The API cannot delete a " + kind +
			", so the second would stay forever, and every lookup of the name would fail. Nothing was sent.\n\n" +
			"Give one of them another name, or remove one of them from the configuration (if both are meant to manage " +
			"one " + kind + ", keep one resource and refer to it from the other places). To create both anyway, set " +
			AllowDuplicateNamesAttr + " = true on both."
}
