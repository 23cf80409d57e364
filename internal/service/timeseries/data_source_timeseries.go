package timeseries

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/datasourcevalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/zdm/terraform-provider-zdm/internal/client"
	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/framework/validators"
	"github.com/zdm/terraform-provider-zdm/internal/framework/values"
	"github.com/zdm/terraform-provider-zdm/internal/service/objects"
)

var (
	_ datasource.DataSource                     = (*timeseriesDataSource)(nil)
	_ datasource.DataSourceWithConfigure        = (*timeseriesDataSource)(nil)
	_ datasource.DataSourceWithConfigValidators = (*timeseriesDataSource)(nil)
	_ datasource.DataSourceWithValidateConfig   = (*timeseriesDataSource)(nil)
)

func NewTimeseriesDataSource() datasource.DataSource {
	return &timeseriesDataSource{DataSourceBase: objects.DataSourceBase{TypeSuffix: "_timeseries"}}
}

// timeseriesDataSource reads stored data points of a workspace.
type timeseriesDataSource struct {
	objects.DataSourceBase
}

// timeseriesModel maps the zdm_timeseries data source.
type timeseriesModel struct {
	WorkspaceID types.String `tfsdk:"workspace_id"`
	Start       types.String `tfsdk:"start"`
	End         types.String `tfsdk:"end"`
	Devices     types.Set    `tfsdk:"devices"`
	Tags        types.Set    `tfsdk:"tags"`
	Sort        types.String `tfsdk:"sort"`
	From        types.Int64  `tfsdk:"from"`
	Size        types.Int64  `tfsdk:"size"`
	MaxPoints   types.Int64  `tfsdk:"max_points"`
	AsJSON      types.Bool   `tfsdk:"as_json"`
	Points      types.List   `tfsdk:"points"`
	PointsJSON  types.String `tfsdk:"points_json"`
	PointCount  types.Int64  `tfsdk:"point_count"`
}

