package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/zdm/terraform-provider-zdm/internal/jsonvalue"
)

// ErrAmbiguous marks a request that failed after it may have reached the
// server, so the server may have acted on it. It is only returned for POST
// requests (which create or schedule something and are never retried once
// sent); test for it with errors.Is. The caller finds out what happened by
// reading back (see ResolveContext); sending the request again could act
// twice.
var ErrAmbiguous = errors.New("the request may have been processed by the server")

// ambiguousHint is appended to the message of every error that wraps
// ErrAmbiguous.
const ambiguousHint = "the service may have acted on it: the object may have been created or scheduled"

// UnauthorizedHint ends the message of every 401: what to check. It is the
// one place that explains a refused key (the provider's api_key argument
// falls back to the ZDM_API_KEY environment variable when it is null).
const UnauthorizedHint = "the service refused the API key (wrong, expired or revoked): check api_key in the " +
	"provider block, or the ZDM_API_KEY environment variable when api_key is not set"

// NoRouteHint ends the message of a 404 that says the server serves no such
// path (as opposed to an object it does not have): the address points at
// another service, most often base_url and storage_url swapped.
const NoRouteHint = "the server serves no such path: check that base_url (or ZDM_BASE_URL) is the address of the " +
	"management API and storage_url (or ZDM_STORAGE_URL) the address of the time-series storage service, not " +
	"swapped, and that no proxy answers in their place"

// maxExcerpt is the largest body excerpt or message, in bytes, an APIError
// carries.
const maxExcerpt = 512

// APIError is a non-2xx answer of either service.
//
// Code and Message come from the JSON error body when the service sent one
// (`{"error":{"code":"...","message":"..."}}` and a few other common shapes);
// Body is an excerpt of the body (at most 512 bytes, control characters
// removed, HTML tags stripped). None of the fields contains the API key.
type APIError struct {
	StatusCode int
	Method     string
	Path       string
	Code       string
	Message    string
	Body       string

	// ambiguous is set for a POST answered by a status that does not say
	// whether the server acted (500, 502, 504).
	ambiguous bool
	// scrub removes the API key from the message.
	scrub func(string) string
}

// Error returns e.g. `GET /v3/workspaces/wks-1: 404 Not Found: not_found:
// workspace "wks-1" not found`.
func (e *APIError) Error() string {
	var b strings.Builder
	b.WriteString(e.Method)
	b.WriteByte(' ')
	b.WriteString(e.Path)
	b.WriteString(": ")
	b.WriteString(statusLine(e.StatusCode))
	switch {
	case e.Code != "" && e.Message != "":
		b.WriteString(": " + e.Code + ": " + e.Message)
	case e.Message != "":
		b.WriteString(": " + e.Message)
	case e.Code != "":
		b.WriteString(": " + e.Code)
		if e.Body != "" {
			b.WriteString(": " + e.Body)
		}
	case e.Body != "":
		b.WriteString(": " + e.Body)
	}
	if e.ambiguous {
		b.WriteString("; " + ambiguousHint)
	}
	if e.StatusCode == http.StatusUnauthorized {
		b.WriteString("; " + UnauthorizedHint)
	}
	if e.NoRoute() {
		b.WriteString("; " + NoRouteHint)
	}
	if e.scrub != nil {
		return e.scrub(b.String())
	}
	return b.String()
}

// Is reports whether the error is ErrAmbiguous: a POST answered by 500, 502 or
// 504 may have been processed.
func (e *APIError) Is(target error) bool {
	return target == ErrAmbiguous && e.ambiguous
}

// NoRoute reports whether e is a 404 of a path the server does not serve
// ("no route for GET /v3/...", Go's "404 page not found"), rather than of
// an object it does not hold.
func (e *APIError) NoRoute() bool {
	if e.StatusCode != http.StatusNotFound {
		return false
	}
	text := strings.ToLower(e.Message + " " + e.Body)
	return strings.Contains(text, "no route") || strings.Contains(text, "404 page not found")
}

// IsNotFound reports whether err is (or wraps) an APIError with status 404.
func IsNotFound(err error) bool {
	return IsStatus(err, http.StatusNotFound)
}

