package jsonvalue

import (
	"bytes"
	"testing"
)

func TestCompact(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{`{"b": 1, "a": [ 1, 2 ]}`, `{"b":1,"a":[1,2]}`},
		{" \n\t{ \"k\" : \"a b\\\" c\" }\r\n", `{"k":"a b\" c"}`},
		{`[1,2]`, `[1,2]`},
		{`  null `, `null`},
		{`"x  y"`, `"x  y"`},
		{``, ``},
		{"  ", ``},
		// Not JSON: trimmed, otherwise kept.
		{` {"a": } `, `{"a": }`},
		{`not json`, `not json`},
		{"\v{ }\u00a0", "{}"},
	}
	var scratch bytes.Buffer
	for _, tc := range tests {
		if got := string(Compact([]byte(tc.in), nil)); got != tc.want {
			t.Errorf("Compact(%q, nil) = %q, want %q", tc.in, got, tc.want)
		}
		if got := string(Compact([]byte(tc.in), &scratch)); got != tc.want {
			t.Errorf("Compact(%q, scratch) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestCompactShares checks that text without white space to remove is
// returned as a part of the input, and that other text goes to scratch.
func TestCompactShares(t *testing.T) {
	t.Parallel()
	raw := []byte(` {"a":1}`)
	got := Compact(raw, nil)
	if &got[0] != &raw[1] {
		t.Errorf("Compact(%q) copied the text", raw)
	}
	var scratch bytes.Buffer
	got = Compact([]byte(`{"a": 1}`), &scratch)
	if scratch.String() != `{"a":1}` || &got[0] != &scratch.Bytes()[0] {
		t.Errorf("Compact did not write to scratch: scratch %q, result %q", scratch.String(), got)
	}
}

func TestCompactObject(t *testing.T) {
	t.Parallel()
	got, err := CompactObject(" { \"b\" : 1, \"a\": [ 1 ] } ")
	if err != nil || string(got) != `{"b":1,"a":[1]}` {
		t.Errorf("CompactObject = %s, %v", got, err)
	}
	for in, want := range map[string]string{
		``:         `must be a JSON object such as {"key": "value"} (use jsonencode)`,
		`[1]`:      `must be a JSON object such as {"key": "value"} (use jsonencode)`,
		`"s"`:      `must be a JSON object such as {"key": "value"} (use jsonencode)`,
		`{"a":`:    `is not valid JSON: unexpected end of JSON input`,
		`{"a":1}x`: `is not valid JSON: invalid character 'x' after top-level value`,
	} {
		if _, err := CompactObject(in); err == nil || err.Error() != want {
			t.Errorf("CompactObject(%q) error = %v, want %q", in, err, want)
		}
	}
}

func TestEqual(t *testing.T) {
	t.Parallel()
	equal := [][2]string{
		{`{"a":1,"b":[1,2]}`, `{ "b": [1, 2], "a": 1 }`},
		{`1`, `1.0`},
		{`{"n":1}`, `{"n":1e0}`},
		{`{"n":100}`, `{"n":1E2}`},
		{`[true,null,"x"]`, ` [ true , null , "x" ] `},
		{`not json`, `not json`},
		// Numbers as the service keeps them: float64.
		{`{"r":0.33333333333333333333}`, `{"r":0.3333333333333333}`},
		{`{"s":0.30000000000000000001}`, `{"s":0.3}`},
		{`{"pi":3.14159265358979323846}`, `{"pi":3.141592653589793}`},
		{`{"big":12345678901234567890}`, `{"big":12345678901234567000}`},
		{`{"big":12345678901234567890}`, `{"big":1.2345678901234567e+19}`},
		{`{"tiny":1e-400}`, `{"tiny":0}`},
		{`{"huge":1e400}`, `{"huge":10e399}`},
	}
	for _, c := range equal {
		if !Equal(c[0], c[1]) {
			t.Errorf("Equal(%s, %s) = false", c[0], c[1])
		}
	}
	different := [][2]string{
		{`{"a":1}`, `{"a":2}`},
		{`{"a":1}`, `{"a":1,"b":2}`},
		{`{"a":1}`, `{"b":1}`},
		{`[1,2]`, `[2,1]`},
		{`[1]`, `[1,1]`},
		{`1`, `"1"`},
		{`{"a":1}`, `[{"a":1}]`},
		{`{"a":1} {}`, `{"a":1}`},
		{`not json`, `not  json`},
		{`{"a":1}`, `{"a":1`},
		{`{"s":0.30000000000000004}`, `{"s":0.3}`},
		{`{"big":9007199254740993}`, `{"big":9007199254740995}`},
		{`{"huge":1e400}`, `{"huge":1e401}`},
	}
	for _, c := range different {
		if Equal(c[0], c[1]) {
			t.Errorf("Equal(%s, %s) = true", c[0], c[1])
		}
	}
}
