package jobs

import (
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/framework/values"
)

// The job of a device as data sources and list resources show it, and its
// read-only attributes in data sources.

// JobItemModel is one job of a device in data sources.
type JobItemModel struct {
	Name        types.String `tfsdk:"name"`
	Status      types.String `tfsdk:"status"`
	ScheduledAt types.String `tfsdk:"scheduled_at"`
	Value       types.String `tfsdk:"value"`
}

// FlattenJobItem copies an API job into the model; the value is compact
// JSON with sorted keys, whatever order the service echoes them in.
func FlattenJobItem(j *client.Job) JobItemModel {
	return JobItemModel{
		Name:        types.StringValue(j.Name),
		Status:      types.StringValue(j.Status),
		ScheduledAt: types.StringValue(j.ScheduledAt),
		Value:       types.StringValue(values.SortedJSON(j.Value)),
	}
}

// JobItemAttributes are the read-only attributes of a job in data sources.
func JobItemAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"name": schema.StringAttribute{MarkdownDescription: "Job name.", Computed: true},
		"status": schema.StringAttribute{
			MarkdownDescription: "Job status: `pending` until the device has run the job, then `done`.",
			Computed:            true,
		},
		"scheduled_at": schema.StringAttribute{
			MarkdownDescription: "When the job was (last) scheduled (RFC 3339).",
			Computed:            true,
		},
		"value": schema.StringAttribute{
			MarkdownDescription: "Arguments of the job, as compact JSON text with the keys of every object sorted (the " +
				"same text whatever order the service answers them in; decode it with `jsondecode`); `null` when " +
				"the service does not echo them.",
			Computed: true,
		},
	}
}
