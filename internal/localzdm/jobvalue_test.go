package localzdm

import "testing"

func TestFloat64Numbers(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`{"r":0.33333333333333333333,"s":"1.00000000000000000001 \"x\\\" 3"}`: `{"r":0.3333333333333333,"s":"1.00000000000000000001 \"x\\\" 3"}`,
		`{"big":12345678901234567890,"neg":-2.50,"e":1E2}`:                    `{"big":12345678901234567000,"neg":-2.5,"e":100}`,
		`{"tiny":1e-400,"a":[1,2.0,{"b":0.1}]}`:                               `{"tiny":0,"a":[1,2,{"b":0.1}]}`,
		`{}`:                                                                  `{}`,
	} {
		got, err := float64Numbers([]byte(in))
		if err != nil || string(got) != want {
			t.Errorf("float64Numbers(%s) = %s, %v; want %s", in, got, err, want)
		}
	}
	if _, err := float64Numbers([]byte(`{"huge":1e400}`)); err == nil {
		t.Error("float64Numbers accepted 1e400")
	}
}
