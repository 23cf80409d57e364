package bulkwrite

import (
	"fmt"
	"sort"
	"strings"

	"github.com/zdm/terraform-provider-zdm/internal/connection"
)

// Failures describes the failed writes of a bulk apply, one line per key
// (the first connection.MaxListed with their reason, then the other keys),
// sorted by key; it returns no keys and "" when nothing failed.
func Failures(writes []Write, outcomes []Outcome) (failed []string, detail string) {
	type failure struct{ key, line string }
	var fs []failure
	for i, o := range outcomes {
		if o.Err == nil {
			continue
		}
		w := writes[i]
		verb := "create"
		if w.ID != "" {
			verb = "update of " + w.ID
		}
		fs = append(fs, failure{w.Key, fmt.Sprintf("- %s (%s %s): %v", connection.Quote(w.Key), verb, connection.Quote(w.Name), o.Err)})
	}
	if len(fs) == 0 {
		return nil, ""
	}
	sort.Slice(fs, func(a, b int) bool { return fs[a].key < fs[b].key })
	var b strings.Builder
	for i, f := range fs {
		failed = append(failed, f.key)
		if i < connection.MaxListed {
			b.WriteString(f.line)
			b.WriteByte('\n')
		}
	}
	if len(fs) > connection.MaxListed {
		rest := make([]string, 0, len(fs)-connection.MaxListed)
		for _, f := range fs[connection.MaxListed:] {
			rest = append(rest, connection.Quote(f.key))
		}
		fmt.Fprintf(&b, "- and %d more: %s\n", len(rest), strings.Join(rest, ", "))
	}
	return failed, b.String()
}

// AdoptedKeys lists the keys whose device was adopted after an ambiguous
// create, as "key" (id), sorted.
func AdoptedKeys(writes []Write, outcomes []Outcome) []string {
	var out []string
	for i, o := range outcomes {
		if o.Adopted {
			out = append(out, connection.Quote(writes[i].Key)+" ("+o.Device.ID+")")
		}
	}
	sort.Strings(out)
	return out
}
