package objects

import (
	"context"
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/resource/identityschema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/zdm/terraform-provider-zdm/internal/connection"
)

// Resource identities. A workspace is identified by its ID; a fleet or a
// device by its workspace and its ID. Identities are set by every Create,
// Read, Update and ImportState, so that import blocks can name an object
// with `identity = { ... }` and `terraform query` can list objects to import.
// String import IDs ("<workspace_id>/<id>", "<device_id>/<job_name>") are
// parsed here too.

// WorkspaceIdentityModel is the identity of a zdm_workspace.
type WorkspaceIdentityModel struct {
	ID types.String `tfsdk:"id"`
}

// InWorkspaceIdentityModel is the identity of a zdm_fleet or a zdm_device.
type InWorkspaceIdentityModel struct {
	WorkspaceID types.String `tfsdk:"workspace_id"`
	ID          types.String `tfsdk:"id"`
}

// NewInWorkspaceIdentity returns the identity of an object of workspace ws.
func NewInWorkspaceIdentity(ws, id string) InWorkspaceIdentityModel {
	return InWorkspaceIdentityModel{WorkspaceID: types.StringValue(ws), ID: types.StringValue(id)}
}

// WorkspaceIdentitySchema is the identity schema of zdm_workspace.
func WorkspaceIdentitySchema() identityschema.Schema {
	return identityschema.Schema{
		Attributes: map[string]identityschema.Attribute{
			"id": identityschema.StringAttribute{
				Description:       "Workspace ID.",
				RequiredForImport: true,
			},
		},
	}
}

// InWorkspaceIdentitySchema is the identity schema of an object of kind
// ("fleet", "device") that lives in a workspace.
func InWorkspaceIdentitySchema(kind string) identityschema.Schema {
	return identityschema.Schema{
		Attributes: map[string]identityschema.Attribute{
			"workspace_id": identityschema.StringAttribute{
				Description: "ID of the workspace of the " + kind + ". May be left out of an import block's " +
					"`identity` to use the provider's `workspace_id`.",
				OptionalForImport: true,
			},
			"id": identityschema.StringAttribute{
				Description:       strings.ToUpper(kind[:1]) + kind[1:] + " ID.",
				RequiredForImport: true,
			},
		},
	}
}

// SetIdentity stores v as the identity of the response. Identity is nil
// when Terraform does not support identities (before 1.12).
func SetIdentity(ctx context.Context, identity *tfsdk.ResourceIdentity, v any, diags *diag.Diagnostics) {
	if identity == nil {
		return
	}
	diags.Append(identity.Set(ctx, v)...)
}

// IdentityFromState fills a null identity (of an object in a state written
// before resources had identities) from the attributes of the same names in
// the state, for a Read that cannot reach the API: Terraform requires every
// Read to return an identity.
func IdentityFromState(ctx context.Context, state tfsdk.State, identity *tfsdk.ResourceIdentity, diags *diag.Diagnostics) {
	if identity == nil || !identity.Raw.IsNull() || state.Raw.IsNull() {
		return
	}
	for name := range identity.Schema.GetAttributes() {
		var v types.String
		diags.Append(state.GetAttribute(ctx, path.Root(name), &v)...)
		diags.Append(identity.SetAttribute(ctx, path.Root(name), v)...)
	}
}

// importPrivateKey marks, in the private state of an imported object, that
// the next Read follows the import: an object that does not exist is then an
// error that names it instead of being silently removed from the state.
const importPrivateKey = "importing"

// importPrivate is the value stored under importPrivateKey.
var importPrivate = []byte(`true`)

// markImported sets importPrivateKey in the private state of an import.
func markImported(ctx context.Context, resp *resource.ImportStateResponse) {
	if resp.Private == nil {
		return
	}
	resp.Diagnostics.Append(resp.Private.SetKey(ctx, importPrivateKey, importPrivate)...)
}

// FollowsImport reports whether a Read follows an import (see
// importPrivateKey).
func FollowsImport(ctx context.Context, req resource.ReadRequest, diags *diag.Diagnostics) bool {
	if req.Private == nil {
		return false
	}
	v, d := req.Private.GetKey(ctx, importPrivateKey)
	diags.Append(d...)
	return len(v) > 0
}