func (d *timeseriesDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	filter := validators.NotEmptySet()
	point := func(description string) schema.StringAttribute {
		return schema.StringAttribute{MarkdownDescription: description, Computed: true}
	}
	resp.Schema = schema.Schema{
		MarkdownDescription: "Reads the data points that devices of a workspace published, from the time-series " +
			"storage service (`storage_url` of the provider; storage must be enabled for the workspace). " +
			"Either one page (`from`, `size`) or every page up to `max_points` is read. Points are filtered by " +
			"device time (`start` inclusive, `end` exclusive), device and tag, and sorted by device time, newest first " +
			"unless `sort` says otherwise.",
		Attributes: map[string]schema.Attribute{
			"workspace_id": objects.WorkspaceLookupAttribute(),
			"start": schema.StringAttribute{
				MarkdownDescription: "Only points whose device time is at or after this time (inclusive), in RFC 3339 " +
					"format such as `2025-01-31T00:00:00Z`. Must be before `end`. Any offset is accepted; it is sent " +
					"in UTC (`Z`), the same instant.",
				Optional:   true,
				Validators: []validator.String{validators.Rfc3339{}},
			},
			"end": schema.StringAttribute{
				MarkdownDescription: "Only points whose device time is before this time (exclusive), in RFC 3339 format; " +
					"sent in UTC (`Z`), the same instant.",
				Optional:   true,
				Validators: []validator.String{validators.Rfc3339{}},
			},
			"devices": schema.SetAttribute{
				MarkdownDescription: "Only points of these device IDs. All devices when not set; an empty set is an error.",
				ElementType:         types.StringType,
				Optional:            true,
				Validators:          filter,
			},
			"tags": schema.SetAttribute{
				MarkdownDescription: "Only points with one of these tags. All tags when not set; an empty set is an error.",
				ElementType:         types.StringType,
				Optional:            true,
				Validators:          filter,
			},
			"sort": schema.StringAttribute{
				MarkdownDescription: "Order of the points by device time: `-timestamp_device` (newest first, the " +
					"default) or `timestamp_device` (oldest first). Pages follow this order.",
				Optional:   true,
				Validators: []validator.String{stringvalidator.OneOf(client.SortDescending, client.SortAscending)},
			},
			"from": schema.Int64Attribute{
				MarkdownDescription: "Index of the page to read, from 0 (the default): the page holds the points " +
					"after the first `from * size` ones. Conflicts with `max_points`.",
				Optional:   true,
				Validators: []validator.Int64{int64validator.AtLeast(0)},
			},
			"size": schema.Int64Attribute{
				MarkdownDescription: fmt.Sprintf("Points per page, from 0 to %d. When reading one page, the "+
					"service's default (100) applies when not set. With `max_points`, it is the size of each request "+
					"(at least 1; default %d).", client.MaxPageSize, defaultTimeseriesPageSize),
				Optional:   true,
				Validators: []validator.Int64{int64validator.Between(0, client.MaxPageSize)},
			},
			"max_points": schema.Int64Attribute{
				MarkdownDescription: fmt.Sprintf("Read every page, in requests of `size` points, until no point is "+
					"left or this many points are read (1 to %d). Conflicts with `from`. The points are streamed "+
					"from the service, but all of them are kept in the Terraform state. Devices may publish while the "+
					"pages are read: every point stored before the read began (and matching the filters) is returned "+
					"once, unless `max_points` stops the read first; a point that a shift of the pages brings back "+
					"(same device, tag and device time, compared as instants) is dropped, and `max_points` counts "+
					"distinct points. Points stored during the read may or may not be returned.", maxTimeseriesPoints),
				Optional:   true,
				Validators: []validator.Int64{int64validator.Between(1, maxTimeseriesPoints)},
			},
			"as_json": schema.BoolAttribute{
				MarkdownDescription: "Return the points as one JSON text in `points_json` instead of the list " +
					"`points` (which is then `null`). Use it for large reads (tens of thousands of points and more, " +
					"typically with `max_points`): Terraform holds a list of objects as several times the memory of " +
					"its JSON, while `points_json` is a single string about the size of the answer. Default `false`.",
				Optional: true,
			},
			"points_json": schema.StringAttribute{
				MarkdownDescription: "With `as_json = true`, the points read, in the order of `sort`, as one compact " +
					"JSON array of objects with the keys of the items of `points` (`timestamp_device`, `timestamp_in`, " +
					"`fleet_id`, `device_id`, `tag`, `payload`); `null` otherwise. Decode it with `jsondecode`: this " +
					"gives the same items as `points`, except that `payload` is the decoded value (an object, or " +
					"`null` when the point has no payload) rather than JSON text, so no second `jsondecode` is " +
					"needed. Use it for large reads, where `points` would take too much memory.",
				Computed: true,
			},
			"point_count": schema.Int64Attribute{
				MarkdownDescription: "Number of points read, in both forms (`points` and `points_json`). Use it " +
					"rather than `length(jsondecode(points_json))` to count the points of a large read without " +
					"decoding them.",
				Computed: true,
			},
			"points": schema.ListNestedAttribute{
				MarkdownDescription: "The data points read, in the order of `sort`; `null` with `as_json = true` " +
					"(see `points_json`). Use it for small and medium reads: each point is a Terraform object, which " +
					"takes several times the memory of its JSON, so prefer `as_json` for large reads.",
				Computed: true,
				NestedObject: schema.NestedAttributeObject{
					CustomType: pointObjectType,
					Attributes: map[string]schema.Attribute{
						pointFields[pointTimestampDevice]: point("Time set by the device (RFC 3339)."),
						pointFields[pointTimestampIn]:     point("Time the service ingested the point (RFC 3339)."),
						pointFields[pointFleetID]:         point("ID of the fleet of the device when it published the point."),
						pointFields[pointDeviceID]:        point("ID of the device."),
						pointFields[pointTag]:             point("Tag of the point."),
						pointFields[pointPayload]: point("Payload as compact JSON text (keys in the order the device " +
							"sent them); decode it with `jsondecode`. `null` when the point has no payload."),
					},
				},
			},
		},
	}
}

func (d *timeseriesDataSource) ConfigValidators(context.Context) []datasource.ConfigValidator {
	return []datasource.ConfigValidator{
		datasourcevalidator.Conflicting(path.MatchRoot("from"), path.MatchRoot("max_points")),
	}
}

