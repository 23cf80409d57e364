package httpio

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net"
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/zdm/terraform-provider-zdm/internal/localzdm/apierr"
)

// DecodeStrictBody decodes a JSON object body strictly: at most limit bytes
// (read as a stream, 413 beyond), and a field that dst does not know is a
// 400 naming it. An empty body is an error when required is set.
func DecodeStrictBody(w http.ResponseWriter, r *http.Request, dst any, required bool, limit int64) error {
	data, err := ReadBody(w, r, limit)
	if err != nil {
		return err
	}
	return DecodeJSONStrict(data, dst, required)
}

// StrictUnmarshal decodes data into dst refusing unknown fields, for the
// UnmarshalJSON methods of the admin input types.
func StrictUnmarshal(data []byte, dst any) error {
	if err := checkKeys(data, dst); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		if e, ok := asUnknownField(err, dst, data); ok {
			return e
		}
		return err
	}
	return nil
}

// asUnknownField turns the decoder's unknown field error into a 400 that
// names the field and, for a field of the top-level object, the field meant
// when one is close, or else the fields there are.
func asUnknownField(err error, dst any, data []byte) (*apierr.Error, bool) {
	const prefix = "json: unknown field "
	msg := err.Error()
	if !strings.HasPrefix(msg, prefix) {
		return nil, false
	}
	name, uerr := strconv.Unquote(strings.TrimPrefix(msg, prefix))
	if uerr != nil {
		name = strings.TrimPrefix(msg, prefix)
	}
	hint := ""
	if known := jsonFieldNames(reflect.TypeOf(dst)); len(known) > 0 && !slices.Contains(known, name) && keyDepth(data, name) == 1 {
		for _, k := range known {
			if editDistance(squash(k), squash(name)) <= 2 {
				hint = "; did you mean " + strconv.Quote(k) + "?"
				break
			}
		}
		if hint == "" {
			hint = "; the fields are " + strings.Join(known, ", ")
		}
	}
	return apierr.InvalidArgument("unknown field %q in the request body%s", name, hint), true
}

// squash folds a field name for near-miss hints: case, "_" and "-" ignored.
func squash(s string) string {
	return strings.NewReplacer("_", "", "-", "").Replace(strings.ToLower(s))
}

// editDistance is the Levenshtein distance of two short strings.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// keyDepth returns the nesting depth (1 for the top-level object) of the
// first object key named name in a JSON text, or 0.
func keyDepth(data []byte, name string) int {
	depth := 0
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		case '"':
			end := i + 1
			for end < len(data) && data[end] != '"' {
				if data[end] == '\\' {
					end++
				}
				end++
			}
			if end >= len(data) {
				return 0
			}
			raw := data[i : end+1]
			i = end
			rest := bytes.TrimLeft(data[end+1:], " \t\r\n")
			if len(rest) > 0 && rest[0] == ':' {
				if key, err := strconv.Unquote(string(raw)); err == nil && key == name {
					return depth
				}
			}
		}
	}
	return 0
}

// jsonFieldNames lists the JSON names of a struct type's fields (through
// pointers), or nil when it is no struct.
func jsonFieldNames(t reflect.Type) []string {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch name {
		case "-":
			continue
		case "":
			if f.Anonymous {
				out = append(out, jsonFieldNames(f.Type)...)
				continue
			}
			name = f.Name
		}
		out = append(out, name)
	}
	return out
}

// durationSyntax matches what time.ParseDuration reads, so that a string of
// that shape it refuses is too large rather than malformed.
var durationSyntax = regexp.MustCompile(`^[+-]?(\d*\.?\d*(ns|us|µs|μs|ms|s|m|h))+$`)