// ClearImported removes importPrivateKey from the private state after a
// successful Read.
func ClearImported(ctx context.Context, resp *resource.ReadResponse) {
	if resp.Private == nil {
		return
	}
	resp.Diagnostics.Append(resp.Private.SetKey(ctx, importPrivateKey, nil)...)
}

// NotFoundAtImport is the error of an import of an object that does not
// exist; where names the object, such as `device "dev-1" of workspace "wks-1"`.
func NotFoundAtImport(diags *diag.Diagnostics, kind, where string) {
	diags.AddError("Cannot import "+kind+": not found",
		"The "+where+" does not exist, or the API key cannot see it. Check the ID in the import block "+
			"(`id` or `identity`) or in the terraform import command; list the existing "+kind+"s with "+
			"terraform query or the zdm_"+kind+"s data source.")
}

// byIdentity reports whether an import names the object by its identity
// (an import block with identity) rather than by an import ID.
func byIdentity(req resource.ImportStateRequest) bool {
	return req.ID == "" && req.Identity != nil && !req.Identity.Raw.IsNull()
}

// ImportWorkspace imports a zdm_workspace from the import ID
// "<workspace_id>" or from the identity { id }.
func ImportWorkspace(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	id := req.ID
	if byIdentity(req) {
		var ident WorkspaceIdentityModel
		resp.Diagnostics.Append(req.Identity.Get(ctx, &ident)...)
		if resp.Diagnostics.HasError() {
			return
		}
		id = ident.ID.ValueString()
		if strings.TrimSpace(id) == "" {
			resp.Diagnostics.AddError("Invalid import identity",
				"The identity of a workspace needs a non-empty id: identity = { id = \"<workspace_id>\" }.")
			return
		}
	} else if strings.TrimSpace(id) == "" || strings.Contains(id, "/") {
		resp.Diagnostics.AddError("Invalid import ID",
			"Expected the workspace ID (\"<workspace_id>\"), got "+connection.Quote(req.ID)+".")
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), id)...)
	SetIdentity(ctx, resp.Identity, WorkspaceIdentityModel{ID: types.StringValue(id)}, &resp.Diagnostics)
	markImported(ctx, resp)
}

// ImportInWorkspaceWithIdentity imports an object of kind that lives in a
// workspace, from the import ID "<workspace_id>/<id>" or "<id>" (in the
// provider's default workspace), or from the identity { workspace_id, id }
// where workspace_id defaults to the provider's.
func ImportInWorkspaceWithIdentity(ctx context.Context, d *connection.ProviderData, kind string, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	if !byIdentity(req) {
		importInWorkspace(ctx, d, kind, req, resp)
		if resp.Diagnostics.HasError() {
			return
		}
		var ws, id types.String
		resp.Diagnostics.Append(resp.State.GetAttribute(ctx, path.Root("workspace_id"), &ws)...)
		resp.Diagnostics.Append(resp.State.GetAttribute(ctx, path.Root("id"), &id)...)
		if resp.Diagnostics.HasError() {
			return
		}
		SetIdentity(ctx, resp.Identity, InWorkspaceIdentityModel{WorkspaceID: ws, ID: id}, &resp.Diagnostics)
		markImported(ctx, resp)
		return
	}

	var ident InWorkspaceIdentityModel
	resp.Diagnostics.Append(req.Identity.Get(ctx, &ident)...)
	if resp.Diagnostics.HasError() {
		return
	}
	format := "identity = { workspace_id = \"<workspace_id>\", id = \"<" + kind + "_id>\" } (workspace_id may be " +
		"left out to use the provider's workspace_id)"
	id := ident.ID.ValueString()
	if strings.TrimSpace(id) == "" {
		resp.Diagnostics.AddError("Invalid import identity",
			"The identity of a "+kind+" needs a non-empty id: "+format+".")
		return
	}
	ws := ident.WorkspaceID.ValueString()
	if !ident.WorkspaceID.IsNull() && strings.TrimSpace(ws) == "" {
		resp.Diagnostics.AddError("Invalid import identity",
			"The workspace_id of the identity is empty: "+format+".")
		return
	}
	if ws == "" {
		if d == nil || d.WorkspaceID == "" {
			resp.Diagnostics.AddError("Invalid import identity",
				"The identity names no workspace and the provider has no workspace_id (nor "+connection.EnvWorkspaceID+
					"): "+format+".")
			return
		}
		ws = d.WorkspaceID
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("workspace_id"), ws)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), id)...)
	SetIdentity(ctx, resp.Identity, NewInWorkspaceIdentity(ws, id), &resp.Diagnostics)
	markImported(ctx, resp)
}

