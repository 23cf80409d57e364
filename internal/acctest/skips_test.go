package acctest

import "testing"

func TestCLITooOld(t *testing.T) {
	tests := []struct {
		cli  CLI
		want bool
	}{
		{CLI{Major: 1, Minor: 11}, true},
		{CLI{Major: 1, Minor: 13}, true},
		{CLI{Major: 1, Minor: 14}, false},
		{CLI{Major: 1, Minor: 15}, false},
		{CLI{Major: 2, Minor: 0}, false},
		{CLI{OpenTofu: true, Major: 1, Minor: 11}, true},
		{CLI{OpenTofu: true, Major: 1, Minor: 12}, false},
	}
	for _, tt := range tests {
		if got := tt.cli.TooOld(); got != tt.want {
			t.Errorf("%+v.TooOld() = %v, want %v", tt.cli, got, tt.want)
		}
	}
}
