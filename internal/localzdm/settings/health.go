package settings

import (
	"bytes"
	"encoding/json"
	"math"

	"github.com/zdm/terraform-provider-zdm/internal/localzdm/apierr"
	"github.com/zdm/terraform-provider-zdm/internal/localzdm/store"
)

// Defaults of the health points (see DeviceBehavior.PublishHealth).
const (
	DefaultHealthTag          = "boot_ok"
	DefaultHealthPayload      = `{"ok":true}`
	DefaultHealthErrorTag     = "boot_error"
	DefaultHealthErrorPayload = `{"ok":false}`
)

// CheckHealthTag checks a health tag named field (a JSON field or a flag):
// a valid data point tag (see store.CheckTag).
func CheckHealthTag(field, tag string) error {
	return store.CheckTag(field, tag)
}

// ParseHealthPayload checks a health payload named field (a JSON field or a
// flag) and returns it compacted: a JSON object.
func ParseHealthPayload(field string, raw []byte) (json.RawMessage, error) {
	var obj map[string]json.RawMessage
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || t[0] != '{' || json.Unmarshal(t, &obj) != nil {
		return nil, apierr.InvalidArgument("%s must be a JSON object (e.g. %s), not %s", field, DefaultHealthPayload, excerpt(t))
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, t); err != nil {
		return nil, apierr.InvalidArgument("%s is not valid JSON: %v", field, err)
	}
	return buf.Bytes(), nil
}

// excerpt quotes at most 64 bytes of an invalid input.
func excerpt(b []byte) string {
	if len(b) > 64 {
		b = append(b[:61:61], "..."...)
	}
	return `"` + string(b) + `"`
}

// unsetPayload reports whether a payload was left out (empty or null).
func unsetPayload(p json.RawMessage) bool {
	t := bytes.TrimSpace(p)
	return len(t) == 0 || bytes.Equal(t, []byte("null"))
}

// validateHealth reports the first invalid health setting.
func (b DeviceBehavior) validateHealth() error {
	switch {
	case math.IsNaN(b.HealthSilentFraction) || b.HealthSilentFraction < 0 || b.HealthSilentFraction > 1:
		return apierr.InvalidArgument("\"health_silent_fraction\" must be between 0 and 1, got %g", b.HealthSilentFraction)
	case math.IsNaN(b.HealthErrorFraction) || b.HealthErrorFraction < 0 || b.HealthErrorFraction > 1:
		return apierr.InvalidArgument("\"health_error_fraction\" must be between 0 and 1, got %g", b.HealthErrorFraction)
	case b.HealthSilentFraction+b.HealthErrorFraction > 1:
		return apierr.InvalidArgument("\"health_silent_fraction\" and \"health_error_fraction\" must add up to at most 1, got %g", b.HealthSilentFraction+b.HealthErrorFraction)
	}
	for _, f := range []struct{ name, v string }{{"health_tag", b.HealthTag}, {"health_error_tag", b.HealthErrorTag}} {
		if f.v != "" { // empty: the default
			if err := CheckHealthTag(`"`+f.name+`"`, f.v); err != nil {
				return err
			}
		}
	}
	for _, f := range []struct {
		name string
		v    json.RawMessage
	}{{"health_payload", b.HealthPayload}, {"health_error_payload", b.HealthErrorPayload}} {
		if !unsetPayload(f.v) {
			if _, err := ParseHealthPayload(`"`+f.name+`"`, f.v); err != nil {
				return err
			}
		}
	}
	return nil
}

// normalizeHealth spells the health defaults out; b is valid.
func (b *DeviceBehavior) normalizeHealth() {
	if b.HealthTag == "" {
		b.HealthTag = DefaultHealthTag
	}
	if b.HealthErrorTag == "" {
		b.HealthErrorTag = DefaultHealthErrorTag
	}
	for _, p := range []struct {
		v   *json.RawMessage
		def string
	}{{&b.HealthPayload, DefaultHealthPayload}, {&b.HealthErrorPayload, DefaultHealthErrorPayload}} {
		if unsetPayload(*p.v) {
			*p.v = json.RawMessage(p.def)
			continue
		}
		if c, err := ParseHealthPayload("payload", *p.v); err == nil {
			*p.v = c
		}
	}
}

// HealthPoint is the tag and payload of the health point a device
// publishes after completing work named by extra (e.g. {"job": name}):
// the error tag and payload for an error, else the health tag and payload.
// extra's keys are added to the payload unless it sets them. b is
// normalized.
func (b DeviceBehavior) HealthPoint(isError bool, extra map[string]string) (string, json.RawMessage) {
	tag, payload := b.HealthTag, b.HealthPayload
	if isError {
		tag, payload = b.HealthErrorTag, b.HealthErrorPayload
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(payload, &obj); err != nil || obj == nil {
		obj = map[string]json.RawMessage{}
	}
	for k, v := range extra {
		if _, set := obj[k]; !set {
			obj[k], _ = json.Marshal(v) // a string always marshals
		}
	}
	out, err := json.Marshal(obj) // sorted keys
	if err != nil {
		return tag, payload
	}
	return tag, out
}