// IsStatus reports whether err is (or wraps) an APIError with the given status.
func IsStatus(err error, code int) bool {
	var apiErr *APIError
	return errors.As(err, &apiErr) && apiErr.StatusCode == code
}

func statusLine(code int) string {
	if text := http.StatusText(code); text != "" {
		return strconv.Itoa(code) + " " + text
	}
	return strconv.Itoa(code)
}

// newAPIError builds the APIError of a non-2xx answer from (the first bytes
// of) its body. scrub removes the API key from every field.
func newAPIError(status int, method, path, contentType string, body []byte, scrub func(string) string) *APIError {
	e := &APIError{StatusCode: status, Method: method, Path: scrub(path), scrub: scrub}
	// Scrubbed before and after cleaning: cleaning could join the pieces
	// of a key.
	finish := func(s string) string { return truncate(scrub(cleanText(scrub(s))), maxExcerpt) }
	e.ambiguous = method == http.MethodPost && (status == http.StatusInternalServerError ||
		status == http.StatusBadGateway || status == http.StatusGatewayTimeout)
	code, msg := parseErrorBody(body)
	e.Code = finish(code)
	e.Message = finish(msg)
	var text string
	switch {
	case json.Valid(body):
		// Re-encoded, so that a key written with unusual escapes
		// ("\/", "\u0041") is found by scrub.
		text = canonicalJSON(body)
	case looksLikeHTML(contentType, body):
		text = stripTags(string(body))
	default:
		text = string(body)
	}
	e.Body = finish(text)
	return e
}