// ValidateConfig checks what involves several attributes: start before end,
// and a page size of at least 1 with max_points.
func (d *timeseriesDataSource) ValidateConfig(ctx context.Context, req datasource.ValidateConfigRequest, resp *datasource.ValidateConfigResponse) {
	var cfg timeseriesModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &cfg)...)
	if resp.Diagnostics.HasError() {
		return
	}
	if values.Known(cfg.Start) && values.Known(cfg.End) {
		start, errS := validators.ParseRFC3339(cfg.Start.ValueString())
		end, errE := validators.ParseRFC3339(cfg.End.ValueString())
		if errS == nil && errE == nil && !start.Before(end) {
			resp.Diagnostics.AddAttributeError(path.Root("end"), "Invalid time range",
				"end ("+cfg.End.ValueString()+") must be after start ("+cfg.Start.ValueString()+
					"): start is inclusive and end exclusive, so this range holds no point.")
		}
	}
	if !cfg.MaxPoints.IsNull() && !cfg.Size.IsNull() && !cfg.Size.IsUnknown() && cfg.Size.ValueInt64() < 1 {
		resp.Diagnostics.AddAttributeError(path.Root("size"), "Invalid size",
			"With max_points, size is the number of points per request and must be at least 1, not "+
				fmt.Sprint(cfg.Size.ValueInt64())+".")
	}
}

func (d *timeseriesDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	cfg, ok := connection.Decode[timeseriesModel](ctx, d.Data, req.Config, &resp.Diagnostics)
	if !ok {
		return
	}
	if !d.Data.HasStorage {
		resp.Diagnostics.AddError("Missing storage_url",
			"zdm_timeseries reads the time-series storage service, and the provider has no address for it: set "+
				"storage_url in the provider block or the "+connection.EnvStorageURL+" environment variable.")
		return
	}
	ws := objects.WorkspaceOrDefault(d.Data, cfg.WorkspaceID, path.Root("workspace_id"), &resp.Diagnostics)
	if resp.Diagnostics.HasError() {
		return
	}
	q := client.DataQuery{
		Start:   cfg.Start.ValueString(),
		End:     cfg.End.ValueString(),
		Sort:    cfg.Sort.ValueString(),
		Devices: values.SetStrings(ctx, cfg.Devices, &resp.Diagnostics),
		Tags:    values.SetStrings(ctx, cfg.Tags, &resp.Diagnostics),
	}
	if resp.Diagnostics.HasError() {
		return
	}
	plan := timeseriesPlan{maxPoints: -1}
	if !cfg.MaxPoints.IsNull() {
		plan.maxPoints = int(cfg.MaxPoints.ValueInt64())
		plan.size = defaultTimeseriesPageSize
	}
	if !cfg.From.IsNull() {
		plan.from = int(cfg.From.ValueInt64())
		plan.fromSet = true
	}
	if !cfg.Size.IsNull() {
		plan.size = int(cfg.Size.ValueInt64())
		plan.sizeSet = true
	}

	cfg.WorkspaceID = types.StringValue(ws)
	if cfg.AsJSON.ValueBool() {
		jb := newPointsJSONBuilder(plan.capacity())
		if err := readTimeseries(ctx, d.Data.Client.StreamData, ws, q, plan, jb.add); err != nil {
			addTimeseriesError(&resp.Diagnostics, ws, err)
			return
		}
		cfg.Points = types.ListNull(pointObjectType)
		cfg.PointsJSON = types.StringValue(jb.finish())
		cfg.PointCount = types.Int64Value(int64(jb.n))
	} else {
		b := newPointsBuilder(plan.capacity())
		if err := readTimeseries(ctx, d.Data.Client.StreamData, ws, q, plan, b.add); err != nil {
			addTimeseriesError(&resp.Diagnostics, ws, err)
			return
		}
		cfg.Points = b.list()
		cfg.PointsJSON = types.StringNull()
		cfg.PointCount = types.Int64Value(int64(len(b.elems)))
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, &cfg)...)
}

