package rollouts

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/setvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	actionschema "github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/zdm/terraform-provider-zdm/internal/connection"
	"github.com/zdm/terraform-provider-zdm/internal/rollout"
)

// This file holds min_devices_reported, max_devices_per_minute and the
// maintenance_window blocks of the rollouts.

// MaxPerMinute bounds max_devices_per_minute; maxWindows the
// maintenance_window blocks.
const (
	MaxPerMinute = 6000
	maxWindows   = 50
)

// PacingDocs are the descriptions of the pacing inputs and of the
// maintenance_window block.
var PacingDocs = map[string]string{
	"min_devices_reported": "How many devices of a wave must have reported (a success or failure status, or " +
		"a `health_check` verdict) before failures can stop the wave: below it, the wave keeps waiting even when " +
		"its failures already pass `max_failure_ratio`, so that one early failure does not stop a large wave. " +
		"Once every device of the wave reported, or `wave_timeout` passes, the gate decides whatever the number. " +
		"A wave with fewer devices needs all of them. No minimum by default.",
	"max_devices_per_minute": fmt.Sprintf("At most this many devices are scheduled a minute (1 to %d): the "+
		"schedules of the rollout, one request per device, go out a minute divided by this number apart, across "+
		"waves. No pacing by default (`parallelism` at a time). A send more than 30 seconds after its device was "+
		"last read reads it again first, and no send starts outside the `maintenance_window` blocks: a wave whose "+
		"window closes while it is paced stops sending, keeps what it sent in `wave_results`, and resumes in the "+
		"next window.", MaxPerMinute),
	"maintenance_window": "When waves may start: a new wave starts only inside one of these windows (none: any " +
		"time), and each device is sent the command only inside one. A wave whose window closes while it is being " +
		"scheduled stops sending and goes on in the next window; a wave whose sends are done finishes its wait " +
		"outside them. Outside every window, the apply waits for " +
		"the next one when it opens within `wave_timeout`; otherwise it ends without error, with a warning saying " +
		"when the next window opens, `status = \"stopped\"` and `next_window_opens_at` set, and the next apply " +
		"resumes. Changing the windows in place applies to the waves not started.",
	"days":  "Days of the week the window opens on: `mon`, `tue`, `wed`, `thu`, `fri`, `sat`, `sun`.",
	"start": "When the window opens, `\"HH:MM\"` (24-hour) in `time_zone`.",
	"end": "When the window closes, `\"HH:MM\"` in `time_zone`; a time not after `start` closes it the next day " +
		"(`start = \"22:00\"`, `end = \"04:00\"` runs across midnight, from the days in `days`). On a " +
		"daylight-saving change the window keeps its wall-clock times.",
	"time_zone": "IANA time zone of `start` and `end`, such as `\"Europe/Berlin\"` or `\"UTC\"`.",
}

// clockTimeRE matches "HH:MM", 24-hour.
var clockTimeRE = regexp.MustCompile(`^([01][0-9]|2[0-3]):[0-5][0-9]$`)

var dayNames = []string{"mon", "tue", "wed", "thu", "fri", "sat", "sun"}

// PacingAttributes are the min_devices_reported and max_devices_per_minute
// attributes of the rollout resources.
func PacingAttributes() map[string]schema.Attribute {
	return map[string]schema.Attribute{
		"min_devices_reported": schema.Int64Attribute{MarkdownDescription: PacingDocs["min_devices_reported"], Optional: true,
			Validators: []validator.Int64{int64validator.AtLeast(1)}},
		"max_devices_per_minute": schema.Int64Attribute{MarkdownDescription: PacingDocs["max_devices_per_minute"], Optional: true,
			Validators: []validator.Int64{int64validator.Between(1, MaxPerMinute)}},
	}
}

// PacingActionAttributes are PacingAttributes for a rollout action.
func PacingActionAttributes() map[string]actionschema.Attribute {
	return map[string]actionschema.Attribute{
		"min_devices_reported": actionschema.Int64Attribute{MarkdownDescription: PacingDocs["min_devices_reported"], Optional: true,
			Validators: []validator.Int64{int64validator.AtLeast(1)}},
		"max_devices_per_minute": actionschema.Int64Attribute{MarkdownDescription: PacingDocs["max_devices_per_minute"], Optional: true,
			Validators: []validator.Int64{int64validator.Between(1, MaxPerMinute)}},
	}
}

func windowValidators() (days []validator.Set, clock []validator.String, zone []validator.String) {
	return []validator.Set{setvalidator.SizeAtLeast(1), setvalidator.ValueStringsAre(stringvalidator.OneOf(dayNames...))},
		[]validator.String{stringvalidator.RegexMatches(clockTimeRE, "must be a time of day such as \"22:00\" (24-hour HH:MM)")},
		[]validator.String{stringvalidator.LengthAtLeast(1), timeZone{}}
}

// WindowBlock is the maintenance_window block of the rollout resources.
func WindowBlock() schema.ListNestedBlock {
	days, clock, zone := windowValidators()
	return schema.ListNestedBlock{
		MarkdownDescription: PacingDocs["maintenance_window"],
		Validators:          []validator.List{listvalidator.SizeAtMost(maxWindows)},
		NestedObject: schema.NestedBlockObject{Attributes: map[string]schema.Attribute{
			"days":      schema.SetAttribute{MarkdownDescription: PacingDocs["days"], ElementType: types.StringType, Required: true, Validators: days},
			"start":     schema.StringAttribute{MarkdownDescription: PacingDocs["start"], Required: true, Validators: clock},
			"end":       schema.StringAttribute{MarkdownDescription: PacingDocs["end"], Required: true, Validators: clock},
			"time_zone": schema.StringAttribute{MarkdownDescription: PacingDocs["time_zone"], Required: true, Validators: zone},
		}},
	}
}

