package objects

import (
	"strings"
	"testing"
)

func TestParseImportID(t *testing.T) {
	t.Parallel()
	cases := []struct {
		raw, ws, id string
		wantErr     string
	}{
		{raw: "dev-1", id: "dev-1"},
		{raw: "wks-1/dev-1", ws: "wks-1", id: "dev-1"},
		{raw: "any shape:at all", id: "any shape:at all"},
		{raw: "", wantErr: "empty import ID"},
		{raw: " ", wantErr: "empty import ID"},
		{raw: "/dev-1", wantErr: "empty part"},
		{raw: "wks-1/", wantErr: "empty part"},
		{raw: "a/b/c", wantErr: "has 3 parts"},
	}
	for _, c := range cases {
		ws, id, err := parseImportID(c.raw, "device")
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("parseImportID(%q) error = %v, want %q", c.raw, err, c.wantErr)
			} else if !strings.Contains(err.Error(), `"<workspace_id>/<device_id>" or "<device_id>"`) {
				t.Errorf("parseImportID(%q) error does not show the format: %v", c.raw, err)
			}
			continue
		}
		if err != nil || ws != c.ws || id != c.id {
			t.Errorf("parseImportID(%q) = %q, %q, %v; want %q, %q", c.raw, ws, id, err, c.ws, c.id)
		}
	}
}
