package client

import (
	"strings"
)

// redacted replaces a part of a URL that may hold a secret.
const redacted = "[REDACTED]"

// RedactURL returns raw, a URL as a user wrote it (valid or not), for
// messages: every part that may carry a secret is replaced by [REDACTED]:
//
//   - the user information (user:password@);
//   - the query and the fragment, whole;
//   - every path segment but an API version such as "v3" and a plain word
//     (at most 16 lower-case letters, such as "workspaces"): a service
//     address has no other, and one there may be a pasted token;
//   - a port that is not a number;
//   - every occurrence of the given secrets (such as the API key), also in
//     their escaped forms, wherever they are.
//
// The scheme, host, a numeric port, version segments and plain words stay,
// so that the message still says which address was meant.
func RedactURL(raw string, secrets ...string) string {
	s := raw
	for _, secret := range secrets {
		s = keyScrubber(secret)(s)
	}
	if i := strings.IndexByte(s, '#'); i >= 0 {
		s = s[:i] + "#" + redacted
	}
	if i := strings.IndexByte(s, '?'); i >= 0 {
		s = s[:i] + "?" + redacted
	}
	prefix, rest := "", s
	if i := strings.Index(s, "://"); i >= 0 {
		prefix, rest = s[:i+3], s[i+3:]
	}
	authority, path := rest, ""
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		authority, path = rest[:i], rest[i:]
	}
	if i := strings.LastIndexByte(authority, '@'); i >= 0 {
		authority = redacted + authority[i:]
	}
	if i := strings.LastIndexByte(authority, ':'); i >= 0 && i > strings.LastIndexByte(authority, ']') {
		if port := authority[i+1:]; strings.Trim(port, "0123456789") != "" {
			authority = authority[:i+1] + redacted
		}
	}
	if path != "" {
		segs := strings.Split(path, "/")
		for i, seg := range segs {
			if seg == redacted || strings.HasPrefix(seg, "?") || strings.HasPrefix(seg, "#") {
				continue
			}
			head, tail := seg, ""
			if j := strings.IndexAny(seg, "?#"); j >= 0 {
				head, tail = seg[:j], seg[j:]
			}
			if head != "" && !isVersionSegment(head) && !isPlainWord(head) {
				segs[i] = redacted + tail
			}
		}
		path = strings.Join(segs, "/")
	}
	return prefix + authority + path
}

// isVersionSegment reports whether a path segment names an API version:
// "v" and digits.
func isVersionSegment(seg string) bool {
	return len(seg) > 1 && seg[0] == 'v' && strings.Trim(seg[1:], "0123456789") == ""
}

// isPlainWord reports whether a path segment is a plain word: 1 to 16
// lower-case ASCII letters, which a token is not.
func isPlainWord(seg string) bool {
	return len(seg) <= 16 && strings.Trim(seg, "abcdefghijklmnopqrstuvwxyz") == "" && seg != ""
}