// WindowActionBlock is WindowBlock for a rollout action.
func WindowActionBlock() actionschema.ListNestedBlock {
	days, clock, zone := windowValidators()
	return actionschema.ListNestedBlock{
		MarkdownDescription: PacingDocs["maintenance_window"],
		Validators:          []validator.List{listvalidator.SizeAtMost(maxWindows)},
		NestedObject: actionschema.NestedBlockObject{Attributes: map[string]actionschema.Attribute{
			"days":      actionschema.SetAttribute{MarkdownDescription: PacingDocs["days"], ElementType: types.StringType, Required: true, Validators: days},
			"start":     actionschema.StringAttribute{MarkdownDescription: PacingDocs["start"], Required: true, Validators: clock},
			"end":       actionschema.StringAttribute{MarkdownDescription: PacingDocs["end"], Required: true, Validators: clock},
			"time_zone": actionschema.StringAttribute{MarkdownDescription: PacingDocs["time_zone"], Required: true, Validators: zone},
		}},
	}
}

// windowModel is one maintenance_window block.
type windowModel struct {
	Days     types.Set    `tfsdk:"days"`
	Start    types.String `tfsdk:"start"`
	End      types.String `tfsdk:"end"`
	TimeZone types.String `tfsdk:"time_zone"`
}

// ValidateWindows checks what the validators of each attribute cannot: a
// window's start and end differ.
func ValidateWindows(ctx context.Context, v types.List, diags *diag.Diagnostics) {
	if v.IsNull() || v.IsUnknown() {
		return
	}
	var ws []windowModel
	diags.Append(v.ElementsAs(ctx, &ws, false)...)
	for i, w := range ws {
		if w.Start.IsUnknown() || w.End.IsUnknown() || w.Start.IsNull() {
			continue
		}
		if w.Start.ValueString() == w.End.ValueString() {
			diags.AddAttributeError(path.Root("maintenance_window").AtListIndex(i).AtName("end"), "Invalid maintenance_window",
				fmt.Sprintf("maintenance_window %d opens and closes at %s: set an end other than its start (a window "+
					"of a whole day is start = \"00:00\", end = \"23:59\").", i+1, w.Start.ValueString()))
		}
	}
}

// ApplyPacing sets the pacing inputs and the windows of validated inputs in
// spec. A run waits at most spec.WaveTimeout for a window to open.
func ApplyPacing(ctx context.Context, spec *rollout.Spec, minReported, perMinute types.Int64, windows types.List, diags *diag.Diagnostics) {
	spec.MinReported = int(minReported.ValueInt64())
	spec.MaxPerMinute = int(perMinute.ValueInt64())
	spec.WindowWait = spec.WaveTimeout
	if windows.IsNull() || windows.IsUnknown() {
		return
	}
	var ws []windowModel
	diags.Append(windows.ElementsAs(ctx, &ws, false)...)
	for i, w := range ws {
		at := path.Root("maintenance_window").AtListIndex(i)
		loc, err := time.LoadLocation(w.TimeZone.ValueString())
		if err != nil {
			diags.AddAttributeError(at.AtName("time_zone"), "Invalid maintenance_window.time_zone", zoneError(w.TimeZone.ValueString()))
			continue
		}
		start, err1 := rollout.ParseClockTime(w.Start.ValueString())
		end, err2 := rollout.ParseClockTime(w.End.ValueString())
		if err := errors.Join(err1, err2); err != nil {
			diags.AddAttributeError(at, "Invalid maintenance_window", err.Error())
			continue
		}
		win := rollout.Window{Start: start, End: end, Location: loc}
		var days []types.String
		diags.Append(w.Days.ElementsAs(ctx, &days, false)...)
		for _, d := range days {
			win.Days = append(win.Days, rollout.Weekdays[d.ValueString()])
		}
		slices.Sort(win.Days)
		spec.Windows = append(spec.Windows, win)
	}
}

// WarnOutsideWindow turns the end of a run outside every maintenance
// window into a warning (the rollout is saved as stopped and the next
// apply resumes it) and reports whether err was that.
func WarnOutsideWindow(err error, what string, diags *diag.Diagnostics) bool {
	var ow *rollout.OutsideWindowError
	if !errors.As(err, &ow) {
		return false
	}
	diags.AddWarning("Rollout of "+what+" waits for a maintenance window",
		err.Error()+". Nothing was scheduled outside the windows; next_window_opens_at shows when the next one "+
			"opens.")
	return true
}

// NextWindow is next_window_opens_at of a record: RFC 3339, null when no
// window is awaited.
func NextWindow(rec rollout.Record) types.String {
	if rec.NextWindowOpensAt.IsZero() {
		return types.StringNull()
	}
	return types.StringValue(rec.NextWindowOpensAt.UTC().Format(time.RFC3339))
}

// zoneError is the error of a time zone that does not load.
func zoneError(zone string) string {
	return "The value of maintenance_window.time_zone must be an IANA time zone such as \"Europe/Berlin\", " +
		"\"America/New_York\" or \"UTC\"; " + connection.Quote(zone) + " is not one (names are case-sensitive)."
}

// timeZone validates an IANA time zone with time.LoadLocation (the
// provider embeds the zone database).
type timeZone struct{}

func (timeZone) Description(context.Context) string { return "must be an IANA time zone" }
func (v timeZone) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}
func (timeZone) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	zone := req.ConfigValue.ValueString()
	// "Local" loads the machine's zone: a plan would depend on where it runs.
	if _, err := time.LoadLocation(zone); err != nil || zone == "Local" || strings.TrimSpace(zone) != zone {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid maintenance_window.time_zone", zoneError(zone))
	}
}