// canonicalJSON re-encodes a valid JSON document compactly, without HTML
// escaping, keeping numbers as written.
func canonicalJSON(body []byte) string {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return string(body)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return string(body)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// parseErrorBody extracts an error code and message from a JSON error body.
// It understands `{"error":{"code","message"}}`, `{"error":"..."}`,
// `{"message":..,"code":..}`, `{"detail":..}` (also RFC 7807 problem details
// with "title"), `{"errors":[{...}]}` and `{"error_description":..}`. Bodies
// that are not JSON objects give two empty strings.
func parseErrorBody(body []byte) (code, msg string) {
	var obj map[string]json.RawMessage
	if json.Unmarshal(body, &obj) != nil {
		return "", ""
	}
	return errorFields(obj, 0)
}

func errorFields(obj map[string]json.RawMessage, depth int) (code, msg string) {
	for _, k := range []string{"code", "error_code", "type", "status"} {
		if s, ok := scalarString(obj[k]); ok && s != "" {
			code = s
			break
		}
	}
	for _, k := range []string{"message", "detail", "error_description", "msg", "title", "description"} {
		raw, ok := obj[k]
		if !ok {
			continue
		}
		if s, ok := scalarString(raw); ok && s != "" {
			msg = s
			break
		}
		if s := string(jsonvalue.Compact(raw, nil)); s != "" && s != "null" {
			// e.g. FastAPI's {"detail":[{"loc":..,"msg":..}]}.
			msg = s
			break
		}
	}
	if depth > 0 {
		return code, msg
	}
	if raw, ok := obj["error"]; ok {
		if s, ok := scalarString(raw); ok && s != "" {
			if msg == "" {
				msg = s
			} else if code == "" {
				code = s
			}
			return code, msg
		}
		var inner map[string]json.RawMessage
		if json.Unmarshal(raw, &inner) == nil {
			ic, im := errorFields(inner, depth+1)
			return firstNonEmpty(ic, code), firstNonEmpty(im, msg)
		}
	}
	if raw, ok := obj["errors"]; ok && msg == "" {
		var list []json.RawMessage
		if json.Unmarshal(raw, &list) == nil && len(list) > 0 {
			if s, ok := scalarString(list[0]); ok {
				return code, s
			}
			var inner map[string]json.RawMessage
			if json.Unmarshal(list[0], &inner) == nil {
				ic, im := errorFields(inner, depth+1)
				return firstNonEmpty(code, ic), im
			}
		}
	}
	return code, msg
}

// scalarString returns a JSON string's value, or a JSON number's or boolean's
// literal text.
func scalarString(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 {
		return "", false
	}
	switch raw[0] {
	case '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return "", false
		}
		return s, true
	case '{', '[', 'n':
		return "", false
	default:
		return string(raw), true
	}
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func looksLikeHTML(contentType string, body []byte) bool {
	if strings.Contains(strings.ToLower(contentType), "html") {
		return true
	}
	trimmed := strings.TrimLeftFunc(string(body[:min(len(body), 64)]), unicode.IsSpace)
	return strings.HasPrefix(trimmed, "<")
}

// stripTags removes HTML tags, and the content of script and style elements,
// keeping the text.
func stripTags(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for len(s) > 0 {
		i := strings.IndexByte(s, '<')
		if i < 0 {
			b.WriteString(s)
			break
		}
		b.WriteString(s[:i])
		s = s[i:]
		end := strings.IndexByte(s, '>')
		if end < 0 {
			break
		}
		tag := asciiLower(s[1:end])
		s = s[end+1:]
		b.WriteByte(' ')
		for _, skip := range []string{"script", "style"} {
			if strings.HasPrefix(tag, skip) {
				// asciiLower keeps every byte where it is, so j indexes s
				// (strings.ToLower does not: it rewrites invalid UTF-8).
				if j := strings.Index(asciiLower(s), "</"+skip); j >= 0 {
					s = s[j:]
				} else {
					s = ""
				}
			}
		}
	}
	return b.String()
}

// asciiLower lowers the ASCII letters of s and leaves every other byte as
// it is, so that an index into the result is an index into s.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// cleanText replaces control characters, bidirectional formatting characters
// and invalid UTF-8 with spaces, collapses runs of white space and trims.
func cleanText(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if r == utf8.RuneError || unicode.IsControl(r) || unicode.IsSpace(r) || unicode.Is(unicode.Bidi_Control, r) {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// truncate shortens s to at most n bytes on a rune boundary, marking the cut
// with an ellipsis.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const ellipsis = "…"
	cut := n - len(ellipsis)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + ellipsis
}

// requestError is an error of one request that is not an answer of the
// service: a transport failure, a timeout, a response that cannot be decoded,
// a context ended while waiting for a retry. Its text starts with the method
// and path and never contains the API key.
type requestError struct {
	method, path string
	msg          string
	errs         []error
	ambiguous    bool
	// hint, when set, says what to check: the request could not connect.
	hint  string
	scrub func(string) string
}

func (e *requestError) Error() string {
	var b strings.Builder
	b.WriteString(e.method + " " + e.path + ": " + e.msg)
	for _, err := range e.errs {
		if err == nil || err == ErrAmbiguous {
			continue
		}
		b.WriteString(": " + err.Error())
	}
	if e.ambiguous {
		b.WriteString("; " + ambiguousHint)
	}
	if e.hint != "" {
		b.WriteString("; " + e.hint)
	}
	if e.scrub == nil {
		return b.String()
	}
	return e.scrub(b.String())
}

func (e *requestError) Unwrap() []error {
	if e.ambiguous {
		return append([]error{ErrAmbiguous}, e.errs...)
	}
	return e.errs
}

// minScrubbedKey is the length under which a key is not scrubbed: such a
// "key" is no secret, and replacing it would garble every message.
const minScrubbedKey = 4

// keyScrubber returns a function that replaces every occurrence of the key,
// also in its JSON-escaped and URL-escaped forms, by "[REDACTED]".
func keyScrubber(key string) func(string) string {
	if len(key) < minScrubbedKey {
		return func(s string) string { return s }
	}
	forms := []string{key}
	if b, err := json.Marshal(key); err == nil {
		forms = append(forms, string(b[1:len(b)-1]))
	}
	forms = append(forms, urlEscapes(key)...)
	seen := make(map[string]bool, len(forms))
	var pairs []string
	for _, f := range forms {
		if f == "" || seen[f] {
			continue
		}
		seen[f] = true
		pairs = append(pairs, f, "[REDACTED]")
	}
	r := strings.NewReplacer(pairs...)
	return r.Replace
}

func urlEscapes(key string) []string {
	var out []string
	for _, esc := range []func(string) string{escapeQuery, escapePath} {
		if s := esc(key); s != key {
			out = append(out, s)
		}
	}
	return out
}