// ParseDurationJSON reads a duration of the admin input: a Go duration
// string ("250ms") or a number of milliseconds, from 0 to maxVal.
func ParseDurationJSON(field string, v any, maxVal time.Duration) (time.Duration, error) {
	tooLarge := func(got string) error {
		return apierr.InvalidArgument("%q must be at most %s, got %s", field, maxVal, got)
	}
	switch x := v.(type) {
	case nil:
		return 0, nil
	case float64:
		switch {
		case math.IsNaN(x) || x < 0:
			return 0, apierr.InvalidArgument("%q must not be negative, got %v ms", field, x)
		case x > float64(maxVal/time.Millisecond):
			return 0, tooLarge(strconv.FormatFloat(x, 'f', -1, 64) + " ms")
		}
		return time.Duration(x * float64(time.Millisecond)), nil
	case string:
		d, err := time.ParseDuration(x)
		switch {
		case err != nil && durationSyntax.MatchString(x) && !strings.HasPrefix(x, "-"):
			return 0, tooLarge(strconv.Quote(x))
		case err != nil:
			return 0, apierr.InvalidArgument("%q must be a duration such as \"250ms\" or a number of milliseconds, not %q", field, x)
		case d < 0:
			return 0, apierr.InvalidArgument("%q must not be negative, got %s", field, d)
		case d > maxVal:
			return 0, tooLarge(d.String())
		}
		return d, nil
	default:
		return 0, apierr.InvalidArgument("%q must be a duration such as \"250ms\" or a number of milliseconds", field)
	}
}

// CheckDuration checks a duration of the admin input, as
// ParseDurationJSON does, for the Go API.
func CheckDuration(field string, d, maxVal time.Duration) error {
	switch {
	case d < 0:
		return apierr.InvalidArgument("%q must not be negative, got %s", field, d)
	case d > maxVal:
		return apierr.InvalidArgument("%q must be at most %s, got %s", field, maxVal, d)
	}
	return nil
}

// CheckDeviceIP checks the device_ip of a connection event: empty, or an
// IPv4 or IPv6 address.
func CheckDeviceIP(ip string) error {
	if ip != "" && net.ParseIP(ip) == nil {
		return apierr.InvalidArgument("\"device_ip\" must be an IP address such as \"10.0.0.7\" or \"fd00::7\", not %q", ip)
	}
	return nil
}

// DecodeJSONStrict is DecodeJSON refusing unknown fields.
func DecodeJSONStrict(data []byte, dst any, required bool) error {
	if err := checkJSONBody(data, required); err != nil || len(bytes.TrimSpace(data)) == 0 {
		return err
	}
	if err := checkKeys(data, dst); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		var own *apierr.Error
		if errors.As(err, &own) {
			return own
		}
		if e, ok := asUnknownField(err, dst, data); ok {
			return e
		}
		return describeJSONError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return apierr.New(http.StatusBadRequest, apierr.CodeInvalidJSON, "malformed JSON: unexpected data after the JSON object")
	}
	return nil
}

// checkKeys refuses what encoding/json would accept silently in a JSON
// body: a key given twice in one object (the last would win), and a key of
// the top-level object that differs from a field of dst only by case (the
// decoder matches case-insensitively). A dst with its own UnmarshalJSON
// checks the case there, through StrictUnmarshal.
func checkKeys(data []byte, dst any) error {
	var known []string
	if _, custom := dst.(json.Unmarshaler); !custom {
		known = jsonFieldNames(reflect.TypeOf(dst))
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	type frame struct {
		object bool
		keys   map[string]bool
		key    bool // the next string token is a key
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil // the decoder reports malformed JSON
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{', '[':
				if top != nil && top.object {
					top.key = true
				}
				stack = append(stack, &frame{object: d == '{', keys: map[string]bool{}, key: d == '{'})
			default:
				stack = stack[:len(stack)-1]
			}
			continue
		}
		if top == nil || !top.object {
			continue
		}
		if !top.key {
			top.key = true
			continue
		}
		k, _ := tok.(string)
		top.key = false
		if top.keys[k] {
			return apierr.InvalidArgument("field %q is given twice in the request body", k)
		}
		top.keys[k] = true
		if len(stack) == 1 && !slices.Contains(known, k) {
			for _, f := range known {
				if strings.EqualFold(f, k) {
					return apierr.InvalidArgument("unknown field %q in the request body; field names are case-sensitive: did you mean %q?", k, f)
				}
			}
		}
	}
}