// parseImportID splits an import ID of an object that lives in a workspace:
// "<workspace_id>/<id>", or "<id>" for the provider's default workspace
// (returned as an empty workspace).
func parseImportID(raw, kind string) (workspaceID, id string, err error) {
	format := fmt.Sprintf("expected \"<workspace_id>/<%s_id>\" or \"<%s_id>\" (in the provider's workspace)", kind, kind)
	parts := strings.Split(raw, "/")
	switch len(parts) {
	case 1:
		if strings.TrimSpace(parts[0]) == "" {
			return "", "", fmt.Errorf("empty import ID: %s", format)
		}
		return "", parts[0], nil
	case 2:
		if strings.TrimSpace(parts[0]) == "" || strings.TrimSpace(parts[1]) == "" {
			return "", "", fmt.Errorf("import ID %q has an empty part: %s", raw, format)
		}
		return parts[0], parts[1], nil
	default:
		return "", "", fmt.Errorf("import ID %q has %d parts: %s", raw, len(parts), format)
	}
}

// importInWorkspace imports an object of kind that lives in a workspace from
// "<workspace_id>/<id>" or "<id>" (in the provider's default workspace).
func importInWorkspace(ctx context.Context, d *connection.ProviderData, kind string, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	ws, id, err := parseImportID(req.ID, kind)
	if err != nil {
		resp.Diagnostics.AddError("Invalid import ID", err.Error()+".")
		return
	}
	if ws == "" {
		if d == nil || d.WorkspaceID == "" {
			resp.Diagnostics.AddError("Invalid import ID",
				"The import ID "+connection.Quote(req.ID)+" names no workspace and the provider has no workspace_id (nor "+
					connection.EnvWorkspaceID+"): use \"<workspace_id>/<"+kind+"_id>\".")
			return
		}
		ws = d.WorkspaceID
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("workspace_id"), ws)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), id)...)
}

// DeviceJobID is the ID (and import ID) of a device job.
func DeviceJobID(deviceID, name string) string {
	return deviceID + "/" + name
}

// ParseDeviceJobID splits "<device_id>/<job_name>" at the first "/": the job
// name may contain "/", the device ID may not.
func ParseDeviceJobID(raw string) (deviceID, name string, err error) {
	dev, name, ok := strings.Cut(raw, "/")
	if !ok || strings.TrimSpace(dev) == "" || strings.TrimSpace(name) == "" {
		return "", "", fmt.Errorf("import ID %q is not \"<device_id>/<job_name>\" (the job name is everything after "+
			"the first \"/\")", raw)
	}
	return dev, name, nil
}

// DeviceJobIdentityModel is the identity of a zdm_device_job.
type DeviceJobIdentityModel struct {
	DeviceID types.String `tfsdk:"device_id"`
	Name     types.String `tfsdk:"name"`
}

// DeviceJobIdentitySchema is the identity schema of zdm_device_job.
func DeviceJobIdentitySchema() identityschema.Schema {
	return identityschema.Schema{
		Attributes: map[string]identityschema.Attribute{
			"device_id": identityschema.StringAttribute{
				Description:       "ID of the device of the job (any string, \"/\" included).",
				RequiredForImport: true,
			},
			"name": identityschema.StringAttribute{
				Description:       "Name of the job.",
				RequiredForImport: true,
			},
		},
	}
}

