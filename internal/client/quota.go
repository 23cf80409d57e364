package client

import (
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Quota headers: what a service says of its rate limit on every answer.
//
// Three forms are read, the first one present wins:
//
//   - the IETF httpapi RateLimit header fields: RateLimit-Policy lists the
//     policies, each a quota q per window w seconds, and RateLimit the
//     remaining units r of each, reset in t seconds, both as structured
//     field lists (`RateLimit-Policy: "default";q=20;w=1` and
//     `RateLimit: "default";r=5;t=1`). Of several policies the one that
//     leaves the fewest requests a second until its reset counts;
//   - the earlier drafts' RateLimit-Limit, RateLimit-Remaining and
//     RateLimit-Reset (delta seconds);
//   - X-RateLimit-Limit, X-RateLimit-Remaining and X-RateLimit-Reset, whose
//     reset is delta seconds or, above a billion, a Unix time.
//
// A value that does not parse, or is negative, is ignored: the answer then
// says nothing of the quota, and the pacing stays as it would be without
// the headers.

// quota is what one answer says of the rate limit.
type quota struct {
	remaining float64       // requests left until reset
	reset     time.Duration // until the quota is whole again
	limit     float64       // the quota of a window; 0: not said
	window    time.Duration // the window of limit; 0: not said
	// said is the header fields that said it, as received, for messages:
	// `X-RateLimit-Remaining: 0, X-RateLimit-Reset: 72000`.
	said string
}

// QuotaSpentError is the error of a request not sent because the service
// said the quota of the API key is used up until a reset later than the
// request may wait (Client.quotaWait). It matches ErrNotSent when it stopped
// the first attempt: the service did not receive the request.
type QuotaSpentError struct {
	Reset time.Time     // when the quota is whole again
	In    time.Duration // the wait until Reset
	Said  string        // the header fields that said so
	Bound string        // what the wait would pass

	notSent bool
}

func (e *QuotaSpentError) Error() string {
	return fmt.Sprintf("the rate limit quota of the API key is used up until %s (in %s), as the service's answer "+
		"said (%s); waiting for it would pass %s. Run the apply again after %s, or use another API key "+
		"(provider setting api_key or ZDM_API_KEY) whose quota is not used up.",
		e.Reset.UTC().Format(time.RFC3339), e.In.Round(time.Second), e.Said, e.Bound, e.Reset.UTC().Format(time.RFC3339))
}

// Is matches ErrNotSent when no attempt was sent.
func (e *QuotaSpentError) Is(target error) bool { return e.notSent && target == ErrNotSent }

// quotaEpoch is the least X-RateLimit-Reset read as a Unix time.
const quotaEpoch = 1e9

// quotaMaxReset bounds a reset: a longer one is read as malformed.
const quotaMaxReset = 24 * time.Hour

// parseQuota reads the quota headers of an answer received at now.
func parseQuota(h http.Header, now time.Time) (quota, bool) {
	if v := h.Values("RateLimit"); len(v) > 0 {
		if q, ok := parseQuotaFields(strings.Join(v, ","), strings.Join(h.Values("RateLimit-Policy"), ",")); ok {
			q.said = quotaSaid("RateLimit: " + strings.Join(v, ", "))
			return q, true
		}
	}
	for _, prefix := range []string{"RateLimit-", "X-RateLimit-"} {
		r, ok := quotaNumber(h.Get(prefix + "Remaining"))
		if !ok {
			continue
		}
		reset, ok := quotaNumber(h.Get(prefix + "Reset"))
		if !ok {
			continue
		}
		if prefix == "X-RateLimit-" && reset >= quotaEpoch {
			reset = max(reset-float64(now.UnixNano())/1e9, 0)
		}
		d, ok := quotaSeconds(reset)
		if !ok {
			continue
		}
		q := quota{remaining: math.Floor(r), reset: d,
			said: quotaSaid(prefix + "Remaining: " + strings.TrimSpace(h.Get(prefix+"Remaining")) +
				", " + prefix + "Reset: " + strings.TrimSpace(h.Get(prefix+"Reset")))}
		// The limit may name its window (earlier drafts: "20, 20;w=1").
		if item, ok := firstItem(h.Get(prefix + "Limit")); ok {
			if l, ok := quotaNumber(item.value); ok {
				q.limit = l
				if w, ok := item.param("w"); ok {
					q.window, _ = quotaSeconds(w)
				}
			}
		}
		return q, true
	}
	return quota{}, false
}

// quotaSaidMax bounds the header text a message quotes.
const quotaSaidMax = 200

// quotaSaid makes header text fit for a message: printable ASCII only, and
// no longer than quotaSaidMax.
func quotaSaid(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c < 0x20 || c > 0x7e {
			b[i] = '?'
		}
	}
	if len(b) > quotaSaidMax {
		return string(b[:quotaSaidMax]) + "..."
	}
	return string(b)
}