// Limits of the paging attributes.
const (
	// maxTimeseriesPoints caps max_points.
	maxTimeseriesPoints = 10_000_000
	// defaultTimeseriesPageSize is the page size when reading every page up
	// to max_points and size is not set.
	defaultTimeseriesPageSize = 10_000
)

// addTimeseriesError reports a failed read, explaining a 403.
func addTimeseriesError(diags *diag.Diagnostics, ws string, err error) {
	if client.IsStatus(err, http.StatusForbidden) {
		diags.AddAttributeError(path.Root("workspace_id"), "Storage is not enabled for workspace "+ws,
			"The storage service refused to read workspace "+ws+": storage is not enabled for workspace "+ws+
				"; enable it in the console (the workspace's settings) and read again. The service gives the same "+
				"answer when the API key is bound to another workspace. Answer of the service: "+err.Error())
		return
	}
	diags.AddError("Cannot read the data points of workspace "+ws, err.Error())
}

// timeseriesPlan is how the points are fetched: one page (maxPoints < 0),
// or pages of size until maxPoints points.
type timeseriesPlan struct {
	from, size       int
	fromSet, sizeSet bool
	maxPoints        int
}

// capacity is the number of points to allocate room for up front: what was
// asked for, bounded by one full page so that a large cap does not reserve
// memory for points that may not exist (16 bytes a point).
func (p timeseriesPlan) capacity() int {
	const bound = client.MaxPageSize
	switch {
	case p.maxPoints >= 0:
		return min(p.maxPoints, bound)
	case p.sizeSet:
		return min(p.size, bound)
	default:
		return 100 // the service's default page size
	}
}

// streamFunc is client.StreamData.
type streamFunc func(ctx context.Context, workspaceID string, q client.DataQuery, fn func(client.DataPoint) error) (int, error)

// errEnough stops the stream of the last page once max_points points are read.
var errEnough = errors.New("enough points")

// readTimeseries streams the points of plan to fn: one request for one page,
// or requests for pages 0, 1, ... of plan.size until a page is short or
// plan.maxPoints points were read.
//
// Devices may publish while the pages are read: each new point shifts the
// later pages, so a point can come back on the next page. A point is passed
// to fn once: repeats of the API's unique key (device ID, tag, device time
// compared as an instant) are dropped, and max_points counts distinct
// points. Points never move backwards in the order, so every point stored
// before the read began (and matching the query) is read once, unless
// max_points stops the read first; points stored during the read may or may
// not be returned.
func readTimeseries(ctx context.Context, stream streamFunc, ws string, q client.DataQuery, plan timeseriesPlan, fn func(client.DataPoint) error) error {
	if plan.maxPoints < 0 {
		if plan.fromSet {
			q.From = &plan.from
		}
		if plan.sizeSet {
			q.Size = &plan.size
		}
		_, err := stream(ctx, ws, q, fn)
		return err
	}
	// Every page until maxPoints: a cap below the page size needs one request.
	size := min(plan.size, plan.maxPoints)
	q.Size = &size
	read := 0
	seen := map[pointKey]struct{}{}
	for page := 0; ; page++ {
		q.From = &page
		n, err := stream(ctx, ws, q, func(p client.DataPoint) error {
			if read == plan.maxPoints {
				return errEnough
			}
			k := keyOf(&p)
			if _, dup := seen[k]; dup {
				return nil
			}
			seen[k] = struct{}{}
			read++
			return fn(p)
		})
		switch {
		case errors.Is(err, errEnough):
			return nil
		case err != nil:
			return err
		case n < size || read == plan.maxPoints:
			return nil
		}
	}
}

// pointKey is the unique key of a data point: device, tag and device time as
// an instant (Unix nanoseconds), so that "...:00Z" and "...:00.000+00:00"
// are the same point. A device time that does not parse is kept as text.
type pointKey struct {
	device, tag, text string
	unixNano          int64
}

// keyOf returns the unique key of p.
func keyOf(p *client.DataPoint) pointKey {
	k := pointKey{device: p.DeviceID, tag: p.Tag}
	if t, err := time.Parse(time.RFC3339Nano, p.TimestampDevice); err == nil {
		k.unixNano = t.UnixNano()
	} else {
		k.text = p.TimestampDevice
	}
	return k
}