// ImportDeviceJob imports a zdm_device_job from the import ID
// "<device_id>/<job_name>" (split at the first "/") or from the identity
// { device_id, name }, which works for every device ID.
func ImportDeviceJob(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	var dev, name string
	if byIdentity(req) {
		var ident DeviceJobIdentityModel
		resp.Diagnostics.Append(req.Identity.Get(ctx, &ident)...)
		if resp.Diagnostics.HasError() {
			return
		}
		dev, name = ident.DeviceID.ValueString(), ident.Name.ValueString()
		if strings.TrimSpace(dev) == "" || strings.TrimSpace(name) == "" {
			resp.Diagnostics.AddError("Invalid import identity",
				"The identity of a job needs a non-empty device_id and name: "+
					"identity = { device_id = \"<device_id>\", name = \"<job_name>\" }.")
			return
		}
	} else {
		var err error
		if dev, name, err = ParseDeviceJobID(req.ID); err != nil {
			resp.Diagnostics.AddError("Invalid import ID", err.Error()+". A device ID that contains \"/\" "+
				"needs an import block with identity = { device_id = \"<device_id>\", name = \"<job_name>\" }.")
			return
		}
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), DeviceJobID(dev, name))...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("device_id"), dev)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("name"), name)...)
	SetIdentity(ctx, resp.Identity, DeviceJobIdentityModel{DeviceID: types.StringValue(dev), Name: types.StringValue(name)},
		&resp.Diagnostics)
}

// fotaIdentityModel is the identity of a zdm_fota: device_id for the update
// of one device; workspace_id for an update of fleets, which cannot be
// imported (the service has no fleet-wide read).
type fotaIdentityModel struct {
	DeviceID    types.String `tfsdk:"device_id"`
	WorkspaceID types.String `tfsdk:"workspace_id"`
}

// NewFOTAIdentity returns the identity of the update of one device (when
// deviceID is not null) or of fleets of workspaceID.
func NewFOTAIdentity(deviceID, workspaceID types.String) fotaIdentityModel {
	if !deviceID.IsNull() {
		return fotaIdentityModel{DeviceID: deviceID, WorkspaceID: types.StringNull()}
	}
	return fotaIdentityModel{DeviceID: types.StringNull(), WorkspaceID: workspaceID}
}

// FOTAIdentitySchema is the identity schema of zdm_fota.
func FOTAIdentitySchema() identityschema.Schema {
	return identityschema.Schema{
		Attributes: map[string]identityschema.Attribute{
			"device_id": identityschema.StringAttribute{
				Description: "ID of the updated device (any string, \"/\" included). Required for import: only the " +
					"update of one device can be imported.",
				OptionalForImport: true,
			},
			"workspace_id": identityschema.StringAttribute{
				Description:       "ID of the workspace of an update of fleets (null for the update of one device).",
				OptionalForImport: true,
			},
		},
	}
}

// ImportFOTA imports the update of one device from the import ID
// "<device_id>" or from the identity { device_id }.
func ImportFOTA(ctx context.Context, req resource.ImportStateRequest, resp *resource.ImportStateResponse) {
	dev := req.ID
	if byIdentity(req) {
		var ident fotaIdentityModel
		resp.Diagnostics.Append(req.Identity.Get(ctx, &ident)...)
		if resp.Diagnostics.HasError() {
			return
		}
		dev = ident.DeviceID.ValueString()
		if strings.TrimSpace(dev) == "" {
			resp.Diagnostics.AddError("Invalid import identity",
				"The identity of a firmware update needs a non-empty device_id: identity = { device_id = "+
					"\"<device_id>\" }. Only the update of one device can be imported; updates of fleets cannot "+
					"be read back from the service.")
			return
		}
	} else if strings.TrimSpace(dev) == "" {
		resp.Diagnostics.AddError("Invalid import ID",
			"The import ID is empty: it must be the device ID of the update of one device, or "+
				"<workspace_id>/<firmware_id>/<firmware_version> for an update of fleets.")
		return
	}
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("id"), dev)...)
	resp.Diagnostics.Append(resp.State.SetAttribute(ctx, path.Root("device_id"), dev)...)
	SetIdentity(ctx, resp.Identity, NewFOTAIdentity(types.StringValue(dev), types.StringNull()), &resp.Diagnostics)
}
