package connection

import (
	"fmt"
	"strings"
)

// Quote returns s in double quotes, for messages.
func Quote(s string) string {
	return fmt.Sprintf("%q", s)
}

// MaxListed is how many items a long message (the devices of a fleet, the
// failed writes of a bulk apply) lists in full before it only counts the
// others.
const MaxListed = 20

// Abbreviate lists at most ten items.
func Abbreviate(items []string) string {
	return AbbreviateTo(items, 10)
}

// AbbreviateTo joins items, listing at most most of them and counting the
// others.
func AbbreviateTo(items []string, most int) string {
	if len(items) <= most {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:most], ", ") + fmt.Sprintf(" and %d more", len(items)-most)
}

// Sentence returns s ended as a sentence: a period is added unless s ends
// with one, a question or exclamation mark, or a colon (text that a
// message goes on after, such as an error's, must not run into the next
// sentence).
func Sentence(s string) string {
	t := strings.TrimRight(s, " \t\n")
	if t == "" || strings.ContainsRune(".!?:", rune(t[len(t)-1])) {
		return t
	}
	return t + "."
}
