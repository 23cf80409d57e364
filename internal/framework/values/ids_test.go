package values

import (
	"slices"
	"testing"
)

func TestJoinSplitID(t *testing.T) {
	t.Parallel()
	for _, parts := range [][]string{{"wks-1", "fw-sensor", "3.0"}, {"wks-1", "fw/main", "3.0/rc1"}, {"wks-1", "fw%x", "100%/2"}} {
		id := JoinID(parts...)
		got, err := SplitID(id, 3)
		if err != nil || !slices.Equal(got, parts) {
			t.Errorf("SplitID(JoinID(%q) = %q) = %q, %v", parts, id, got, err)
		}
	}
	if id := JoinID("wks-1", "fw", "3.0/rc1"); id != "wks-1/fw/3.0%2Frc1" {
		t.Errorf("JoinID = %q", id)
	}
	for _, bad := range []string{"wks-1/fw/3.0/rc1", "wks-1/fw", "wks-1//3.0", "wks-1/fw/3.0%2", "wks-1/fw/3.0%41"} {
		if got, err := SplitID(bad, 3); err == nil {
			t.Errorf("SplitID(%q) = %q, want an error", bad, got)
		}
	}
}
