package values

import "testing"

func TestSortedJSON(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`{"mode":"eco","level":3}`:                   `{"level":3,"mode":"eco"}`,
		`{"b":{"z":1,"a":[{"y":1,"x":2}]},"a":1.50}`: `{"a":1.50,"b":{"a":[{"x":2,"y":1}],"z":1}}`,
		`{"html":"<a&b>"}`:                           `{"html":"<a&b>"}`,
		``:                                           `null`,
		`null`:                                       `null`,
	} {
		if got := SortedJSON([]byte(in)); got != want {
			t.Errorf("sortedJSON(%s) = %s, want %s", in, got, want)
		}
	}
}