// parseQuotaFields reads the RateLimit and RateLimit-Policy fields.
func parseQuotaFields(limit, policy string) (quota, bool) {
	items, ok := parseSFList(limit)
	if !ok {
		return quota{}, false
	}
	policies, _ := parseSFList(policy)
	var best quota
	found := false
	for _, it := range items {
		r, okR := it.param("r")
		t, okT := it.param("t")
		if !okR || !okT {
			continue
		}
		d, ok := quotaSeconds(t)
		if !ok {
			continue
		}
		q := quota{remaining: math.Floor(r), reset: d}
		for _, p := range policies {
			if p.value != it.value {
				continue
			}
			if l, ok := p.param("q"); ok {
				q.limit = math.Floor(l)
				if w, ok := p.param("w"); ok {
					q.window, _ = quotaSeconds(w)
				}
			}
			break
		}
		if !found || q.tighter(best) {
			best, found = q, true
		}
	}
	return best, found
}

// tighter reports whether q leaves fewer requests a second until its reset
// than o.
func (q quota) tighter(o quota) bool {
	return q.remaining*max(o.reset.Seconds(), 1) < o.remaining*max(q.reset.Seconds(), 1)
}

// quotaNumber reads a non-negative decimal number.
func quotaNumber(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
		return 0, false
	}
	return f, true
}

// quotaSeconds turns seconds into a duration, refusing one over
// quotaMaxReset.
func quotaSeconds(s float64) (time.Duration, bool) {
	if s < 0 || s > quotaMaxReset.Seconds() {
		return 0, false
	}
	return time.Duration(s * float64(time.Second)), true
}

// sfItem is an item of a structured field list: its bare value (a string's
// text, a token or a number as written) and its parameters.
type sfItem struct {
	value  string
	params map[string]string
}

// param returns the parameter key as a non-negative number.
func (it sfItem) param(key string) (float64, bool) {
	v, ok := it.params[key]
	if !ok {
		return 0, false
	}
	return quotaNumber(v)
}

// firstItem reads the first item of a list, leniently: "20, 20;w=1" is
// 20 with no parameters, "20;w=1" is 20 with w=1.
func firstItem(s string) (sfItem, bool) {
	items, ok := parseSFList(s)
	if !ok || len(items) == 0 {
		return sfItem{}, false
	}
	return items[0], true
}

// parseSFList reads a structured field list (RFC 9651) of bare items with
// parameters, as far as the quota headers use it: strings, tokens and
// numbers, each with ;key=value parameters. Inner lists and other
// malformed input make it fail.
func parseSFList(s string) ([]sfItem, bool) {
	var items []sfItem
	i := 0
	skipSpace := func() {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
	}
	bare := func() (string, bool) {
		if i < len(s) && s[i] == '"' {
			var b strings.Builder
			for i++; i < len(s); i++ {
				switch c := s[i]; c {
				case '\\':
					if i+1 >= len(s) || (s[i+1] != '"' && s[i+1] != '\\') {
						return "", false
					}
					i++
					b.WriteByte(s[i])
				case '"':
					i++
					return b.String(), true
				default:
					if c < 0x20 || c > 0x7e {
						return "", false
					}
					b.WriteByte(c)
				}
			}
			return "", false
		}
		start := i
		for i < len(s) && strings.IndexByte(",;= \t\"()", s[i]) < 0 {
			i++
		}
		return s[start:i], i > start
	}
	skipSpace()
	if i == len(s) {
		return nil, false
	}
	for {
		skipSpace()
		v, ok := bare()
		if !ok {
			return nil, false
		}
		it := sfItem{value: v}
		for i < len(s) && s[i] == ';' {
			i++
			skipSpace()
			k, ok := bare()
			if !ok {
				return nil, false
			}
			pv := "1" // a parameter without a value is true
			if i < len(s) && s[i] == '=' {
				i++
				if pv, ok = bare(); !ok {
					return nil, false
				}
			}
			if it.params == nil {
				it.params = map[string]string{}
			}
			it.params[strings.ToLower(k)] = pv
		}
		items = append(items, it)
		skipSpace()
		if i == len(s) {
			return items, true
		}
		if s[i] != ',' {
			return nil, false
		}
		i++
	}
}
