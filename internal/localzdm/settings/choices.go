// Package settings holds the switches of the local server that the admin
// API sets: the Choices where the API specification is silent and the
// scripted DeviceBehavior of the devices, with their validation and JSON
// shapes. What they do is up to the server.
package settings

import (
	"slices"
	"unicode/utf8"

	"github.com/zdm/terraform-provider-zdm/internal/localzdm/apierr"
)

// Answers of GET /v3/devices/{device_id}/fota for a device that never had a
// FOTA (Choices.MissingFOTA).
const (
	MissingFOTA404   = "404"   // 404 not_found (the default)
	MissingFOTANull  = "null"  // 200 {"fota": null}
	MissingFOTAEmpty = "empty" // 200 {"fota": {}}
)

// Echoes of a job's value in job GETs and lists (Choices.JobValue).
const (
	JobValueEcho    = "echo"    // the value as stored (the default)
	JobValueOmit    = "omit"    // no "value" member
	JobValueNull    = "null"    // "value": null
	JobValueReorder = "reorder" // the keys of every object in reverse order
)

// Choices select how the server answers where the API specification is
// silent. The zero Choices are the server's defaults; the provider must work
// with every combination.
type Choices struct {
	// MissingFOTA is how GET .../fota answers for a device that never had a
	// FOTA: MissingFOTA404 (or ""), MissingFOTANull or MissingFOTAEmpty.
	MissingFOTA string `json:"missing_fota"`
	// ShuffleLists answers the lists of workspaces, fleets, devices and jobs
	// in a random order that differs from the previous answer of the same
	// list (when it has two items or more).
	ShuffleLists bool `json:"shuffle_lists"`
	// PublishBeforeRead publishes one data point before each storage read,
	// as a device would while a client reads page after page: the point
	// takes the first device and tag of the query (else those of the
	// workspace's newest point, else its first device and the tag
	// "published"), the current time, or just under the query's end when
	// that is earlier, and the payload {"published_before_read": n}.
	PublishBeforeRead bool `json:"publish_before_read"`
	// JobValue is how job GETs and job lists echo a job's value:
	// JobValueEcho (or ""), JobValueOmit, JobValueNull or JobValueReorder.
	// Scheduling answers always echo the value as stored.
	JobValue string `json:"job_value"`
	// WorkspaceListLimit, when above 0, makes GET /v3/workspaces show only
	// the first N workspaces of the account (as a service that pages its
	// lists would). GET /v3/workspaces/{id} still answers the others.
	WorkspaceListLimit int `json:"workspace_list_limit"`
	// HiddenWorkspaces are workspace IDs that GET /v3/workspaces never
	// shows. GET /v3/workspaces/{id} still answers them.
	HiddenWorkspaces []string `json:"hidden_workspaces"`
	// DeviceIDPrefix, when not empty, starts the IDs of new devices instead
	// of "dev-": "dev/" gives IDs containing "/", which IDs may hold.
	DeviceIDPrefix string `json:"device_id_prefix"`
	// Seed makes the shuffled orders repeatable: the same seed and the same
	// calls give the same orders. Zero picks a random seed.
	Seed uint64 `json:"seed"`
}

// Validate reports the first invalid choice.
func (c Choices) Validate() error {
	switch c.MissingFOTA {
	case "", MissingFOTA404, MissingFOTANull, MissingFOTAEmpty:
	default:
		return apierr.InvalidArgument("\"missing_fota\" must be %q, %q or %q, not %q", MissingFOTA404, MissingFOTANull, MissingFOTAEmpty, c.MissingFOTA)
	}
	switch c.JobValue {
	case "", JobValueEcho, JobValueOmit, JobValueNull, JobValueReorder:
	default:
		return apierr.InvalidArgument("\"job_value\" must be %q, %q, %q or %q, not %q", JobValueEcho, JobValueOmit, JobValueNull, JobValueReorder, c.JobValue)
	}
	if c.WorkspaceListLimit < 0 {
		return apierr.InvalidArgument("\"workspace_list_limit\" must not be negative (0 shows every workspace), got %d", c.WorkspaceListLimit)
	}
	if !utf8.ValidString(c.DeviceIDPrefix) || len(c.DeviceIDPrefix) > 64 {
		return apierr.InvalidArgument("\"device_id_prefix\" must be valid UTF-8 of at most 64 bytes")
	}
	for i, id := range c.HiddenWorkspaces {
		if id == "" {
			return apierr.InvalidArgument("\"hidden_workspaces[%d]\" must not be empty", i)
		}
	}
	return nil
}

// Normalized spells the defaults out, so CurrentChoices shows what applies.
func (c Choices) Normalized() Choices {
	if c.MissingFOTA == "" {
		c.MissingFOTA = MissingFOTA404
	}
	if c.JobValue == "" {
		c.JobValue = JobValueEcho
	}
	if c.HiddenWorkspaces == nil {
		c.HiddenWorkspaces = []string{}
	} else {
		c.HiddenWorkspaces = slices.Clone(c.HiddenWorkspaces)
	}
	return c
}
